import { sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';

// The receipts of a month for the Libro IVA Digital (ventas), and what rebuilding a received one needs.

export interface BookReceiptRow {
  id: number;
  sale_id: number;
  source: 'arca' | 'integration';
  kind: 'invoice' | 'credit_note';
  type: string;
  point_of_sale: number;
  number: string;
  receipt_code: number | null;
  date: string;
  doc_type: number | null;
  doc_number: string | null;
  receiver_name: string | null;
  customer_name: string | null;
  total: string;
  exempt: string | null;
  iva_lines: { id: number; rate: string; base: string; amount: string }[] | null;
  environment: string | null;
}

/**
 * Receipts with CAE dated in [first, last]: ours by their issue date (CbteFch), received ones by
 * the local day they were issued. Ours from another ARCA environment than `environment` are left
 * out (homologación receipts have no fiscal value; a company in homologación sees its test book).
 */
export function bookReceipts(
  conn: Conn,
  companyId: number,
  v: { first: string; last: string; timeZone: string; environment: string },
): Promise<BookReceiptRow[]> {
  const day = sql`coalesce(i.issue_date, (i.issued_at AT TIME ZONE ${v.timeZone})::date)`;
  return selectRows<BookReceiptRow>(
    conn,
    sql`SELECT i.id, i.sale_id, i.source, i.kind, i.type, i.point_of_sale, i.number::text AS number, i.receipt_code,
        ${day}::text AS date, i.doc_type, i.doc_number, i.receiver_name, r.customer_name, i.total::text AS total,
        i.exempt::text AS exempt, i.iva_lines, i.environment
      FROM invoices i LEFT JOIN register_sales r ON r.company_id = i.company_id AND r.sale_id = i.sale_id
      WHERE i.company_id = ${companyId}
        AND (i.issue_date BETWEEN ${v.first}::date AND ${v.last}::date
          OR (i.issue_date IS NULL AND i.issued_at >= (${v.first}::date::timestamp AT TIME ZONE ${v.timeZone})
            AND i.issued_at < ((${v.last}::date + 1)::timestamp AT TIME ZONE ${v.timeZone})))
        AND (i.source <> 'arca' OR i.environment = ${v.environment})
      ORDER BY ${day}, i.point_of_sale, i.number, i.id`,
  );
}

/** The sales' lines summed per IVA rate of their products (to split a received receipt). */
export function saleGrossByRate(
  conn: Conn,
  companyId: number,
  saleIds: number[],
): Promise<{ sale_id: number; iva_rate: string; gross: string }[]> {
  if (saleIds.length === 0) return Promise.resolve([]);
  return selectRows(
    conn,
    sql`SELECT i.sale_id, p.iva_rate, sum(i.subtotal)::text AS gross
      FROM sale_items i JOIN products p ON p.company_id = i.company_id AND p.id = i.product_id
      WHERE i.company_id = ${companyId} AND i.sale_id IN (${sql.join(
        saleIds.map((id) => sql`${id}`),
        sql`, `,
      )}) GROUP BY 1, 2`,
  );
}

export async function fiscalCondition(conn: Conn, companyId: number): Promise<{ iva_condition: string; environment: string }> {
  const [row] = await selectRows<{ iva_condition: string; environment: string }>(
    conn,
    sql`SELECT iva_condition, environment FROM company_fiscal WHERE company_id = ${companyId}`,
  );
  return row ?? { iva_condition: 'responsable_inscripto', environment: 'homologacion' };
}
