import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import type { Q } from '../instagram/instagram.repo.ts';

/**
 * The agent's repository speaks positional SQL (`$1`…) over a raw connection; the WhatsApp inbox
 * hands its claim hook a Drizzle transaction. This runs the same statements on that transaction,
 * each `$n` bound as a parameter (never spliced as text), so the claim stays in the insert's
 * transaction.
 */
export function queryOn(conn: Conn): Q {
  return {
    async query<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
      // Drizzle would spread an array into a list of parameters: refuse it rather than change the statement.
      if (params.some(Array.isArray)) throw new Error('queryOn: an array parameter is not supported');
      const parts = text.split(/\$(\d+)/);
      const chunks: SQL[] = parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`));
      return selectRows<T>(conn, sql.join(chunks));
    },
  };
}
