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

export interface CaeaBlock {
  id: number;
  receipt_code: number;
  point_of_sale: number;
  first: number;
  last: number;
  used: number[];
}

export interface OfflineCaea {
  caea: { code: string; valid_from: string; valid_to: string };
  issuer: {
    cuit: string;
    iva_condition: 'responsable_inscripto' | 'monotributo' | 'exento';
    legal_name: string;
    address: string | null;
    gross_income: string | null;
    activity_start: string | null;
    environment: string;
  };
  blocks: CaeaBlock[];
  /** The next number to print, per block id (kept here so a reload never prints one twice). */
  next: Record<string, number>;
  boxId: number;
}

/** What a receipt printed offline carries, and what is sent for it once the sale is on the server. */
export interface OfflineInvoice {
  block_id: number;
  number: number;
  receipt_code: number;
  point_of_sale: number;
  /** CbteFchHsGen: yyyymmddhhmiss in Argentina. */
  generated_at: string;
  total: number;
  caea: string;
  valid_to: string;
  letter: 'B' | 'C';
  issuer: OfflineCaea['issuer'];
  qr_url: string;
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
  /** The receipt printed offline under the CAEA (caea-offline.ts): recorded after the sale. */
  invoice?: OfflineInvoice;
  /** The sale the server made of it, once sent (its receipt may still be waiting). */
  saleId?: number;
}

/**
 * A shift opened or closed without connection, sent once the server is reachable, in order with
 * the sales (a shift's open goes before its sales, its close after them). `clientId` is the shift's
 * own id (the open's client_id); the server answers the same shift to the same id.
 */
export interface QueuedShift {
  seq?: number;
  kind: 'shift';
  op: 'open' | 'close';
  key: string;
  clientId: string;
  /** The shift's server id when known (a shift opened online closed offline). */
  sessionId: number | null;
  body: Record<string, unknown>;
  queuedAt: string;
  error?: string;
}

/** A sale made offline that has since reached the server: Mis ventas marks it. */
export interface ArrivedSale {
  saleId: number;
  at: string;
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

  async getKv<T>(key: string): Promise<T | null> {
    return ((await request((await this.store('kv', 'readonly')).get(key))) as T | undefined) ?? null;
  }

  async putKv(key: string, value: unknown) {
    await request((await this.store('kv', 'readwrite')).put(value, key));
  }

  /** Remembers that the queued sale reached the server (its receipt still to send). */
  async markSent(sale: QueuedSale, saleId: number) {
    await request((await this.store('queue', 'readwrite')).put({ ...sale, saleId }));
  }

  async getCatalog(): Promise<CachedCatalog | null> {
    return ((await request((await this.store('kv', 'readonly')).get('catalog'))) as CachedCatalog | undefined) ?? null;
  }

  async putCatalog(catalog: CachedCatalog) {
    await request((await this.store('kv', 'readwrite')).put(catalog, 'catalog'));
  }

  async enqueue(sale: QueuedSale | QueuedShift): Promise<number> {
    return Number(await request((await this.store('queue', 'readwrite')).add(sale)));
  }

  /** Queued sales in the order they were made. */
  async queued(): Promise<QueuedSale[]> {
    return (await this.queuedAll()).filter((q): q is QueuedSale => !isShift(q));
  }

  /** Every queued operation (sales and shift opens/closes) in the order it was made. */
  async queuedAll(): Promise<(QueuedSale | QueuedShift)[]> {
    return (await request((await this.store('queue', 'readonly')).getAll())) as (QueuedSale | QueuedShift)[];
  }

  async putEntry(entry: QueuedSale | QueuedShift) {
    await request((await this.store('queue', 'readwrite')).put(entry));
  }

  /** The sale being loaded, so a reload does not lose it (null: none). */
  async getCart<T>(): Promise<T | null> {
    return ((await request((await this.store('kv', 'readonly')).get('cart'))) as T | undefined) ?? null;
  }

  async putCart(cart: unknown) {
    await request((await this.store('kv', 'readwrite')).put(cart, 'cart'));
  }

  /** Sales made offline that reached the server (newest last, at most 200). */
  async arrived(): Promise<ArrivedSale[]> {
    return ((await request((await this.store('kv', 'readonly')).get('arrived'))) as ArrivedSale[] | undefined) ?? [];
  }

  /**
   * A queued sale the server took leaves the queue and joins the arrived ones in one transaction:
   * a page left right after the send (or a closed tab) never keeps the sale queued nor loses its
   * mark in Mis ventas.
   */
  async settleArrived(seq: number, sale: ArrivedSale) {
    const tx = (await this.db).transaction(['queue', 'kv'], 'readwrite');
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
    tx.objectStore('queue').delete(seq);
    const kv = tx.objectStore('kv');
    const now = ((await request(kv.get('arrived'))) as ArrivedSale[] | undefined) ?? [];
    kv.put([...now, sale].slice(-200), 'arrived');
    await done;
  }

  async remove(seq: number) {
    await request((await this.store('queue', 'readwrite')).delete(seq));
  }

  async markFailed(entry: QueuedSale | QueuedShift, error: string) {
    await request((await this.store('queue', 'readwrite')).put({ ...entry, error }));
  }
}

export const isShift = (entry: QueuedSale | QueuedShift): entry is QueuedShift => (entry as QueuedShift).kind === 'shift';
