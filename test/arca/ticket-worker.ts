// A second process asking for the same access ticket (test/arca/arca-client.test.ts): opens its own
// pool on the test database and asks N times at once; prints the tokens it got as JSON.
import { readFileSync } from 'node:fs';
import { openPostgres } from '../../src/db/client.ts';
import { getAccessTicket } from '../../src/modules/arca/tickets.ts';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const db = await openPostgres({ url: env('TICKET_DB_URL'), poolMax: 4 });
try {
  const request = {
    certPem: readFileSync(env('TICKET_CERT'), 'utf8'),
    keyPem: readFileSync(env('TICKET_KEY'), 'utf8'),
    service: 'wsfe',
    wsaaUrl: env('TICKET_WSAA_URL'),
    timeoutMs: 5000,
  };
  const tickets = await Promise.all(
    Array.from({ length: Number(process.env['TICKET_CALLS'] ?? 5) }, () => getAccessTicket(db, request)),
  );
  process.stdout.write(JSON.stringify(tickets.map((t) => t.token)));
} finally {
  await db.close();
}
