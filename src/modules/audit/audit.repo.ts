import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { auditLog } from '../../db/schema/index.ts';
import type { RequestCtx, RequestOrigin } from '../../http/request-context.ts';

/** What can be audited; the names are stable (operators filter and alert on them). */
export type AuditAction =
  | 'auth.login'
  | 'auth.login_failed'
  | 'auth.logout'
  | 'auth.other_sessions_ended'
  | 'auth.company_selected'
  | 'integration_key.revealed'
  | 'integration_key.rotated'
  | 'scanner_token.rotated'
  | 'scale_label.updated'
  | 'company.created'
  | 'user.disabled'
  | 'user.password_set'
  | 'user.password_reset'
  | 'member.added'
  | 'invitation.created'
  | 'invitation.revoked'
  | 'invitation.accepted'
  | 'invitation.declined'
  | 'invitation.refused'
  | 'member.role_changed'
  | 'member.disabled'
  | 'member.enabled'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.enabled'
  | 'webhook.disabled'
  | 'webhook.removed'
  | 'webhook.secret_rotated'
  | 'catalog.price_change'
  | 'catalog.imported'
  | 'customer.imported'
  | 'api_token.created'
  | 'api_token.revoked'
  | 'box_session.opened'
  | 'box_session.closed'
  | 'box_session.cash_moved'
  | 'sale.cancelled'
  | 'sale.refunded'
  | 'sale.returned'
  | 'sale.price_changed'
  | 'sale.discounted'
  | 'sale.discount_approved'
  | 'sale.discount_approval_failed'
  | 'sale.refund_approved'
  | 'sale.refund_approval_failed'
  | 'settings.discount_limit_changed'
  | 'account.credit_limit_overridden'
  | 'account.statement_shared'
  | 'fiscal.updated'
  | 'fiscal.cuit_unavailable'
  | 'company.cuit_moved'
  | 'company.cuit_claim_dismissed'
  | 'fiscal.certificate_uploaded'
  | 'fiscal.csr_created'
  | 'invoice.issued'
  | 'invoice.rejected'
  | 'caea.obtained'
  | 'caea.informed'
  | 'caea.no_movement_informed'
  | 'caea.no_movement_rejected'
  | 'caea.block_reserved'
  | 'caea.block_returned'
  | 'invoice.contingency_duplicate';

/** From where a change was asked: the HTTP client (null fields for the command line). */
export type AuditOrigin = RequestOrigin;

export interface AuditActor {
  /** Null when the change came with a company API token (then `email` names the token). */
  userId: number | null;
  email: string;
}

export interface AuditEntryInput {
  action: AuditAction;
  actor: AuditActor | null;
  companyId: number | null;
  origin: AuditOrigin | null;
  details?: Record<string, unknown>;
}

const MAX_USER_AGENT = 512;

/** Who did it, for which company and from where, as the audit log records it: all from the request's ctx. */
export function auditBy(ctx: RequestCtx): Pick<AuditEntryInput, 'actor' | 'companyId' | 'origin'> {
  const actor =
    ctx.actor.kind === 'user'
      ? { userId: ctx.actor.userId, email: ctx.actor.email }
      : ctx.actor.kind === 'api-token'
        ? { userId: null, email: `token API «${ctx.actor.name}»` }
        : null;
  return { actor, companyId: ctx.companyId, origin: ctx.actor.kind === 'cli' ? null : ctx.origin };
}

/** Writes one audit row in the caller's transaction, so it exists exactly when the change does. */
export async function recordAudit(conn: Conn, entry: AuditEntryInput): Promise<void> {
  await conn.insert(auditLog).values({
    action: entry.action,
    actorUserId: entry.actor?.userId ?? null,
    actorEmail: entry.actor?.email ?? null,
    companyId: entry.companyId,
    ip: entry.origin?.ip ?? null,
    userAgent: entry.origin?.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
    requestId: entry.origin?.requestId ?? null,
    details: entry.details ?? {},
  });
}

export interface AuditEntryWire {
  /** Opaque outside (settings.service.ts seals it): the row's id is one numbering for every company. */
  id: string;
  at: string;
  action: string;
  actor_email: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

/**
 * A company's audit rows, newest first; `beforeId` pages further back. The rows keep the person's
 * account id (`details.user_id`, users.id: one numbering for all of Mostrador); the company reads
 * its own number for that person (memberships.member_no) in its place, for old and new entries
 * alike (a person whose access was turned off keeps theirs), and null without a membership row.
 */
export async function listCompanyAudit(
  conn: Conn,
  companyId: number,
  { limit, beforeId }: { limit: number; beforeId?: number | undefined },
): Promise<Array<Omit<AuditEntryWire, 'id'> & { id: number }>> {
  const rows = await conn
    .select({
      entry: auditLog,
      memberNo: sql<number | null>`(SELECT m.member_no FROM memberships m
        WHERE m.company_id = ${auditLog.companyId} AND m.user_id::text = ${auditLog.details} ->> 'user_id')`,
    })
    .from(auditLog)
    .where(and(eq(auditLog.companyId, companyId), beforeId === undefined ? undefined : lt(auditLog.id, beforeId)))
    .orderBy(desc(auditLog.id))
    .limit(limit);
  return rows.map(({ entry: row, memberNo }) => ({
    id: row.id,
    at: row.at.toISOString(),
    action: row.action,
    actor_email: row.actorEmail,
    ip: row.ip,
    user_agent: row.userAgent,
    details: 'user_id' in row.details ? { ...row.details, user_id: memberNo === null ? null : Number(memberNo) } : row.details,
  }));
}
