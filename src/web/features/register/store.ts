/**
 * The register's browser storage (IndexedDB): the cached catalogue and the queue of sales made
 * while the server could not be reached. One database per company, so two shops on one computer
 * never mix their queues.
 */

export type CatalogProduct = readonly [
  id: number,
  name: string,
  price: number,
  bc: string | null,
  sku: string | null,
  unit: 'unit' | 'kg',
];

export interface CachedCatalog {
  etag: string;
  at: string | null;
  products: CatalogProduct[];
}

export interface QueuedSale {
  seq?: number;
  key: string;
  body: Record<string, unknown>;
  /** What the ticket showed: total in cents, for the pending list. */
  totalCents: number;
  queuedAt: string;
  /** Set when the server refused it (it stays for a person to look at; never sent again). */
  error?: string;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export class RegisterStore {
  private db: Promise<IDBDatabase>;

  constructor(companyKey: string) {
    this.db = new Promise((resolve, reject) => {
      const open = indexedDB.open(`mostrador-caja-${companyKey}`, 1);
      open.onupgradeneeded = () => {
        open.result.createObjectStore('kv');
        open.result.createObjectStore('queue', { keyPath: 'seq', autoIncrement: true });
      };
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
  }

  private async store(name: 'kv' | 'queue', mode: IDBTransactionMode) {
    return (await this.db).transaction(name, mode).objectStore(name);
  }

  async getCatalog(): Promise<CachedCatalog | null> {
    return ((await request((await this.store('kv', 'readonly')).get('catalog'))) as CachedCatalog | undefined) ?? null;
  }

  async putCatalog(catalog: CachedCatalog) {
    await request((await this.store('kv', 'readwrite')).put(catalog, 'catalog'));
  }

  async enqueue(sale: QueuedSale): Promise<number> {
    return Number(await request((await this.store('queue', 'readwrite')).add(sale)));
  }

  /** Queued sales in the order they were made. */
  async queued(): Promise<QueuedSale[]> {
    return (await request((await this.store('queue', 'readonly')).getAll())) as QueuedSale[];
  }

  async remove(seq: number) {
    await request((await this.store('queue', 'readwrite')).delete(seq));
  }

  async markFailed(sale: QueuedSale, error: string) {
    await request((await this.store('queue', 'readwrite')).put({ ...sale, error }));
  }
}
