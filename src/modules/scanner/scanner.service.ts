import type { Database } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { fromMilli, lineTotalCents, moneyToNumber } from '../../lib/money.ts';
import { createRateLimiterFor } from '../../lib/rate-limiter.ts';
import { sha256Hex } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import { createTtlCache } from '../../lib/ttl-cache.ts';
import type { Logger } from '../../logger.ts';
import type { CompanyService } from '../companies/companies.service.ts';
import { decodeScaleLabel, parseScaleLabelLayout, pluCandidates, type ScaleLabel, type ScaleLabelLayout } from './scale-label.ts';
import type { ScaleLabelBody, ScannerProduct, ScannerResult } from './scanner.schemas.ts';
import { createNameSearch, type NameMatch } from './name-search.ts';
import { createScannerRepo, type ScannerRow } from './scanner.repo.ts';

/** Token → company answers (and per-company scale layouts) are reused this long: a revoked token dies within it. */
export const SCANNER_CACHE_TTL_MS = 30_000;
/** Below this relevance (name-index.ts) a name is not an answer. */
export const MIN_NAME_SCORE = 0.45;
/** Alternatives may be looser: they are offered, not answered ("¿buscabas alguno de estos?"). */
export const MIN_ALTERNATIVE_SCORE = 0.3;
export const MAX_ALTERNATIVES = 5;
/** Digits only: a code (barcode, scale label, sku or PLU), never a name. */
const CODE = /^\d+$/;

export interface ScannerServiceDeps {
  db: Database;
  companies: CompanyService;
  clock: Clock;
  logger: Logger;
  /** Lookups per minute per token and client address; 0 = no limit. */
  rateLimitPerMinute: number;
}

export interface ScanInput {
  token: string;
  query: string;
  companyId?: number | undefined;
  clientIp: string;
}

export type ScannerService = ReturnType<typeof createScannerService>;

export function createScannerService({ db, companies, clock, logger, rateLimitPerMinute }: ScannerServiceDeps) {
  const repo = createScannerRepo(db.orm);
  const names = createNameSearch(repo);
  // Valid tokens and unknown ones are kept apart: a flood of made-up tokens fills only its own,
  // smaller cache and never pushes the shops' tokens out of theirs (each would then cost a read).
  const tokens = createTtlCache<number>({ ttlMs: SCANNER_CACHE_TTL_MS, maxEntries: 10_000, clock });
  const unknownTokens = createTtlCache<true>({ ttlMs: SCANNER_CACHE_TTL_MS, maxEntries: 1_000, clock });
  const layouts = createTtlCache<ScaleLabelLayout | null>({ ttlMs: SCANNER_CACHE_TTL_MS, maxEntries: 10_000, clock });
  const limiter =
    rateLimitPerMinute > 0
      ? createRateLimiterFor(db, { name: 'scanner', limit: rateLimitPerMinute, windowMs: 60_000, clock })
      : null;

  async function companyOfToken(token: string): Promise<number | null> {
    const key = sha256Hex(token);
    const cached = tokens.get(key);
    if (cached) return cached.value;
    if (unknownTokens.get(key)) return null;
    const companyId = await companies.findCompanyIdByScannerToken(token);
    if (companyId === null) unknownTokens.set(key, true);
    else tokens.set(key, companyId);
    return companyId;
  }

  async function scaleLayout(companyId: number): Promise<ScaleLabelLayout | null> {
    const key = String(companyId);
    const cached = layouts.get(key);
    if (cached) return cached.value;
    const { layout, problem } = parseScaleLabelLayout(await repo.findScaleSetting(companyId));
    if (problem) logger.warn({ companyId, problem }, 'invalid scale label setting; using the default layout');
    layouts.set(key, layout);
    return layout;
  }

  /** Rate limit, then token (unless its company is already known), then the optional companyId: the company the lookup runs for. */
  async function authorize({ token, companyId, clientIp }: ScanInput, known?: number): Promise<number> {
    if (limiter) {
      const decision = await limiter.hit(`${sha256Hex(token)}|${clientIp}`);
      if (!decision.allowed) {
        throw new AppError('rate_limited', `too many scanner lookups; retry in ${decision.retryAfterSeconds} s`, {
          headers: { 'retry-after': String(decision.retryAfterSeconds) },
        });
      }
    }
    const owner = known ?? (await companyOfToken(token));
    if (owner === null) throw new AppError('unauthenticated', 'invalid scanner token');
    if (companyId !== undefined && companyId !== owner) {
      throw new AppError('unauthenticated', `the scanner token does not belong to company ${companyId}`);
    }
    return owner;
  }

  /** Barcode (BC, either GTIN spelling), then sku, then scale label, then PLU; null when no code matches. */
  async function byCode(companyId: number, code: string): Promise<ScannerResult | null> {
    const row = await repo.findByCode(companyId, code, otherSpelling(code));
    if (row) return { product: toScannerProduct(row), matchType: 'barcode', alternatives: [] };
    const layout = await scaleLayout(companyId);
    const label = layout ? decodeScaleLabel(code, layout) : null;
    if (label) {
      const product = await repo.findByPlu(companyId, pluCandidates(label.plu));
      if (!product) return null;
      return { product: toScannerProduct(product), matchType: 'barcode', alternatives: [], label: labelToWire(label, product) };
    }
    if (code.length > 6) return null;
    const product = await repo.findByPlu(companyId, pluSpellings(code));
    return product ? { product: toScannerProduct(product), matchType: 'barcode', alternatives: [] } : null;
  }

  async function byName(companyId: number, text: string): Promise<ScannerResult | null> {
    if (text.replace(/\s/g, '').length < 2) return null;
    const ranked = rankMatches(await names.search(companyId, text, MAX_ALTERNATIVES + 1));
    const [best, ...rest] = ranked;
    if (!best) return null;
    return { product: toScannerProduct(best.row), matchType: 'name', alternatives: rest.map((m) => toScannerProduct(m.row)) };
  }

  /**
   * The contract's lookup. Digits only are a code: barcode, sku, scale label or PLU, and nothing
   * else (a short number fuzzy-matched to a name would show a confident wrong price). Anything
   * else is a name: the best match and up to 5 alternatives, by the same relevance. `owner` is the
   * token's company when the scanner surface's guard already found it (the token is then not hashed
   * and looked up a second time).
   */
  async function scan(input: ScanInput, owner?: number): Promise<ScannerResult> {
    return lookup(await authorize(input, owner), input);
  }

  async function lookup(companyId: number, input: ScanInput): Promise<ScannerResult> {
    const query = input.query.trim().replace(/\s+/g, ' ');
    if (query === '') throw new AppError('missing_parameter', "query parameter 'query' is required");
    const result = CODE.test(query) ? await byCode(companyId, query) : await byName(companyId, query);
    if (!result) throw new AppError('product_not_found', `no product matches "${query}"`);
    return result;
  }

  /** The company a kiosk address belongs to (for its page title); null for a token that is not valid. */
  async function kioskCompany(token: string): Promise<{ id: number; name: string; timezone: string } | null> {
    const companyId = await companyOfToken(token);
    const company = companyId === null ? null : await companies.findCompany(companyId);
    return company ? { id: company.id, name: company.name, timezone: company.timezone } : null;
  }

  /** Drops the cached scale layout of a company (its owner just changed it). */
  function forgetScaleLayout(companyId: number) {
    layouts.delete(String(companyId));
  }

  // tokenCompany: the surface guard's question, answered from the token cache (no round trip within the TTL).
  return { scan, tokenCompany: companyOfToken, kioskCompany, forgetScaleLayout };
}

/** The index's order, cut at the thresholds: nothing when even the best is too weak to answer. */
export function rankMatches(matches: NameMatch[]): NameMatch[] {
  const kept = matches.filter((m) => m.score >= MIN_ALTERNATIVE_SCORE).slice(0, MAX_ALTERNATIVES + 1);
  return kept.length > 0 && kept[0]!.score >= MIN_NAME_SCORE ? kept : [];
}

/** A typed PLU as the catalogue may hold it in `sku`: as typed, without leading zeros, padded to 5 digits. */
export function pluSpellings(code: string): string[] {
  return [...new Set([...pluCandidates(code), code.padStart(5, '0')])];
}

/** The same GTIN as stored by systems that drop or add the EAN-13 leading zero of a UPC-A code. */
function otherSpelling(code: string): string {
  if (code.length === 12) return `0${code}`;
  if (code.length === 13 && code.startsWith('0')) return code.slice(1);
  return code;
}

export function toScannerProduct(row: ScannerRow): ScannerProduct {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    BC: row.bc,
    base_price: moneyToNumber(row.basePrice),
    photo: row.photo,
    mark: row.mark,
    category_id: row.categoryId,
    enable: row.enable,
  };
}

function labelToWire(label: ScaleLabel, product: ScannerRow): ScaleLabelBody {
  const amountCents =
    label.value === 'price' ? label.priceCents! : lineTotalCents(product.basePrice, fromMilli(label.weightGrams!));
  return {
    code: label.code,
    plu: label.plu,
    value: label.value,
    price: label.priceCents === null ? null : label.priceCents / 100,
    weight: label.weightGrams === null ? null : label.weightGrams / 1000,
    amount: amountCents / 100,
  };
}
