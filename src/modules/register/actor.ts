import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { moneyToNumber } from '../../lib/money.ts';
import { auditBy } from '../audit/audit.repo.ts';
import { dbIso } from '../../db/dates.ts';

// Small helpers every part of the register shares: who acted, and money/time on the wire.

export const iso = dbIso;
// Exact below 2^53 cents; a shift's sum past that (many amounts each up to its column's limit), the nearest double.
export const money = moneyToNumber;

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

/** The person acting (their user id), or null for an API token or the command line. */
export function personOf(ctx: CompanyCtx): number | null {
  return ctx.actor.kind === 'user' ? ctx.actor.userId : null;
}

/** A cashier (not an admin) signed in: sees only their own shifts. */
export function isCashier(ctx: CompanyCtx): boolean {
  return ctx.actor.kind === 'user' && ctx.actor.role === 'cashier';
}

/**
 * A person works only in their own shift: a sale, a payment or a cash move by a person in a box
 * whose open shift is someone else's is refused (409 shift_of_another_person; the register offers
 * the handover). API tokens and the command line act for the company and use any open shift, and
 * anyone may use a shift that has no person (opened by a token, or before shifts had one).
 */
export function assertOwnShift(
  ctx: CompanyCtx,
  shift: { id: number; box_id: number; user_id: number | null; user_name: string | null },
): void {
  const person = personOf(ctx);
  if (person === null || shift.user_id === null || shift.user_id === person) return;
  throw new AppError(
    'shift_of_another_person',
    `box ${shift.box_id} already has an open session (${shift.id}), the shift of ${shift.user_name ?? 'another person'}; take it over (POST /api/v1/box-sessions/${shift.id}/handover) to work in your own shift`,
  );
}
