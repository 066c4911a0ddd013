import type { SQL } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { assignId, nextId } from '../../db/ids.ts';
import type { MovementType } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { fromMilli, quantityToNumber, toMilli } from '../../lib/money.ts';
import { type OutboundEvent, recordOutbound } from '../../outbox/outbox.repo.ts';
import * as repo from './stock.repo.ts';
import type { LedgerEvent } from './stock.repo.ts';

export { type LedgerEvent, ledgerStatement } from './stock.repo.ts';

export const MOVEMENT_TYPES: readonly MovementType[] = ['IN', 'OUT', 'TRANSFER', 'ADJUSTMENT'];

/**
 * What is wrong with a movement's `to_deposit_id`, or null: it names the other deposit of a
 * TRANSFER and nothing else. The message is the field's, for the callers that refuse with a path
 * (the merchant API, the integration's event check) before anything is read.
 */
export function toDepositProblem(type: string, depositId: unknown, toDepositId: unknown): string | null {
  if (type !== 'TRANSFER') {
    return toDepositId === undefined ? null : `is only allowed on TRANSFER movements (type is ${type})`;
  }
  if (toDepositId === undefined) return 'is required on a TRANSFER: the deposit the stock goes to';
  return toDepositId === depositId ? `must be another deposit than deposit_id (both are ${toDepositId})` : null;
}

export interface MovementInput {
  /** The sender's id; a new company-local id is taken when absent. */
  id?: number;
  type: MovementType;
  depositId: number;
  toDepositId?: number | null;
  productId: number;
  amount: string | number;
  reason?: string | null;
  createdAt?: Date;
  /**
   * OUT / TRANSFER only: refuse (409 insufficient_stock) to take more than the deposit holds. A
   * person moving stock by hand is asked first; register sales and integration events never are.
   */
  refuseBelowZero?: boolean;
}

export interface LedgerOptions {
  /** The inbound event that caused the change, carried on the outbound events. */
  causedBy?: string | null;
  now: Date;
}

export interface StockChange {
  productId: number;
  sku: string | null;
  previousStock: number;
  currentStock: number;
  change: number;
  depositId: number;
}

export interface AppliedMovement {
  movement: MovementWire;
  stockChange: StockChange | null;
}

export interface MovementWire {
  id: number;
  company_id: number;
  type: MovementType;
  deposit_id: number;
  to_deposit_id?: number;
  product_id: number;
  amount: number;
  reason: string | null;
  created_at: string;
}

/** How a movement changes each deposit, in thousandths. TRANSFER leaves the product total unchanged. */
export function movementDeltas(input: Pick<MovementInput, 'type' | 'depositId' | 'toDepositId'>, amountMilli: number) {
  switch (input.type) {
    case 'IN':
      return [{ depositId: input.depositId, delta: amountMilli }];
    case 'OUT':
      return [{ depositId: input.depositId, delta: -amountMilli }];
    case 'ADJUSTMENT':
      return [{ depositId: input.depositId, delta: amountMilli }];
    case 'TRANSFER':
      return [
        { depositId: input.depositId, delta: -amountMilli },
        { depositId: input.toDepositId!, delta: amountMilli },
      ];
  }
}

function validateMovement(input: MovementInput): number {
  if (!MOVEMENT_TYPES.includes(input.type)) {
    throw new AppError('validation_failed', `movement type "${input.type}" is not one of ${MOVEMENT_TYPES.join(', ')}`);
  }
  const amountMilli = toMilli(input.amount);
  if (input.type !== 'ADJUSTMENT' && amountMilli <= 0) {
    throw new AppError('validation_failed', `movement amount must be positive for ${input.type} (got ${input.amount})`);
  }
  if (input.type === 'TRANSFER') {
    if (input.toDepositId === undefined || input.toDepositId === null) {
      throw new AppError('validation_failed', 'a TRANSFER movement needs to_deposit_id');
    }
    if (input.toDepositId === input.depositId) {
      throw new AppError('validation_failed', `a TRANSFER needs two different deposits (both are ${input.depositId})`);
    }
  } else if (input.toDepositId !== undefined && input.toDepositId !== null) {
    throw new AppError('validation_failed', `to_deposit_id is only allowed on TRANSFER movements (type is ${input.type})`);
  }
  return amountMilli;
}

async function assertDepositExists(tx: Conn, companyId: number, depositId: number) {
  if (!(await repo.depositExists(tx, companyId, depositId))) {
    throw new AppError('invalid_reference', `deposit ${depositId} does not exist`);
  }
}

async function lockProduct(tx: Conn, companyId: number, productId: number) {
  const row = await repo.lockProductRow(tx, companyId, productId);
  if (!row) throw new AppError('invalid_reference', `product ${productId} does not exist`);
  return row;
}

/**
 * Applies one movement to the stock ledger inside the caller's transaction: the movement row,
 * the per-deposit quantities and the product total change together, and the outbound events
 * `movement.created` and (when the total changed) `product.stock_updated` are recorded with them.
 * Negative stock is allowed: the counter reports reality, it does not refuse a sale.
 */
export async function applyMovement(
  tx: Conn,
  companyId: number,
  input: MovementInput,
  options: LedgerOptions,
): Promise<AppliedMovement> {
  const amountMilli = validateMovement(input);
  const product = await lockProduct(tx, companyId, input.productId);
  await assertDepositExists(tx, companyId, input.depositId);
  if (input.type === 'TRANSFER') await assertDepositExists(tx, companyId, input.toDepositId!);
  if (input.refuseBelowZero && (input.type === 'OUT' || input.type === 'TRANSFER')) {
    // The product row is locked: no other movement of it changes the deposit until this one commits.
    const heldMilli = toMilli((await repo.findLevel(tx, companyId, input.depositId, input.productId)) ?? 0);
    if (amountMilli > heldMilli) {
      const held = quantityToNumber(fromMilli(heldMilli));
      const left = quantityToNumber(fromMilli(heldMilli - amountMilli));
      throw new AppError(
        'insufficient_stock',
        `deposit ${input.depositId} holds ${held} of product ${input.productId}; taking ${amountMilli / 1000} leaves ${left} (send allow_negative: true to record it anyway)`,
        {
          details: [
            { path: '/stock', message: String(held) },
            { path: '/amount', message: String(amountMilli / 1000) },
            { path: '/remaining', message: String(left) },
          ],
        },
      );
    }
  }

  const id = await assignId(tx, 'movements', companyId, input.id, 'movement');

  const deltas = movementDeltas(input, amountMilli);
  for (const { depositId, delta } of deltas) {
    await repo.addToLevel(tx, { companyId, depositId, productId: input.productId, deltaMilli: delta, now: options.now });
  }
  const totalDelta = deltas.reduce((sum, d) => sum + d.delta, 0);
  const previousMilli = toMilli(product.stock);
  const currentMilli = previousMilli + totalDelta;
  if (totalDelta !== 0) await repo.setProductTotal(tx, companyId, input.productId, currentMilli);

  const createdAt = input.createdAt ?? options.now;
  await repo.insertMovement(tx, {
    companyId,
    id,
    type: input.type,
    depositId: input.depositId,
    toDepositId: input.type === 'TRANSFER' ? input.toDepositId! : null,
    productId: input.productId,
    amountMilli,
    reason: input.reason ?? null,
    createdAt,
    recordedAt: options.now,
  });

  const movement: MovementWire = {
    id,
    company_id: companyId,
    type: input.type,
    deposit_id: input.depositId,
    ...(input.type === 'TRANSFER' ? { to_deposit_id: input.toDepositId! } : {}),
    product_id: input.productId,
    amount: amountMilli / 1000,
    reason: input.reason ?? null,
    created_at: createdAt.toISOString(),
  };
  await recordOutbound(tx, { companyId, event: 'movement.created', data: { movement }, causedBy: options.causedBy ?? null });

  let stockChange: StockChange | null = null;
  if (totalDelta !== 0) {
    stockChange = {
      productId: input.productId,
      sku: product.sku,
      previousStock: previousMilli / 1000,
      currentStock: currentMilli / 1000,
      change: totalDelta / 1000,
      depositId: input.depositId,
    };
    await recordOutbound(tx, {
      companyId,
      event: 'product.stock_updated',
      causedBy: options.causedBy ?? null,
      data: {
        product: {
          id: input.productId,
          company_id: companyId,
          sku: product.sku,
          previous_stock: stockChange.previousStock,
          current_stock: stockChange.currentStock,
          change: stockChange.change,
          deposit_id: input.depositId,
          updated_at: options.now.toISOString(),
        },
      },
    });
  }
  return { movement, stockChange };
}

export interface SetStockInput {
  productId: number;
  /** The product's new total stock. */
  stock: string | number;
  /** Where the difference is booked; the company's default deposit when absent. */
  depositId?: number;
  reason?: string;
}

/**
 * Sets a product's total stock by booking the difference as an ADJUSTMENT (design §3).
 * Returns null when the stock already had that value (nothing to record).
 */
export async function setProductStock(
  tx: Conn,
  companyId: number,
  input: SetStockInput,
  options: LedgerOptions,
): Promise<AppliedMovement | null> {
  const product = await lockProduct(tx, companyId, input.productId);
  const delta = toMilli(input.stock) - toMilli(product.stock);
  if (delta === 0) return null;
  const depositId = input.depositId ?? (await findDefaultDepositId(tx, companyId));
  return applyMovement(
    tx,
    companyId,
    {
      type: 'ADJUSTMENT',
      depositId,
      productId: input.productId,
      amount: fromMilli(delta),
      reason: input.reason ?? 'stock update',
    },
    options,
  );
}

export async function findDefaultDepositId(tx: Conn, companyId: number): Promise<number> {
  const id = await repo.findDefaultDeposit(tx, companyId);
  if (id === null) throw new AppError('invalid_state', `company ${companyId} has no default deposit`);
  return id;
}

/** Per-deposit quantities of a product, as numbers. */
export async function findStockLevels(tx: Conn, companyId: number, productId: number) {
  const rows = await repo.findLevels(tx, companyId, productId);
  return rows.map((r) => ({ depositId: r.depositId, quantity: quantityToNumber(r.quantity) }));
}

export type LockedProducts = Map<number, { stock: string; sku: string | null }>;
export type { OutboundEvent } from '../../outbox/outbox.repo.ts';
export type BatchInput = MovementInput & { type: 'IN' | 'OUT' | 'ADJUSTMENT' };

/**
 * Locks the products of a batch of movements, in id order (two batches naming the same products
 * in another order never deadlock); refuses a product that does not exist.
 */
export async function lockForMovements(tx: Conn, companyId: number, productIds: number[]): Promise<LockedProducts> {
  const ids = [...new Set(productIds)].sort((a, b) => a - b);
  const locked = await repo.lockProductRows(tx, companyId, ids);
  const byId: LockedProducts = new Map(locked.map((p) => [Number(p.id), { stock: p.stock, sku: p.sku }]));
  for (const id of ids) if (!byId.has(id)) throw new AppError('invalid_reference', `product ${id} does not exist`);
  return byId;
}

/**
 * The movements of a batch, validated, numbered from `firstId`, each with its change to the stock of
 * its one deposit (in thousandths) and its wire shape: what bookMovements and bookGroupsLocking
 * share. A batch books movements of one deposit with new ids.
 */
function batchMovements(companyId: number, firstId: number, inputs: BatchInput[], now: Date) {
  const amounts = inputs.map((input) => validateMovement(input));
  const depositId = inputs[0]!.depositId;
  if (inputs.some((i) => i.depositId !== depositId || i.id !== undefined)) {
    throw new Error('a batch books movements of one deposit with new ids');
  }
  const movements = inputs.map((input, n) => {
    const [{ delta }] = movementDeltas(input, amounts[n]!) as [{ depositId: number; delta: number }];
    const movement: MovementWire = {
      id: firstId + n,
      company_id: companyId,
      type: input.type,
      deposit_id: depositId,
      product_id: input.productId,
      amount: amounts[n]! / 1000,
      reason: input.reason ?? null,
      created_at: (input.createdAt ?? now).toISOString(),
    };
    const move: repo.BatchMove = {
      id: movement.id,
      type: movement.type,
      productId: movement.product_id,
      amountMilli: amounts[n]!,
      reason: movement.reason,
      createdAt: movement.created_at,
    };
    return { delta, movement, move };
  });
  return { depositId, movements };
}

/**
 * A batch of IN/OUT/ADJUSTMENT movements of one deposit, as applyMovement would book them one by
 * one (same rows, same events in the same order), turned into CTE steps (levels, product totals,
 * movements) and their outbound events, for the caller to run in one statement with
 * runLedgerStatement. The products must be locked (lockForMovements) and the ids taken (from firstId).
 */
export function bookMovements(
  companyId: number,
  locked: LockedProducts,
  firstId: number,
  inputs: BatchInput[],
  options: LedgerOptions,
): { results: AppliedMovement[]; steps: SQL[]; events: OutboundEvent[] } {
  const now = options.now;
  const { depositId, movements } = batchMovements(companyId, firstId, inputs, now);
  const stockMilli = new Map([...locked].map(([id, p]) => [id, toMilli(p.stock)]));
  const levelDelta = new Map<number, number>();
  const results: AppliedMovement[] = [];
  const events: OutboundEvent[] = [];
  for (const { delta, movement } of movements) {
    const productId = movement.product_id;
    levelDelta.set(productId, (levelDelta.get(productId) ?? 0) + delta);
    const previousMilli = stockMilli.get(productId)!;
    const currentMilli = previousMilli + delta;
    stockMilli.set(productId, currentMilli);
    events.push({ event: 'movement.created', data: { movement } });
    let stockChange: StockChange | null = null;
    if (delta !== 0) {
      const sku = locked.get(productId)!.sku;
      stockChange = {
        productId,
        sku,
        previousStock: previousMilli / 1000,
        currentStock: currentMilli / 1000,
        change: delta / 1000,
        depositId,
      };
      events.push({
        event: 'product.stock_updated',
        data: {
          product: {
            id: productId,
            company_id: companyId,
            sku,
            previous_stock: stockChange.previousStock,
            current_stock: stockChange.currentStock,
            change: stockChange.change,
            deposit_id: depositId,
            updated_at: now.toISOString(),
          },
        },
      });
    }
    results.push({ movement, stockChange });
  }

  const steps = repo.ledgerSteps({
    companyId,
    depositId,
    now,
    changed: [...levelDelta]
      .filter(([, delta]) => delta !== 0)
      .map(([productId, delta]): [number, number, number] => [productId, delta, stockMilli.get(productId)!]),
    moves: movements.map((m) => m.move),
  });
  return { results, steps, events };
}

/**
 * bookMovements for a statement that locks the products itself (the register's sales, one or
 * several written together): nothing is locked before, so the products' locks are held only for
 * that statement and the commit after it, not across a round trip to the application (issue 33:
 * eight registers selling the same products spent most of a sale's lock waiting for the
 * application to send the next statement). Each group of movements of the one deposit keeps its
 * own ids (from its firstId) and time, the products are locked once for all of them, and the stock
 * figures of each group's product.stock_updated events come from the locked rows, inside the
 * statement, following the groups before it, in order, as if each had been its own statement; the
 * rows and events are otherwise bookMovements's, in the same order. `now` is the statement's time
 * (the levels' updated_at, the movements' recorded_at). The events come back per group.
 */
export function bookGroupsLocking(
  companyId: number,
  groups: { firstId: number; inputs: BatchInput[]; now: Date }[],
  now: Date,
): { steps: SQL[]; events: LedgerEvent[][] } {
  const levelDelta = new Map<number, number>();
  const moves: repo.BatchMove[] = [];
  const productIds = new Set<number>();
  let depositId: number | null = null;
  const events = groups.map((group) => {
    const booked = batchMovements(companyId, group.firstId, group.inputs, group.now);
    if (depositId !== null && booked.depositId !== depositId) throw new Error('a locking ledger statement books one deposit');
    depositId = booked.depositId;
    const at = group.now.toISOString();
    const groupEvents: LedgerEvent[] = [];
    for (const { delta, movement, move } of booked.movements) {
      const productId = movement.product_id;
      const beforeMilli = levelDelta.get(productId) ?? 0;
      levelDelta.set(productId, beforeMilli + delta);
      productIds.add(productId);
      moves.push(move);
      groupEvents.push({ event: 'movement.created', data: { movement } });
      if (delta !== 0)
        groupEvents.push({ stock: { productId, beforeMilli, deltaMilli: delta, depositId: booked.depositId, at } });
    }
    return groupEvents;
  });
  if (depositId === null) throw new Error('a locking ledger statement needs a movement');
  const steps = repo.lockingLedgerSteps({
    companyId,
    depositId,
    now,
    productIds: [...productIds].sort((a, b) => a - b),
    changed: [...levelDelta].filter(([, delta]) => delta !== 0).sort(([a], [b]) => a - b),
    moves,
  });
  return { steps, events };
}

/**
 * Several IN/OUT/ADJUSTMENT movements of one deposit in the caller's transaction, booked together
 * (lockForMovements, one id lock, bookMovements, one statement).
 */
export async function applyMovements(
  tx: Conn,
  companyId: number,
  inputs: BatchInput[],
  options: LedgerOptions & { depositKnown?: boolean },
): Promise<AppliedMovement[]> {
  if (inputs.length === 0) return [];
  const locked = await lockForMovements(
    tx,
    companyId,
    inputs.map((i) => i.productId),
  );
  if (!options.depositKnown) await assertDepositExists(tx, companyId, inputs[0]!.depositId);
  const firstId = await nextId(tx, 'movements', companyId, inputs.length);
  const booked = bookMovements(companyId, locked, firstId, inputs, options);
  await repo.runLedgerStatement(tx, companyId, booked.steps, booked.events, { causedBy: options.causedBy ?? null });
  return booked.results;
}
