import type pg from 'pg';
import type { Logger } from '../logger.ts';
import type { Database } from './client.ts';

const RECONNECT_MS = 1000;

/** A LISTEN on one channel (see listen). */
export interface Listener {
  /** True while notifications on the channel reach this process. */
  readonly connected: boolean;
  stop(): Promise<void>;
}

export interface ListenHandlers {
  /** A notification on the channel (a committed transaction's pg_notify). */
  onNotify: () => void;
  /** The LISTEN is (again) in place: anything committed while it was not was missed. */
  onUp?: () => void;
  /** The connection is lost: notifications no longer arrive until onUp. */
  onDown?: () => void;
}

interface Subscription {
  channel: string;
  handlers: ListenHandlers;
  listening: boolean;
}

/** The connection a Hub listens on; `release` is idempotent and detaches the Hub's handlers. */
interface Held {
  client: pg.PoolClient;
  release(err?: Error): void;
}

/**
 * One process's LISTENs on one PostgreSQL database: every channel on ONE pooled connection (the
 * webhook dispatcher's and the API token cache's share it, so the process stays within DB_POOL_MAX
 * and gives up one connection, not one per channel), re-established when lost.
 */
class Hub {
  private held: Held | null = null;
  private connecting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly subscriptions = new Set<Subscription>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  async add(sub: Subscription): Promise<void> {
    this.subscriptions.add(sub);
    const held = this.held;
    if (held) await this.listenOn(held, sub).catch((err) => this.lose(held, err as Error));
    else await this.connect();
  }

  async remove(sub: Subscription): Promise<void> {
    this.subscriptions.delete(sub);
    if (sub.listening) {
      sub.listening = false;
      sub.handlers.onDown?.();
    }
    const held = this.held;
    if (!held) {
      if (this.subscriptions.size === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = null;
      }
      return;
    }
    if (![...this.subscriptions].some((s) => s.channel === sub.channel)) {
      await held.client.query(`UNLISTEN ${sub.channel}`).catch(() => {});
    }
    if (this.subscriptions.size === 0 && this.held === held) {
      this.held = null;
      held.release();
    }
  }

  private async listenOn(held: Held, sub: Subscription) {
    await held.client.query(`LISTEN ${sub.channel}`);
    if (this.held === held && this.subscriptions.has(sub) && !sub.listening) {
      sub.listening = true;
      sub.handlers.onUp?.();
    }
  }

  private connect(): Promise<void> {
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async open() {
    let held: Held | null = null;
    try {
      const client = await this.pool.connect();
      let released = false;
      const onNotification = (message: pg.Notification) => {
        for (const sub of this.subscriptions) {
          if (sub.listening && sub.channel === message.channel) sub.handlers.onNotify();
        }
      };
      const onError = (err: Error) => {
        this.logger.warn({ err }, 'LISTEN connection lost; reconnecting');
        this.lose(current, err);
      };
      const current: Held = {
        client,
        release(err) {
          if (released) return;
          released = true;
          client.removeListener('notification', onNotification);
          client.removeListener('error', onError);
          client.release(err);
        },
      };
      held = current;
      client.on('notification', onNotification);
      client.on('error', onError);
      if (this.subscriptions.size === 0) {
        current.release();
        return;
      }
      this.held = current;
      for (const sub of [...this.subscriptions]) await this.listenOn(current, sub);
    } catch (err) {
      if (held) this.lose(held, err as Error);
      else {
        if (this.subscriptions.size > 0) this.logger.warn({ err }, 'LISTEN connection could not be opened; retrying');
        this.reconnectLater();
      }
    }
  }

  /** The connection failed: every subscription is down until the next one is up. */
  private lose(held: Held, err: Error) {
    held.release(err);
    if (this.held !== held) return;
    this.held = null;
    for (const sub of this.subscriptions) {
      if (sub.listening) {
        sub.listening = false;
        sub.handlers.onDown?.();
      }
    }
    this.reconnectLater();
  }

  private reconnectLater() {
    if (this.subscriptions.size === 0 || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, RECONNECT_MS);
  }
}

const hubs = new WeakMap<pg.Pool, Hub>();

/**
 * LISTEN on `channel`: on PostgreSQL through the process's one LISTEN connection (Hub), PGlite's
 * own listen in the embedded database (always up). Resolves once the LISTEN is in place, or after
 * the first attempt failed (it keeps retrying; `connected` tells).
 */
export async function listen(database: Database, channel: string, handlers: ListenHandlers, logger: Logger): Promise<Listener> {
  if (database.pglite) {
    const unlisten = await database.pglite.listen(channel, handlers.onNotify);
    let up = true;
    handlers.onUp?.();
    return {
      get connected() {
        return up;
      },
      async stop() {
        if (!up) return;
        up = false;
        handlers.onDown?.();
        await unlisten();
      },
    };
  }
  const pool = database.pool!;
  let hub = hubs.get(pool);
  if (!hub) {
    hub = new Hub(pool, logger);
    hubs.set(pool, hub);
  }
  const sub: Subscription = { channel, handlers, listening: false };
  await hub.add(sub);
  let stopped = false;
  return {
    get connected() {
      return sub.listening;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await hub.remove(sub);
    },
  };
}
