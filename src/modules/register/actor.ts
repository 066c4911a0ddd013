import type { CompanyCtx } from '../../http/request-context.ts';
import { toCents } from '../../lib/money.ts';
import { auditBy } from '../audit/audit.repo.ts';

// Small helpers every part of the register shares: who acted, and money/time on the wire.

export const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
export const money = (value: string | number) => toCents(value) / 100;

/** Who acted, as the register's rows record it (a person's email or the API token's name). */
export function actorLabel(ctx: CompanyCtx): string {
  return auditBy(ctx).actor?.email ?? 'línea de comandos';
}

/** Admins signed in and read-write API tokens may do what needs "an admin" at the register. */
export function actsAsAdmin(ctx: CompanyCtx): boolean {
  if (ctx.actor.kind === 'user') return ctx.actor.role === 'admin';
  if (ctx.actor.kind === 'api-token') return ctx.actor.scope === 'read-write';
  return ctx.actor.kind === 'cli';
}
