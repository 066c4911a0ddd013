import { randomUUID } from 'node:crypto';
import type { Database, Tx } from '../../db/client.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { type Cipher, generateSecret } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { type AuditAction, auditBy, recordAudit } from '../audit/audit.repo.ts';
import { failPendingDeliveries } from './deliveries.repo.ts';
import * as repo from './endpoints.repo.ts';
import {
  checkDescription,
  checkEvents,
  checkHeaders,
  checkSecret,
  checkUrl,
  type EndpointInput,
  type EndpointPatch,
  type TargetRules,
  throwIfProblems,
} from './endpoint-input.ts';
import { isUuid } from '../../lib/uuid.ts';

export const WEBHOOK_SECRET_PREFIX = 'mos_whs_';
/** After a rotation the previous secret still signs for this long. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

type EndpointRow = repo.EndpointRow;

/** An endpoint as its company sees it: never the secret, only the names of the extra headers. */
export function endpointToWire(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    headers: row.headerNames,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    disabled_at: row.disabledAt?.toISOString() ?? null,
    failing_since: row.failingSince?.toISOString() ?? null,
    previous_secret_expires_at: row.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
export type EndpointWire = ReturnType<typeof endpointToWire>;

export interface EndpointServiceDeps {
  db: Database;
  cipher: Cipher;
  clock: Clock;
  rules: TargetRules;
}

export type EndpointService = ReturnType<typeof createEndpointService>;

/**
 * Webhook endpoints of a company: every call is scoped by companyId (another company's endpoint is
 * not found), and every change is written to the audit log in its own transaction.
 */
export function createEndpointService({ db, cipher, clock, rules }: EndpointServiceDeps) {
  function sealHeaders(headers: Record<string, string>) {
    const names = Object.keys(headers);
    return { headersEncrypted: names.length ? cipher.encrypt(JSON.stringify(headers)) : null, headerNames: names };
  }

  async function audit(tx: Tx, action: AuditAction, ctx: CompanyCtx, details: Record<string, unknown>) {
    await recordAudit(tx, { action, ...auditBy(ctx), details });
  }

  async function createEndpoint(ctx: CompanyCtx, input: EndpointInput): Promise<{ endpoint: EndpointWire; secret: string }> {
    const { companyId } = ctx;
    const problems: ErrorDetail[] = [];
    const url = checkUrl(input.url, rules, problems);
    const events = checkEvents(input.events, problems);
    const headers = checkHeaders(input.headers, problems);
    const description = checkDescription(input.description, problems);
    const given = checkSecret(input.secret, problems);
    throwIfProblems(problems);
    const secret = given ?? generateSecret(WEBHOOK_SECRET_PREFIX);
    const now = clock.now();
    const row = await db.orm.transaction(async (tx) => {
      if (!(await repo.companyExists(tx, companyId))) throw new AppError('not_found', `company ${companyId} not found`);
      const created = await repo.insertEndpoint(tx, {
        id: randomUUID(),
        companyId,
        url: url!,
        description,
        events,
        ...sealHeaders(headers),
        secretEncrypted: cipher.encrypt(secret),
        createdAt: now,
        updatedAt: now,
      });
      await audit(tx, 'webhook.created', ctx, { endpoint_id: created.id, url: created.url, own_secret: !!given });
      return created;
    });
    return { endpoint: endpointToWire(row), secret };
  }

  async function listEndpoints(companyId: number): Promise<EndpointWire[]> {
    return (await repo.listEndpointRows(db.orm, companyId)).map(endpointToWire);
  }

  /** The company's endpoint, locked when `tx` is given; 404 for an unknown id or another company's. */
  async function findRow(companyId: number, id: string, tx?: Tx): Promise<EndpointRow> {
    const row = isUuid(id) ? await repo.findEndpointRow(tx ?? db.orm, companyId, id, tx !== undefined) : undefined;
    if (!row) throw new AppError('not_found', `webhook endpoint ${id} not found`);
    return row;
  }

  async function getEndpoint(companyId: number, id: string): Promise<EndpointWire> {
    return endpointToWire(await findRow(companyId, id));
  }

  function checkPatch(patch: EndpointPatch) {
    const problems: ErrorDetail[] = [];
    const set: repo.EndpointChange = {};
    if (patch.url !== undefined) set.url = checkUrl(patch.url, rules, problems)!;
    if (patch.events !== undefined) set.events = checkEvents(patch.events, problems);
    if (patch.headers !== undefined) Object.assign(set, sealHeaders(checkHeaders(patch.headers, problems)));
    if (patch.description !== undefined) set.description = checkDescription(patch.description, problems);
    if (patch.enabled !== undefined && typeof patch.enabled !== 'boolean')
      problems.push({ path: 'enabled', message: 'must be a boolean' });
    throwIfProblems(problems);
    return set;
  }

  /** Changes what is given; enabling clears the failure state, disabling fails what was pending. */
  async function updateEndpoint(ctx: CompanyCtx, id: string, patch: EndpointPatch): Promise<EndpointWire> {
    const { companyId } = ctx;
    const set = checkPatch(patch);
    const now = clock.now();
    return db.orm.transaction(async (tx) => {
      const current = await findRow(companyId, id, tx);
      if (patch.enabled === true && !current.enabled) {
        Object.assign(set, { enabled: true, disabledReason: null, disabledAt: null, failingSince: null });
      }
      if (patch.enabled === false && current.enabled) {
        Object.assign(set, { enabled: false, disabledReason: 'manual', disabledAt: now });
        await failPendingDeliveries(tx, current.id, now, 'endpoint disabled by an admin');
      }
      const row = await repo.updateEndpointRow(tx, current.id, { ...set, updatedAt: now });
      const changed = Object.keys(patch).filter((key) => patch[key as keyof EndpointPatch] !== undefined);
      await audit(tx, updateAction(changed, patch.enabled), ctx, { endpoint_id: current.id, url: row.url, changed });
      return endpointToWire(row);
    });
  }

  async function removeEndpoint(ctx: CompanyCtx, id: string) {
    return db.orm.transaction(async (tx) => {
      const row = await findRow(ctx.companyId, id, tx);
      await repo.deleteEndpointRow(tx, row.id);
      await audit(tx, 'webhook.removed', ctx, { endpoint_id: row.id, url: row.url });
      return { id: row.id };
    });
  }

  /**
   * A new secret (generated, or the one given). By default the previous one keeps signing for 24 h,
   * so deliveries carry both signatures while receivers switch; `keepPrevious: false` drops it now.
   */
  async function rotateSecret(
    ctx: CompanyCtx,
    id: string,
    options: { secret?: string; keepPrevious?: boolean } = {},
  ): Promise<{ endpoint: EndpointWire; secret: string }> {
    const { companyId } = ctx;
    const problems: ErrorDetail[] = [];
    const given = checkSecret(options.secret, problems);
    throwIfProblems(problems);
    const secret = given ?? generateSecret(WEBHOOK_SECRET_PREFIX);
    const now = clock.now();
    const keep = options.keepPrevious ?? true;
    const row = await db.orm.transaction(async (tx) => {
      const current = await findRow(companyId, id, tx);
      const updated = await repo.updateEndpointRow(tx, current.id, {
        secretEncrypted: cipher.encrypt(secret),
        previousSecretEncrypted: keep ? current.secretEncrypted : null,
        previousSecretExpiresAt: keep ? new Date(now.getTime() + ROTATION_OVERLAP_MS) : null,
        updatedAt: now,
      });
      await audit(tx, 'webhook.secret_rotated', ctx, {
        endpoint_id: current.id,
        kept_previous: keep,
        own_secret: !!given,
      });
      return updated;
    });
    return { endpoint: endpointToWire(row), secret };
  }

  return { createEndpoint, listEndpoints, getEndpoint, updateEndpoint, removeEndpoint, rotateSecret, findRow };
}

/** A change of `enabled` alone is named for what it did ("Webhook desactivado"), not as a generic update. */
function updateAction(changed: string[], enabled: boolean | undefined): AuditAction {
  if (changed.length === 1 && enabled !== undefined) return enabled ? 'webhook.enabled' : 'webhook.disabled';
  return 'webhook.updated';
}
