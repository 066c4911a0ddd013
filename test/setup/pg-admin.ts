import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_DB_PREFIX = 'mostrador_t_';

export function templateName() {
  return `${TEST_DB_PREFIX}golden_${process.pid}_${randomBytes(3).toString('hex')}`;
}

export function cloneName() {
  return `${TEST_DB_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;
}

export function databaseUrl(serverUrl: string, database: string) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The maintenance database of the server, for CREATE/DROP DATABASE. */
export function adminUrl(serverUrl: string) {
  return databaseUrl(serverUrl, 'postgres');
}

export async function withAdmin<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl(serverUrl) });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(serverUrl: string, name: string) {
  await withAdmin(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** CREATE DATABASE … TEMPLATE fails while another clone copies the same template; retry briefly. */
export async function cloneDatabase(serverUrl: string, template: string): Promise<string> {
  const name = cloneName();
  await withAdmin(serverUrl, async (admin) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        return;
      } catch (err) {
        if (attempt >= 20 || (err as { code?: string }).code !== '55006') throw err;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
  });
  return name;
}
