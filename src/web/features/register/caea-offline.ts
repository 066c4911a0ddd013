import { IDENTIFICATION_THRESHOLD_CENTS } from '../../../modules/invoicing/fiscal-rules.ts';
import { api } from '../../ui/api.ts';
import type { OfflineCaea, OfflineInvoice, RegisterStore } from './store.ts';

export type { OfflineCaea, OfflineInvoice } from './store.ts';

/**
 * Invoicing without connection (issue 32): while online, the box holds a reserved block of the
 * company's CAEA numbers (POST /api/v1/caea/blocks) with what a receipt needs; offline, a consumer
 * sale takes the block's next number and prints a Factura B (or C) under the CAEA; back online,
 * the sale is sent, then its receipt (POST /api/v1/sales/:id/invoice/offline), once.
 */

const KEY = 'caea';

/** Reserves (or gets again) the box's blocks; null when the company has no CAEA for now. */
export async function refreshCaea(store: RegisterStore, boxId: number): Promise<OfflineCaea | null> {
  const current = (await store.getKv<OfflineCaea>(KEY)) ?? null;
  try {
    // Only a company with CAEA on and this fortnight's code reserves numbers (no refusals to log).
    const status = await api<{ enabled: boolean; current: { caea: string | null } }>('GET', '/api/v1/fiscal/caea');
    if (!status.enabled || !status.current.caea) {
      await store.putKv(KEY, null);
      return null;
    }
    const got = await api<Omit<OfflineCaea, 'next' | 'boxId'>>('POST', '/api/v1/caea/blocks', { body: { box_id: boxId } });
    const next: Record<string, number> = {};
    for (const b of got.blocks) {
      const mine = current?.boxId === boxId ? current.next[String(b.id)] : undefined;
      const afterUsed = b.used.length ? Math.max(...b.used) + 1 : b.first;
      next[String(b.id)] = Math.max(mine ?? b.first, afterUsed);
    }
    const value: OfflineCaea = { ...got, next, boxId };
    await store.putKv(KEY, value);
    return value;
  } catch {
    // Offline (keep what is stored) or CAEA not available (nothing to keep).
    if (navigator.onLine === false) return current;
    return current && current.boxId === boxId ? current : null;
  }
}

export async function storedCaea(store: RegisterStore): Promise<OfflineCaea | null> {
  return (await store.getKv<OfflineCaea>(KEY)) ?? null;
}

/** ARCA's date and time in Argentina (-03:00): yyyymmddhhmiss. */
function arcaStamp(at: Date): string {
  return new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 19).replace(/[-T:]/g, '');
}

/**
 * RG 5700: from $ 10.000.000 a final consumer's receipt names the buyer, which a receipt printed
 * offline does not: such a sale goes without it and is invoiced, with the buyer's document, online.
 */
export function needsIdentifiedBuyer(totalCents: number): boolean {
  return totalCents >= IDENTIFICATION_THRESHOLD_CENTS;
}

/**
 * Takes the next number of the box's block for a consumer receipt of `totalCents`; null when the
 * box holds none (no CAEA, block used up, or outside the CAEA's fortnight), or when the receipt
 * would have to identify the buyer (needsIdentifiedBuyer).
 */
export async function takeOfflineInvoice(
  store: RegisterStore,
  boxId: number,
  totalCents: number,
  at = new Date(),
): Promise<OfflineInvoice | null> {
  if (needsIdentifiedBuyer(totalCents)) return null;
  const held = await storedCaea(store);
  if (!held || held.boxId !== boxId) return null;
  const stamp = arcaStamp(at);
  const day = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}`;
  if (day < held.caea.valid_from || day > held.caea.valid_to) return null;
  const letter: 'B' | 'C' = held.issuer.iva_condition === 'responsable_inscripto' ? 'B' : 'C';
  const code = letter === 'B' ? 6 : 11;
  const block = held.blocks.find((b) => b.receipt_code === code);
  if (!block) return null;
  const number = held.next[String(block.id)] ?? block.first;
  if (number > block.last) return null;
  await store.putKv(KEY, { ...held, next: { ...held.next, [String(block.id)]: number + 1 } });
  const total = totalCents / 100;
  const payload = {
    ver: 1,
    fecha: day,
    cuit: Number(held.issuer.cuit),
    ptoVta: block.point_of_sale,
    tipoCmp: code,
    nroCmp: number,
    importe: total,
    moneda: 'PES',
    ctz: 1,
    tipoDocRec: 99,
    nroDocRec: 0,
    tipoCodAut: 'A',
    codAut: Number(held.caea.code),
  };
  return {
    block_id: block.id,
    number,
    receipt_code: code,
    point_of_sale: block.point_of_sale,
    generated_at: stamp,
    total,
    caea: held.caea.code,
    valid_to: held.caea.valid_to,
    letter,
    issuer: held.issuer,
    qr_url: `https://www.afip.gob.ar/fe/qr/?p=${btoa(JSON.stringify(payload))}`,
  };
}

/** Records the receipt of a sale the server now has; true when recorded (now or before). */
export async function sendOfflineInvoice(saleId: number, invoice: OfflineInvoice): Promise<void> {
  await api('POST', `/api/v1/sales/${saleId}/invoice/offline`, {
    body: {
      block_id: invoice.block_id,
      number: invoice.number,
      generated_at: invoice.generated_at,
      total: invoice.total,
    },
  });
}

/**
 * Back online with everything sent: the box gives its blocks back (the numbers it did not use are
 * free again) and takes fresh ones for the next outage. A block it did not use is kept while its
 * CAEA covers today, and given back once the fortnight is over (the server swaps it for the new
 * CAEA's, so the box can invoice offline again and the old fortnight can be informed).
 */
export async function renewCaea(store: RegisterStore, boxId: number, at = new Date()): Promise<OfflineCaea | null> {
  const held = await storedCaea(store);
  if (held && held.boxId === boxId) {
    const used = held.blocks.some((b) => (held.next[String(b.id)] ?? b.first) > b.first);
    const stamp = arcaStamp(at);
    const ended = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}` > held.caea.valid_to;
    if (!used && !ended) return refreshCaea(store, boxId);
    // A printed receipt not yet recorded (even one the server refused, waiting for a person) keeps
    // its block: returning it would free a number a customer already holds on paper.
    if ((await store.queued()).some((q) => q.invoice)) return held;
    for (const b of held.blocks) await api('POST', `/api/v1/caea/blocks/${b.id}/return`, {});
    await store.putKv(KEY, null);
  }
  return refreshCaea(store, boxId);
}
