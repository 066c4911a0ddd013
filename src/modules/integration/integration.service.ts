import { isUtf8 } from 'node:buffer';
import { createHash, randomUUID } from 'node:crypto';
import secureJson from 'secure-json-parse';
import type { Config } from '../../config.ts';
import type { Conn, Database } from '../../db/client.ts';
import { isSerializationFailure, isUniqueViolation } from '../../db/pg-errors.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { AppError, isAppError, notUtf8 } from '../../lib/errors.ts';
import { type Clock, DAY_MS, parseRfc3339 } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import type { CompanyService } from '../companies/companies.service.ts';
import type { LedgerOptions } from '../stock/stock.ledger.ts';
import { createKeyCache } from './integration.auth.ts';
import { checkIdempotencyKey, checkSentAt, verifySignature } from './integration.checks.ts';
import { EVENT_HANDLERS, type Effect } from './integration.handlers.ts';
import {
  findByIdempotencyKey,
  insertInboundEvent,
  listInboundEvents,
  type NewInboundEvent,
  purgeInboundEvents,
  type StoredInboundEvent,
} from './integration.repo.ts';
import { EVENT_ENTITY, type ValidEvent, validateEnvelope } from './integration.validation.ts';
import { type BatchedSaleOutcome, createSaleBatcher, type SaleBatchOptions } from './sale-batcher.ts';

export const POLL_DEFAULT_LIMIT = 50;
export const POLL_MAX_LIMIT = 200;
const KEY_CACHE_MAX_ENTRIES = 10_000;
/** A transaction that lost a race (deadlock, a record created concurrently) is run again from the start. */
const MAX_ATTEMPTS = 3;
export const PURGE_JOB = 'integration.purge-inbound';

export interface IngestInput {
  companyId: number;
  /** The bearer key: it is also the HMAC secret of x-signature. */
  integrationKey: string;
  rawBody: Buffer;
  signature?: string | undefined;
  sentAt?: string | undefined;
  idempotencyKey?: string | undefined;
}

export interface IngestResult {
  /** The stored event: this one, or the earlier one holding the same idempotency key. */
  eventId: string;
  idempotent: boolean;
  /** A duplicate whose body differs from the stored one (answered as a duplicate all the same). */
  bodyMismatch: boolean;
  effect: Effect | null;
}

export interface IntegrationServiceDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  companies: Pick<CompanyService, 'findCompanyIdByIntegrationKey'>;
  jobs: JobQueue;
  config: Config['integration'];
  /** How sales.created events are batched (see sale-batcher.ts). */
  saleBatch: SaleBatchOptions;
}

export type IntegrationService = ReturnType<typeof createIntegrationService>;

export function createIntegrationService({ db, clock, logger, companies, jobs, config, saleBatch }: IntegrationServiceDeps) {
  const log = logger.child({ module: 'integration' });
  const saleBatcher = createSaleBatcher(db, log, saleBatch);
  const keys = createKeyCache({
    lookup: (key) => companies.findCompanyIdByIntegrationKey(key),
    ttlMs: config.keyCacheTtlMs,
    maxEntries: KEY_CACHE_MAX_ENTRIES,
    nowMs: () => clock.now().getTime(),
  });

  /** The company of an integration key (cached for a few seconds), or null. */
  function authenticate(key: string): Promise<number | null> {
    return keys.resolve(key);
  }

  /**
   * Receives one event, checking in the order of DESIGN §4: signature, x-sent-at, JSON, event,
   * data; then stores it and applies it in one transaction. Only accepted events are stored.
   */
  async function ingest(input: IngestInput): Promise<IngestResult> {
    const signatureValid = verifySignature(input.signature, input.rawBody, input.integrationKey);
    checkSentAt(input.sentAt, clock.now());
    const senderKey = checkIdempotencyKey(input.idempotencyKey);
    // JSON is UTF-8 (RFC 8259 §8.1): other bytes would be stored as U+FFFD, not as what was sent.
    if (!isUtf8(input.rawBody)) throw notUtf8();
    // A byte order mark is ignored (RFC 8259 §8.1), and not stored: PostgreSQL's json refuses it.
    const text = input.rawBody.toString('utf8').replace(/^\uFEFF/, '');
    const valid = validateEnvelope(parseJson(text), input.companyId, clock.now(), text);
    const bodySha256 = createHash('sha256').update(input.rawBody).digest('hex');

    const body = { text, bodySha256, signatureValid, senderKey };
    if (valid.event === 'sales.created') {
      // The fast path: stored and applied in a statement shared with other sales arriving at the
      // same time. A refused sale, or a batch that failed as a whole, takes the path below, which
      // gives the exact answer (idempotency first, then the rule's 422).
      const event = inboundEvent(input.companyId, valid, body);
      let outcome: BatchedSaleOutcome;
      try {
        outcome = await saleBatcher.submit(input.companyId, valid.data, event, clock.now());
      } catch (err) {
        throw withDataPaths(err, EVENT_ENTITY[valid.event]);
      }
      if (outcome === 'created') return { eventId: event.id, idempotent: false, bodyMismatch: false, effect: 'created' };
      if (outcome === 'duplicate') return duplicate(db.orm, event);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await applyOnce(input.companyId, valid, body);
      } catch (err) {
        if (attempt >= MAX_ATTEMPTS || !(isUniqueViolation(err) || isSerializationFailure(err))) throw err;
        log.debug({ err, attempt }, 'inbound event transaction lost a race; running it again');
      }
    }
  }

  /** Stores the event and applies it in one transaction; a duplicate is answered, not applied. */
  async function applyOnce(companyId: number, valid: ValidEvent, body: EventBody): Promise<IngestResult> {
    const event = inboundEvent(companyId, valid, body);
    return db.orm.transaction(async (tx) => {
      if (!(await insertInboundEvent(tx, event))) return duplicate(tx, event);
      const effect = await applyEvent(tx, companyId, valid, { causedBy: event.id, now: clock.now() });
      return { eventId: event.id, idempotent: false, bodyMismatch: false, effect };
    });
  }

  /** The answer to a duplicate: the stored event (committed by the time the conflict is reported). */
  async function duplicate(conn: Conn, event: NewInboundEvent): Promise<IngestResult> {
    const { companyId, idempotencyKey, bodySha256 } = event;
    const prior = await findByIdempotencyKey(conn, companyId, event.event, idempotencyKey);
    const bodyMismatch = prior !== null && prior.bodySha256 !== bodySha256;
    if (bodyMismatch) {
      log.warn(
        { companyId, event: event.event, idempotencyKey, storedEventId: prior.id },
        'idempotency key reused with a different body; answered as a duplicate and not applied',
      );
    }
    return { eventId: prior?.id ?? event.id, idempotent: true, bodyMismatch, effect: null };
  }

  /** Runs the event's handler in the transaction that stored the event. */
  async function applyEvent(tx: Conn, companyId: number, valid: ValidEvent, options: LedgerOptions): Promise<Effect> {
    // The union of handlers cannot be called with the union of events without a cast: the pair always matches.
    const handler = EVENT_HANDLERS[valid.event] as (
      tx: Conn,
      companyId: number,
      data: unknown,
      o: LedgerOptions,
    ) => Promise<Effect>;
    try {
      return await handler(tx, companyId, valid.data, options);
    } catch (err) {
      throw withDataPaths(err, EVENT_ENTITY[valid.event]);
    }
  }

  /**
   * A page of stored events for polling, as the JSON text of the response; `limit` above the
   * maximum is clamped and reported. Each payload is the stored text of the envelope, spliced in
   * as it is: never parsed or serialized again, so it comes back exactly as received (numbers
   * beyond double precision included) and no stored row can make the page fail.
   */
  async function poll(companyId: number, query: { limit?: number | undefined; since?: string | undefined }): Promise<string> {
    const limit = Math.min(query.limit ?? POLL_DEFAULT_LIMIT, POLL_MAX_LIMIT);
    const since = query.since === undefined ? null : normalizeSince(query.since);
    const rows = await listInboundEvents(db.orm, companyId, { since, limit: limit + 1 });
    const events = rows.slice(0, limit);
    const meta = {
      limit,
      since: query.since ?? null,
      has_more: rows.length > limit,
      next_since: events.at(-1)?.received_at ?? since,
    };
    return `{"events":[${events.map(storedEventJson).join(',')}],"meta":${JSON.stringify(meta)}}`;
  }

  /** Deletes events older than the retention window (which is also the idempotency window). */
  async function purgeExpired(): Promise<number> {
    const before = new Date(clock.now().getTime() - config.retentionDays * DAY_MS);
    const deleted = await purgeInboundEvents(db.orm, before);
    if (deleted > 0) log.info({ deleted, before: before.toISOString() }, 'expired inbound events deleted');
    return deleted;
  }

  jobs.define({ name: PURGE_JOB, schedule: '17 4 * * *', handler: async () => void (await purgeExpired()) });

  return { authenticate, ingest, poll, purgeExpired };
}

/** One stored event as JSON, in the documented key order, its payload the stored text. */
function storedEventJson({ id, received_at, event, idempotency_key, payload, signature_valid }: StoredInboundEvent): string {
  const head = JSON.stringify({ id, received_at, event, idempotency_key });
  return `${head.slice(0, -1)},"payload":${payload},"signature_valid":${signature_valid === true}}`;
}

interface EventBody {
  text: string;
  bodySha256: string;
  signatureValid: boolean;
  senderKey: string | null;
}

/** The row that stores an accepted event, under a new id. */
function inboundEvent(companyId: number, valid: ValidEvent, body: EventBody): NewInboundEvent {
  const id = randomUUID();
  return {
    id,
    companyId,
    event: valid.event,
    idempotencyKey: body.senderKey ?? id,
    payloadText: body.text,
    bodySha256: body.bodySha256,
    signatureValid: body.signatureValid,
  };
}

function parseJson(text: string): unknown {
  try {
    // `__proto__` and `constructor.prototype` keys are valid JSON: they are dropped from the
    // parsed value (never reaching an object's prototype) and kept in the stored text.
    return secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch (err) {
    const reason = err instanceof SyntaxError ? `: ${err.message}` : '';
    throw new AppError('invalid_json', `request body is not valid JSON${reason}`);
  }
}

/**
 * `since` as PostgreSQL should compare it. Digits beyond microseconds are cut, not rounded:
 * rounding up could hide an event stamped in that last microsecond.
 */
function normalizeSince(value: string): string {
  if (!parseRfc3339(value)) {
    throw new AppError('bad_request', `since must be an RFC 3339 date-time with offset (got "${value.slice(0, 64)}")`, {
      details: [{ path: '/since', message: 'must be an RFC 3339 date-time with offset' }],
    });
  }
  return value.replace(/(\.\d{6})\d+/, '$1');
}

/** Domain errors name fields from the record (`name`) or the entity (`sale.status`); point them into `data`. */
function withDataPaths(err: unknown, entity: string): unknown {
  if (!isAppError(err) || !err.details) return err;
  const details = err.details.map((d) => {
    if (d.path.startsWith('data.')) return d;
    return { ...d, path: d.path.startsWith(`${entity}.`) ? `data.${d.path}` : `data.${entity}.${d.path}` };
  });
  return new AppError(err.code, err.message, { details, cause: err.cause, ...(err.headers ? { headers: err.headers } : {}) });
}
