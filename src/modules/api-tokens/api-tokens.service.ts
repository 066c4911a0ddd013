import type { Database } from '../../db/client.ts';
import type { ApiTokenScope } from '../../db/schema/index.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { generateSecret, safeEqual, sha256Hex } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import {
  type ApiTokenRow,
  activeNameTaken,
  findActiveByHash,
  findApiToken,
  insertApiToken,
  listApiTokens,
  revokeApiToken,
  touchApiToken,
} from './api-tokens.repo.ts';
import { createTokenCache } from './token-cache.ts';
import { dbIso } from '../../db/dates.ts';

export const API_TOKEN_PREFIX = 'mos_api_';
/** `mos_api_` + 43 base64url characters (32 random bytes). */
const TOKEN_SHAPE = /^mos_api_[A-Za-z0-9_-]{43}$/;

export interface ApiTokenWire {
  id: number;
  name: string;
  scope: ApiTokenScope;
  /** The first characters, to tell tokens apart (`mos_api_AbCd…`); never the whole. */
  hint: string;
  created_by: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Who a valid token is. */
export interface ApiTokenIdentity {
  id: number;
  companyId: number;
  name: string;
  scope: ApiTokenScope;
}

const iso = dbIso;

function toWire(row: ApiTokenRow): ApiTokenWire {
  return {
    id: Number(row.id),
    name: row.name,
    scope: row.scope,
    hint: `${row.hint}…`,
    created_by: row.created_by_email,
    created_at: iso(row.created_at)!,
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

export type ApiTokenService = ReturnType<typeof createApiTokenService>;

/**
 * Company API tokens for the merchant API (/api/v1): named, read-only or read-write, shown once,
 * stored as SHA-256 (they are high-entropy, so a fast hash is the right lookup), revocable, with
 * the last use recorded. Creating and revoking are audited.
 */
export function createApiTokenService({ db, clock, logger }: { db: Database; clock: Clock; logger: Logger }) {
  const cache = createTokenCache(db, logger, clock);

  async function list(companyId: number): Promise<ApiTokenWire[]> {
    return (await listApiTokens(db.orm, companyId)).map(toWire);
  }

  async function create(
    ctx: CompanyCtx,
    input: { name: string; scope: ApiTokenScope },
  ): Promise<{ token: ApiTokenWire; secret: string }> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 80) {
      throw new AppError('validation_failed', 'name must have 1 to 80 characters', {
        details: [{ path: '/name', message: 'must have 1 to 80 characters' }],
      });
    }
    const secret = generateSecret(API_TOKEN_PREFIX);
    const token = await db.orm.transaction(async (tx) => {
      if (await activeNameTaken(tx, ctx.companyId, name)) {
        throw new AppError('conflict', `an active token named "${name}" already exists: revoke it or pick another name`);
      }
      const id = await insertApiToken(tx, {
        companyId: ctx.companyId,
        name,
        scope: input.scope,
        tokenHash: sha256Hex(secret),
        hint: secret.slice(0, API_TOKEN_PREFIX.length + 4),
        createdBy: ctx.actor.kind === 'user' ? ctx.actor.userId : null,
      });
      await recordAudit(tx, {
        action: 'api_token.created',
        ...auditBy(ctx),
        details: { token_id: id, name, scope: input.scope },
      });
      return (await findApiToken(tx, ctx.companyId, id))!;
    });
    return { token: toWire(token), secret };
  }

  async function revoke(ctx: CompanyCtx, id: number): Promise<ApiTokenWire> {
    const row = await db.orm.transaction(async (tx) => {
      const found = await findApiToken(tx, ctx.companyId, id, true);
      if (!found) throw new AppError('not_found', `API token ${id} not found`);
      if (found.revoked_at === null) {
        await revokeApiToken(tx, ctx.companyId, id, clock.now());
        await recordAudit(tx, { action: 'api_token.revoked', ...auditBy(ctx), details: { token_id: id, name: found.name } });
      }
      return (await findApiToken(tx, ctx.companyId, id))!;
    });
    // Other processes hear of it from the database (token-cache.ts); this one drops its copy now.
    cache.forget();
    return toWire(row);
  }

  /** When this process last recorded each token's use: the UPDATE is skipped within the minute. */
  const touchedAt = new Map<string, number>();

  /** The identity of a presented token, or null (malformed, unknown or revoked). Records the use. */
  async function authenticate(presented: string): Promise<ApiTokenIdentity | null> {
    if (!TOKEN_SHAPE.test(presented)) return null;
    const hash = sha256Hex(presented);
    let row = cache.get(hash);
    if (!row) {
      const generation = cache.generation();
      row = (await findActiveByHash(db.orm, hash)) ?? undefined;
      if (row) cache.put(hash, row, generation);
    }
    // The lookup is by hash; comparing the stored hash again in constant time costs nothing.
    if (!row || !safeEqual(row.token_hash, hash)) return null;
    // The row records a use at most once a minute; a request within the minute of this process's
    // last record would be a no-op UPDATE, a round trip per request for nothing.
    const now = clock.now();
    // Token ids are numbered per company (migration 0306): the key is the pair.
    const key = `${row.company_id}:${row.id}`;
    const last = touchedAt.get(key);
    if (last === undefined || now.getTime() - last >= 60_000 || now.getTime() < last) {
      await touchApiToken(db.orm, Number(row.company_id), Number(row.id), now);
      touchedAt.set(key, now.getTime());
    }
    return { id: Number(row.id), companyId: Number(row.company_id), name: row.name, scope: row.scope };
  }

  return { list, create, revoke, authenticate, close: () => cache.close() };
}
