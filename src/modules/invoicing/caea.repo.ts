import { type SQL, sql } from 'drizzle-orm';
import { type Conn, columnList, selectRows, selectTableRows, setList, valuesList } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import { caeaBlocks, caeaCodes, caeaNoMovement, invoices } from '../../db/schema/index.ts';
import type { Series } from './invoicing.repo.ts';

export type CaeaRow = typeof caeaCodes.$inferSelect;
export type BlockRow = typeof caeaBlocks.$inferSelect;
export type CaeaInvoiceRow = typeof invoices.$inferSelect;
export type NoMovementRow = typeof caeaNoMovement.$inferSelect;

const CAEA = columnList(caeaCodes);
const BLOCK = columnList(caeaBlocks);
const INVOICE = columnList(invoices);
const NO_MOVEMENT = columnList(caeaNoMovement);

export function caeaSeriesKey(s: Series): string {
  return `caea-series:${s.environment}:${s.issuerCuit}:${s.pointOfSale}:${s.receiptCode}`;
}

/** Companies with CAEA on, set up to invoice (a CUIT and a CAEA point of sale). */
export async function caeaCompanies(conn: Conn) {
  return selectRows<{
    company_id: number;
    cuit: string;
    environment: 'homologacion' | 'produccion';
    caea_point_of_sale: number;
    caea_register_point_of_sale: number | null;
  }>(
    conn,
    sql`SELECT f.company_id, c.cuit, f.environment, f.caea_point_of_sale, f.caea_register_point_of_sale FROM company_fiscal f
        JOIN companies c ON c.id = f.company_id
        WHERE f.caea_enabled AND f.caea_point_of_sale IS NOT NULL AND c.cuit IS NOT NULL ORDER BY f.company_id`,
  );
}

export async function findCaea(
  conn: Conn,
  companyId: number,
  key: { issuerCuit: string; environment: string; period: number; fortnight: number },
): Promise<CaeaRow | null> {
  const [row] = await selectTableRows(
    conn,
    caeaCodes,
    sql`SELECT ${CAEA} FROM caea_codes WHERE company_id = ${companyId} AND issuer_cuit = ${key.issuerCuit}
        AND environment = ${key.environment} AND period = ${key.period} AND fortnight = ${key.fortnight}`,
  );
  return row ?? null;
}

export async function caeaById(conn: Conn, companyId: number, id: number): Promise<CaeaRow | null> {
  const [row] = await selectTableRows(
    conn,
    caeaCodes,
    sql`SELECT ${CAEA} FROM caea_codes WHERE company_id = ${companyId} AND id = ${id}`,
  );
  return row ?? null;
}

/** Stores a granted CAEA; a second store of the same fortnight keeps the first row. */
export async function saveCaea(tx: Conn, values: Omit<typeof caeaCodes.$inferInsert, 'id' | 'createdAt'>): Promise<CaeaRow> {
  await tx.execute(
    sql`INSERT INTO caea_codes ${valuesList(caeaCodes, [values])}
        ON CONFLICT (company_id, issuer_cuit, environment, period, fortnight) DO NOTHING`,
  );
  return (await findCaea(tx, values.companyId, {
    issuerCuit: values.issuerCuit,
    environment: values.environment,
    period: values.period,
    fortnight: values.fortnight,
  }))!;
}

export async function recentCaeas(conn: Conn, companyId: number, limit: number): Promise<CaeaRow[]> {
  return selectTableRows(
    conn,
    caeaCodes,
    sql`SELECT ${CAEA} FROM caea_codes WHERE company_id = ${companyId} ORDER BY period DESC, fortnight DESC LIMIT ${limit}`,
  );
}

/**
 * The next free number of a CAEA series: the lowest one neither issued nor inside an open block
 * (numbers a returned block did not use are taken first, so the series stays without gaps).
 * Call under the series lock.
 */
/** ARCA's last number of a CAEA series, as recorded with the company's CAEAs (0 when never asked). */
const floorOf = (s: Series) =>
  sql`(SELECT coalesce(max((k.series_floor->>${`${s.pointOfSale}:${s.receiptCode}`})::bigint), 0) FROM caea_codes k
        WHERE k.issuer_cuit = ${s.issuerCuit} AND k.environment = ${s.environment})`;

/**
 * The next free number of a CAEA series: the lowest one after ARCA's last (series_floor) neither
 * issued nor inside an open block (numbers a returned block did not use are taken first, so the
 * series stays without gaps). Call under the series lock.
 */
export async function nextCaeaNumber(conn: Conn, s: Series): Promise<number> {
  const [row] = await selectRows<{ n: string }>(
    conn,
    sql`WITH floor AS (SELECT ${floorOf(s)} AS f), used AS (
          SELECT number FROM invoices WHERE emission = 'caea' AND issuer_cuit = ${s.issuerCuit} AND environment = ${s.environment}
            AND point_of_sale = ${s.pointOfSale} AND receipt_code = ${s.receiptCode}
          UNION
          SELECT generate_series(first_number, last_number) FROM caea_blocks WHERE status = 'open'
            AND issuer_cuit = ${s.issuerCuit} AND environment = ${s.environment} AND point_of_sale = ${s.pointOfSale}
            AND receipt_code = ${s.receiptCode}
        ), candidates AS (SELECT f + 1 AS n FROM floor UNION SELECT number + 1 FROM used)
        SELECT min(n)::text AS n FROM candidates, floor WHERE n > floor.f AND n NOT IN (SELECT number FROM used)`,
  );
  return Number(row!.n);
}

/** The first number after everything issued or reserved in a CAEA series (a new block starts there). */
export async function caeaSeriesTail(conn: Conn, s: Series): Promise<number> {
  const [row] = await selectRows<{ n: string | null }>(
    conn,
    sql`SELECT greatest(
          ${floorOf(s)},
          (SELECT max(number) FROM invoices WHERE emission = 'caea' AND issuer_cuit = ${s.issuerCuit} AND environment = ${s.environment}
            AND point_of_sale = ${s.pointOfSale} AND receipt_code = ${s.receiptCode}),
          (SELECT max(last_number) FROM caea_blocks WHERE status = 'open' AND issuer_cuit = ${s.issuerCuit}
            AND environment = ${s.environment} AND point_of_sale = ${s.pointOfSale} AND receipt_code = ${s.receiptCode})
        )::text AS n`,
  );
  return Number(row?.n ?? 0) + 1;
}

/** Records ARCA's last number of CAEA series with a stored CAEA (FECompUltimoAutorizado on the CAEA point of sale). */
export async function setSeriesFloor(conn: Conn, companyId: number, caeaId: number, floor: Record<string, number>) {
  await conn.execute(
    sql`UPDATE caea_codes SET series_floor = series_floor || ${JSON.stringify(floor)}::jsonb WHERE company_id = ${companyId} AND id = ${caeaId}`,
  );
}

export async function insertBlock(tx: Conn, values: Omit<typeof caeaBlocks.$inferInsert, 'id' | 'createdAt'>): Promise<BlockRow> {
  const [row] = await selectTableRows(
    tx,
    caeaBlocks,
    // The company's own number (migration 0307): another company's blocks leave no gap in it.
    sql`INSERT INTO caea_blocks ${valuesList(caeaBlocks, [{ ...values, id: await nextId(tx, 'caea_blocks', values.companyId) }])} RETURNING ${BLOCK}`,
  );
  return row!;
}

export async function openBlocksOfBox(conn: Conn, companyId: number, boxId: number): Promise<BlockRow[]> {
  return selectTableRows(
    conn,
    caeaBlocks,
    sql`SELECT ${BLOCK} FROM caea_blocks WHERE company_id = ${companyId} AND box_id = ${boxId} AND status = 'open' ORDER BY receipt_code`,
  );
}

export async function findBlock(
  conn: Conn,
  companyId: number,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<BlockRow | null> {
  const [row] = await selectTableRows(
    conn,
    caeaBlocks,
    sql`SELECT ${BLOCK} FROM caea_blocks WHERE company_id = ${companyId} AND id = ${id}${options.forUpdate ? sql` FOR UPDATE` : sql``}`,
  );
  return row ?? null;
}

export async function returnBlock(tx: Conn, companyId: number, id: number, now: Date): Promise<BlockRow> {
  const [row] = await selectTableRows(
    tx,
    caeaBlocks,
    sql`UPDATE caea_blocks SET status = 'returned', returned_at = ${now.toISOString()}::timestamptz
        WHERE company_id = ${companyId} AND id = ${id} RETURNING ${BLOCK}`,
  );
  return row!;
}

export async function blockUsage(conn: Conn, companyId: number, blockId: number): Promise<number[]> {
  const rows = await selectRows<{ number: string }>(
    conn,
    sql`SELECT number::text AS number FROM invoices WHERE company_id = ${companyId} AND caea_block_id = ${blockId} ORDER BY number`,
  );
  return rows.map((r) => Number(r.number));
}

/** The sale's CAEA receipt of this kind: its invoice, or the credit note of this return (null: of the whole sale). */
export async function caeaInvoiceOfSale(
  conn: Conn,
  companyId: number,
  saleId: number,
  kind: string,
  returnId: number | null,
): Promise<CaeaInvoiceRow | null> {
  const [row] = await selectTableRows(
    conn,
    invoices,
    sql`SELECT ${INVOICE} FROM invoices WHERE company_id = ${companyId} AND sale_id = ${saleId} AND kind = ${kind} AND emission = 'caea'
        AND return_id IS NOT DISTINCT FROM ${returnId}::integer`,
  );
  return row ?? null;
}

/**
 * CAEA receipts not yet informed (pending or rejected), oldest deadline first; all companies when
 * companyId is null. `current`: only those of the company's CUIT and environment now (the others
 * cannot be informed with its ARCA session).
 */
export async function toInform(
  conn: Conn,
  companyId: number | null,
  limit: number,
  options: { current?: boolean } = {},
): Promise<CaeaInvoiceRow[]> {
  return selectTableRows(
    conn,
    invoices,
    sql`SELECT ${INVOICE} FROM invoices WHERE emission = 'caea' AND inform_status IN ('pending', 'rejected')
        ${companyId === null ? sql`` : sql`AND company_id = ${companyId}`}
        ${
          options.current
            ? sql`AND EXISTS (SELECT 1 FROM company_fiscal f JOIN companies c ON c.id = f.company_id
                WHERE f.company_id = invoices.company_id AND f.environment = invoices.environment AND c.cuit = invoices.issuer_cuit)`
            : sql``
        }
        ORDER BY inform_by, issuer_cuit, point_of_sale, receipt_code, number LIMIT ${limit}`,
  );
}

/** The series' lowest receipt not yet informed: the only one ARCA takes next (703 otherwise). */
export async function firstUninformed(conn: Conn, s: Series): Promise<number | null> {
  const [row] = await selectRows<{ n: string | null }>(
    conn,
    sql`SELECT min(number)::text AS n FROM invoices WHERE emission = 'caea' AND inform_status <> 'informed'
        AND issuer_cuit = ${s.issuerCuit} AND environment = ${s.environment} AND point_of_sale = ${s.pointOfSale}
        AND receipt_code = ${s.receiptCode}`,
  );
  return row?.n ? Number(row.n) : null;
}

export async function lockInvoice(tx: Conn, companyId: number, id: number): Promise<CaeaInvoiceRow | null> {
  const [row] = await selectTableRows(
    tx,
    invoices,
    sql`SELECT ${INVOICE} FROM invoices WHERE company_id = ${companyId} AND id = ${id} FOR UPDATE`,
  );
  return row ?? null;
}

export async function updateInform(
  conn: Conn,
  companyId: number,
  id: number,
  patch: Partial<Pick<CaeaInvoiceRow, 'informStatus' | 'informTries' | 'informError' | 'informAnswer' | 'informedAt'>>,
) {
  await conn.execute(sql`UPDATE invoices SET ${setList(invoices, patch)} WHERE company_id = ${companyId} AND id = ${id}`);
}

/**
 * Open blocks nobody recorded a receipt in, of a CAEA whose fortnight has ended and whose last day
 * to inform is at most `marginDays` away: the box that holds one never came back to swap it.
 */
export async function idleBlocksOfEndedFortnights(conn: Conn, today: string, marginDays: number): Promise<BlockRow[]> {
  return selectTableRows(
    conn,
    caeaBlocks,
    sql`SELECT ${BLOCK} FROM caea_blocks WHERE status = 'open' AND EXISTS (
          SELECT 1 FROM caea_codes k WHERE k.company_id = caea_blocks.company_id AND k.id = caea_blocks.caea_id
            AND k.valid_to < ${today}::date AND k.inform_by <= ${today}::date + ${marginDays}::integer)
        AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.company_id = caea_blocks.company_id AND i.caea_block_id = caea_blocks.id)
        ORDER BY company_id, id`,
  );
}

/**
 * Each CAEA point of sale (the server's, and the registers' when the company has a second one) of
 * a CAEA whose fortnight has ended, with no receipt of that CAEA on it, no open block on it and no
 * "sin movimiento" informed for it yet; only those of the company's CUIT and environment now.
 */
export async function noMovementDue(conn: Conn, today: string, limit: number) {
  return selectRows<{
    company_id: number;
    caea_id: number;
    caea: string;
    point_of_sale: number;
    environment: string;
    issuer_cuit: string;
  }>(
    conn,
    sql`SELECT k.company_id, k.id AS caea_id, k.caea, p.point_of_sale, k.environment, k.issuer_cuit
        FROM caea_codes k JOIN company_fiscal f ON f.company_id = k.company_id AND f.environment = k.environment
        CROSS JOIN LATERAL ${caeaPointsOfFiscal(sql`f`)}
        JOIN companies c ON c.id = k.company_id AND c.cuit = k.issuer_cuit
        WHERE k.valid_to < ${today}::date AND k.inform_by >= ${today}::date
          AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.company_id = k.company_id AND i.caea_id = k.id
            AND i.point_of_sale = p.point_of_sale)
          AND NOT EXISTS (SELECT 1 FROM caea_blocks b WHERE b.company_id = k.company_id AND b.caea_id = k.id
            AND b.point_of_sale = p.point_of_sale AND b.status = 'open')
          AND NOT EXISTS (SELECT 1 FROM caea_no_movement n WHERE n.company_id = k.company_id AND n.caea_id = k.id
            AND n.point_of_sale = p.point_of_sale AND n.status = 'informed')
        ORDER BY k.inform_by, k.company_id, p.point_of_sale LIMIT ${limit}`,
  );
}

/**
 * The CAEA points of sale of a company_fiscal row (aliased `fiscal`), as rows `p(point_of_sale)`:
 * its CAEA one, and its registers' one when it has a second (0301).
 */
export function caeaPointsOfFiscal(fiscal: SQL): SQL {
  return sql`(SELECT q.point_of_sale FROM (VALUES (${fiscal}.caea_point_of_sale), (${fiscal}.caea_register_point_of_sale))
      AS q(point_of_sale) WHERE q.point_of_sale IS NOT NULL) AS p`;
}

export async function saveNoMovement(
  tx: Conn,
  values: Omit<typeof caeaNoMovement.$inferInsert, 'tries' | 'updatedAt'>,
  now: Date,
) {
  await tx.execute(
    sql`INSERT INTO caea_no_movement ${valuesList(caeaNoMovement, [{ ...values, tries: 1, updatedAt: now }])}
        ON CONFLICT (company_id, caea_id, point_of_sale) DO UPDATE SET status = excluded.status, answer = excluded.answer,
          tries = caea_no_movement.tries + 1, updated_at = excluded.updated_at`,
  );
}

export async function noMovementOf(conn: Conn, companyId: number): Promise<NoMovementRow[]> {
  return selectTableRows(conn, caeaNoMovement, sql`SELECT ${NO_MOVEMENT} FROM caea_no_movement WHERE company_id = ${companyId}`);
}

export async function markSuperseded(conn: Conn, companyId: number, attemptId: number, invoiceId: number) {
  await conn.execute(
    sql`UPDATE invoice_attempts SET superseded_by = ${invoiceId} WHERE company_id = ${companyId} AND id = ${attemptId}`,
  );
}

export async function boxExists(conn: Conn, companyId: number, boxId: number): Promise<boolean> {
  const rows = await selectRows(conn, sql`SELECT 1 FROM boxes WHERE company_id = ${companyId} AND id = ${boxId}`);
  return rows.length > 0;
}

/** Sales that ended with both a CAE (granted after all) and the CAEA receipt issued meanwhile, neither cancelled yet. */
export async function contingencyDuplicates(conn: Conn, companyId: number) {
  return selectRows<{ sale_id: number; cae_invoice_id: number; caea_invoice_id: number }>(
    conn,
    sql`SELECT a.sale_id, a.invoice_id AS cae_invoice_id, a.superseded_by AS caea_invoice_id FROM invoice_attempts a
        WHERE a.company_id = ${companyId} AND a.status = 'approved' AND a.superseded_by IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM invoices n WHERE n.company_id = a.company_id AND n.kind = 'credit_note'
            AND n.associated_invoice_id IN (a.invoice_id, a.superseded_by))
        ORDER BY a.sale_id`,
  );
}
