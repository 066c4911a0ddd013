import type { SaleStatus } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';

/**
 * The sale state machine, as data. Each row is one way a sale's status may change; a change not
 * in this table cannot happen: every path that writes a sale's status (register, merchant API,
 * integration events and their batcher, back office, demo seed) asks `assertTransition` first.
 * - create: a new sale is pending (contract "States and transitions").
 * - pay: pending → paid (sales.paid; the register's payments covering the total).
 * - cancel: pending → cancelled (sales.cancelled; the register's cancel of an unpaid sale).
 * - refund: paid → cancelled, only at the register (the money goes back in an open session;
 *   a paid integration sale is still not cancellable: its sender owns the payment).
 * - return: paid → paid, a partial return (returns.ts); the return that completes the sale is a
 *   refund (paid → cancelled).
 */
export type SaleAction = 'create' | 'pay' | 'cancel' | 'refund' | 'return';

export interface SaleTransition {
  from: SaleStatus | null;
  action: SaleAction;
  to: SaleStatus;
}

export const SALE_TRANSITIONS: readonly SaleTransition[] = [
  { from: null, action: 'create', to: 'pending' },
  { from: 'pending', action: 'pay', to: 'paid' },
  { from: 'pending', action: 'cancel', to: 'cancelled' },
  { from: 'paid', action: 'refund', to: 'cancelled' },
  { from: 'paid', action: 'return', to: 'paid' },
];

export const SALE_STATUSES: readonly SaleStatus[] = ['pending', 'paid', 'cancelled'];
export const SALE_ACTIONS: readonly SaleAction[] = ['create', 'pay', 'cancel', 'refund', 'return'];

/** The status `action` leads to from `from`, or null when the table has no such row. */
export function nextStatus(from: SaleStatus | null, action: SaleAction): SaleStatus | null {
  return SALE_TRANSITIONS.find((t) => t.from === from && t.action === action)?.to ?? null;
}

/** The status after `action`; a 422 invalid_state naming the sale when the table does not allow it. */
export function assertTransition(sale: { id: number; status: SaleStatus | null }, action: SaleAction): SaleStatus {
  const to = nextStatus(sale.status, action);
  if (to !== null) return to;
  const from = sale.status ?? 'new';
  // "sale 1 is paid; it cannot become paid" read as a contradiction (a repeated sales.paid with
  // another payment_id): the same status says it is already there.
  const error =
    from === TARGET[action]
      ? `sale ${sale.id} is already ${from}; it cannot be ${DONE[action]} again`
      : `sale ${sale.id} is ${from}; it cannot become ${TARGET[action]}`;
  throw new AppError('invalid_state', error, {
    details: [{ path: 'sale.status', message: `current status is ${from}` }],
  });
}

/** The status after several actions in a row (a register sale created and paid at once). */
export function assertTransitions(sale: { id: number; status: SaleStatus | null }, actions: SaleAction[]): SaleStatus {
  let status = sale.status;
  for (const action of actions) status = assertTransition({ id: sale.id, status }, action);
  if (status === null) throw new Error('a sale needs at least one action');
  return status;
}

/** The action done, for "cannot be … again". */
const DONE: Record<SaleAction, string> = {
  create: 'created',
  pay: 'paid',
  cancel: 'cancelled',
  refund: 'refunded',
  return: 'returned',
};

/** The status each action aims at, for the refusal's message. */
const TARGET: Record<SaleAction, SaleStatus> = {
  create: 'pending',
  pay: 'paid',
  cancel: 'cancelled',
  refund: 'cancelled',
  return: 'paid',
};
