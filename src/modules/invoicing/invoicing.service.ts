import type { Database } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/pg-errors.ts';
import { withSerialLock } from '../../db/serial-lock.ts';
import type { ArcaMessage, InvoiceKind } from '../../db/schema/index.ts';
import { type CompanyCtx, cliCtx, type RequestCtx } from '../../http/request-context.ts';
import { arcaHint } from '../../lib/arca-codes.ts';
import { AppError } from '../../lib/errors.ts';
import { toCents } from '../../lib/money.ts';
import { type Clock, sleep } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import { ArcaServiceError, ArcaTransportError } from '../arca/errors.ts';
import type { CaeaDraft, CaeaService } from './caea.service.ts';
import { arcaDate } from '../arca/time.ts';
import type { CaeRequest, CaeResponse, WsfeAuth } from '../arca/wsfe.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { formatReceiptNumber, invoiceToWire } from './invoices.ts';
import type { ArcaAccess, ArcaSession } from './arca-access.ts';
import {
  type Buyer,
  type BuyerInput,
  chooseLetter,
  computeAmounts,
  DOC_TYPE_NAMES,
  isoDate,
  IVA_IDS,
  type Letter,
  qrUrl,
  RECEIPT_CODES,
  RECEIVER_CONDITIONS,
  receiptTypeName,
  resolveBuyer,
} from './fiscal-rules.ts';
import { buyerOfCustomer, type FindCustomer, printedAddress } from './customer-buyer.ts';
import type { FiscalReady, FiscalService } from './fiscal.service.ts';
import { explainTransport } from './fiscal.service.ts';
import * as repo from './invoicing.repo.ts';

/** A whole invoice's amounts, as its credit note repeats them. */
function wholeInvoiceAmounts(invoice: repo.IssuedInvoiceRow) {
  return {
    total: invoice.total,
    net: invoice.net ?? invoice.total,
    iva: invoice.iva ?? '0.00',
    exempt: invoice.exempt ?? '0.00',
    untaxed: '0.00',
    ivaLines: invoice.ivaLines ?? [],
  };
}

/** What is about to be authorised: everything but the number. */
interface Draft {
  kind: InvoiceKind;
  saleId: number;
  letter: Letter;
  receiptCode: number;
  pointOfSale: number;
  buyer: Buyer;
  amounts: ReturnType<typeof computeAmounts>;
  date: string;
  /** The customer the receipt is issued to, and its address as printed (0150). */
  customerId: number | null;
  receiverAddress: string | null;
  associated: { invoiceId: number; type: number; pointOfSale: number; number: number; cuit: string; date: string } | null;
  /** A credit note's return (null: an invoice, or the whole sale's credit note). */
  returnId: number | null;
}

export interface IssueResult {
  invoice: InvoiceDetail;
  /** False when the sale already had this receipt (a repeated request). */
  created: boolean;
}

export type InvoiceDetail = ReturnType<typeof invoiceDetail>;

const ID_RATE = new Map(Object.entries(IVA_IDS).map(([rate, v]) => [v.id, rate]));

/** The API's view of an issued receipt: the contract's fields plus the fiscal ones. */
export function invoiceDetail(row: repo.IssuedInvoiceRow) {
  const arca = row.source === 'arca' && row.issueDate !== null && row.receiptCode !== null;
  return {
    ...invoiceToWire(row),
    source: row.source,
    kind: row.kind,
    receipt: formatReceiptNumber(row.type, row.pointOfSale, row.number),
    receipt_code: row.receiptCode,
    issue_date: row.issueDate,
    environment: row.environment,
    issuer_cuit: row.issuerCuit,
    buyer:
      row.docType === null
        ? null
        : {
            doc_type: row.docType,
            doc_type_name: DOC_TYPE_NAMES[row.docType] ?? String(row.docType),
            doc_number: row.docNumber,
            iva_condition: row.receiverIvaCondition,
            iva_condition_name:
              row.receiverIvaCondition === null ? null : (RECEIVER_CONDITIONS[row.receiverIvaCondition] ?? null),
            name: row.receiverName,
            address: row.receiverAddress,
          },
    customer_id: row.customerId,
    net: row.net === null ? null : Number(row.net),
    iva: row.iva === null ? null : Number(row.iva),
    exempt: row.exempt === null ? null : Number(row.exempt),
    iva_lines: (row.ivaLines ?? []).map((l) => ({ id: l.id, rate: l.rate, base: Number(l.base), amount: Number(l.amount) })),
    associated_invoice_id: row.associatedInvoiceId,
    observations: row.observations ?? [],
    emission: row.emission,
    caea:
      row.emission === 'caea'
        ? {
            code: row.cae,
            valid_to: isoValidTo(row.caeExpiration),
            generated_at: row.generatedAt,
            inform_by: row.informBy,
            inform_status: row.informStatus,
            informed_at: row.informedAt?.toISOString() ?? null,
          }
        : null,
    qr_url: arca
      ? qrUrl({
          date: row.issueDate!,
          cuit: row.issuerCuit!,
          pointOfSale: row.pointOfSale,
          code: row.receiptCode!,
          number: row.number,
          total: row.total,
          docType: row.docType!,
          docNumber: row.docNumber!,
          cae: row.cae,
          codeKind: row.emission === 'caea' ? 'A' : 'E',
        })
      : null,
    print_url: `/facturas/${row.id}`,
  };
}

/** The vigencia's last day (the CAEA's FchVigHasta) as yyyy-mm-dd in Argentina. */
const isoValidTo = (at: Date) => new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);

/** A CAE failure that means "ARCA cannot be had now" (CAEA contingency applies), not "ARCA said no". */
function isOutage(err: unknown): boolean {
  if (err instanceof ContingencyNow) return true;
  if (!(err instanceof AppError)) return false;
  if (err.code === 'upstream_timeout' || err.code === 'unavailable') return true;
  const cause = err.cause;
  return err.code === 'upstream_failed' && cause instanceof ArcaServiceError && cause.code >= 500 && cause.code < 600;
}

/** Thrown inside a series lock when the company went to contingency while this request waited. */
class ContingencyNow extends Error {}

const withHints = (messages: ArcaMessage[]) => messages.map((m) => ({ ...m, hint: arcaHint(m.code, m.message) }));

export function attemptWire(row: repo.AttemptRow) {
  return {
    id: row.id,
    sale_id: row.saleId,
    kind: row.kind,
    receipt: formatReceiptNumber(receiptTypeName(row.letter, row.kind), row.pointOfSale, row.number),
    point_of_sale: row.pointOfSale,
    number: row.number,
    status: row.status,
    errors: withHints(row.errors),
    observations: withHints(row.observations),
    tries: row.tries,
    last_error: row.lastError,
    invoice_id: row.invoiceId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The WSFEv1 request of a draft with its number, exactly as stored and (re)sent. */
function caeRequest(draft: Draft, number: number): CaeRequest {
  const { amounts } = draft;
  return {
    pointOfSale: draft.pointOfSale,
    type: draft.receiptCode,
    concept: 1,
    docType: draft.buyer.docType,
    docNumber: draft.buyer.docNumber,
    number,
    date: draft.date,
    total: amounts.total,
    untaxed: amounts.untaxed,
    net: amounts.net,
    exempt: amounts.exempt,
    otherTaxes: '0.00',
    iva: amounts.iva,
    currency: 'PES',
    currencyRate: '1',
    receiverIvaConditionId: draft.buyer.ivaCondition,
    ...(draft.associated
      ? {
          associated: [
            {
              type: draft.associated.type,
              pointOfSale: draft.associated.pointOfSale,
              number: draft.associated.number,
              cuit: draft.associated.cuit,
              date: draft.associated.date,
            },
          ],
        }
      : {}),
    ivaLines: amounts.ivaLines.map((l) => ({ id: l.id, base: l.base, amount: l.amount })),
  };
}

const sameAmount = (a: string, b: string) => Math.abs(toCents(a) - toCents(b)) <= 1;

/** A CAE of ARCA's (FECompConsultar) is ours when it has our total, document and date. */
function isOurs(found: { total: string; docType: number; docNumber: string; date: string }, request: CaeRequest): boolean {
  return (
    sameAmount(found.total, request.total) &&
    found.docType === request.docType &&
    Number(found.docNumber) === Number(request.docNumber) &&
    found.date === request.date
  );
}

/** A numbering 10016 comes in Errors; a date 10016 comes as an observation of a rejected receipt. */
const NUMBERING = 10016;
/** Infrastructure answers after which the receipt's fate is unknown: ask ARCA before anything else. */
const UNKNOWN_FATE = new Set([500, 501, 502]);

export type InvoicingService = ReturnType<typeof createInvoicingService>;

/**
 * Issuing receipts with ARCA. One request at a time per series (CUIT, environment, point of sale,
 * type) across processes; the number is reserved as a pending attempt in its own committed
 * transaction before the request leaves; a lost answer is settled with FECompUltimoAutorizado and
 * FECompConsultar before any other number of the series is taken (docs/facturacion.md).
 */
export function createInvoicingService({
  db,
  clock,
  logger,
  fiscal,
  arca,
  findCustomer,
  caea,
}: {
  db: Database;
  clock: Clock;
  logger: Logger;
  fiscal: FiscalService;
  arca: ArcaAccess;
  findCustomer: FindCustomer;
  caea: CaeaService;
}) {
  const { orm } = db;

  async function openSession(setup: FiscalReady): Promise<{ session: ArcaSession; auth: WsfeAuth }> {
    const session = await arca.session(setup.credentials);
    try {
      return { session, auth: await session.auth() };
    } catch (err) {
      if (err instanceof ArcaTransportError) {
        throw new AppError('upstream_timeout', `ARCA login did not answer: ${explainTransport(err, 'WSAA')}`, { cause: err });
      }
      if (err instanceof Error && err.name === 'ArcaTicketUnavailableError') {
        throw new AppError('unavailable', err.message, { cause: err });
      }
      throw new AppError('upstream_failed', `ARCA login failed: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  }

  async function approve(
    ctx: RequestCtx,
    attempt: repo.AttemptRow,
    granted: { cae: string; caeExpiry: string; observations: ArcaMessage[] },
  ): Promise<repo.IssuedInvoiceRow> {
    return orm.transaction(async (tx) => {
      const current = await repo.lockAttempt(tx, attempt.companyId, attempt.id);
      if (current?.status === 'approved' && current.invoiceId)
        return (await repo.findInvoice(tx, attempt.companyId, current.invoiceId))!;
      const request = attempt.request as unknown as CaeRequest;
      const now = clock.now();
      const invoice = await repo.insertIssuedInvoice(tx, {
        companyId: attempt.companyId,
        saleId: attempt.saleId,
        type: receiptTypeName(attempt.letter, attempt.kind),
        pointOfSale: attempt.pointOfSale,
        number: attempt.number,
        cae: granted.cae,
        caeExpiration: new Date(`${isoDate(granted.caeExpiry)}T23:59:59-03:00`),
        total: request.total,
        issuedAt: now,
        source: 'arca',
        kind: attempt.kind,
        receiptCode: attempt.receiptCode,
        issueDate: isoDate(request.date),
        docType: request.docType,
        docNumber: request.docNumber,
        receiverIvaCondition: request.receiverIvaConditionId ?? null,
        receiverName: attempt.receiverName,
        customerId: attempt.customerId,
        receiverAddress: attempt.receiverAddress,
        net: request.net,
        iva: request.iva,
        exempt: request.exempt,
        ivaLines: request.ivaLines.map((l) => ({ id: l.id, rate: ID_RATE.get(l.id) ?? '', base: l.base, amount: l.amount })),
        environment: attempt.environment,
        issuerCuit: attempt.issuerCuit,
        associatedInvoiceId: attempt.associatedInvoiceId,
        returnId: attempt.returnId,
        observations: granted.observations,
      });
      await repo.updateAttempt(
        tx,
        attempt.companyId,
        attempt.id,
        { status: 'approved', invoiceId: invoice.id, observations: granted.observations },
        now,
      );
      await recordOutbound(tx, {
        companyId: attempt.companyId,
        event: 'invoice.issued',
        data: { invoice: invoiceToWire(invoice) },
        causedBy: null,
      });
      await recordAudit(tx, {
        action: 'invoice.issued',
        ...auditBy(ctx),
        companyId: attempt.companyId,
        details: {
          invoice_id: invoice.id,
          sale_id: attempt.saleId,
          receipt: formatReceiptNumber(invoice.type, invoice.pointOfSale, invoice.number),
          cae: granted.cae,
        },
      });
      if (attempt.supersededBy) {
        // ARCA granted the CAE after all, and the sale also has its CAEA receipt: both are real
        // fiscal receipts; the owner cancels one with a credit note (docs/facturacion.md).
        await recordAudit(tx, {
          action: 'invoice.contingency_duplicate',
          ...auditBy(ctx),
          companyId: attempt.companyId,
          details: { invoice_id: invoice.id, caea_invoice_id: attempt.supersededBy, sale_id: attempt.saleId },
        });
      }
      return invoice;
    });
  }

  async function reject(ctx: RequestCtx, attempt: repo.AttemptRow, response: CaeResponse): Promise<never> {
    const row = await orm.transaction(async (tx) => {
      const updated = await repo.updateAttempt(
        tx,
        attempt.companyId,
        attempt.id,
        { status: 'rejected', errors: response.errors, observations: response.observations },
        clock.now(),
      );
      await recordAudit(tx, {
        action: 'invoice.rejected',
        ...auditBy(ctx),
        companyId: attempt.companyId,
        details: {
          sale_id: attempt.saleId,
          attempt_id: attempt.id,
          errors: response.errors,
          observations: response.observations,
        },
      });
      return updated;
    });
    const messages = [...response.errors, ...response.observations];
    throw new AppError(
      'arca_rejected',
      `ARCA rejected the receipt: ${messages.map((m) => `${m.code} ${m.message}`).join('; ') || 'no reason given'}`,
      {
        details: messages.map((m) => ({ path: `/arca/${m.code}`, message: arcaHint(m.code, m.message) })),
        headers: { 'x-invoice-attempt': String(row.id) },
      },
    );
  }

  async function noteTry(attempt: repo.AttemptRow, error: string): Promise<repo.AttemptRow> {
    return repo.updateAttempt(
      orm,
      attempt.companyId,
      attempt.id,
      { tries: attempt.tries + 1, lastError: error.slice(0, 500) },
      clock.now(),
    );
  }

  /**
   * Takes a pending attempt to approved or rejected, or leaves it pending and throws when ARCA
   * cannot be reached. `send` first sends the stored request; otherwise ARCA is asked first what
   * became of it. Only here is a number ever re-sent or moved.
   */
  async function drive(
    ctx: RequestCtx,
    session: ArcaSession,
    auth: WsfeAuth,
    start: repo.AttemptRow,
    send: boolean,
  ): Promise<repo.IssuedInvoiceRow> {
    let attempt = start;
    let sendNow = send;
    const pauses = arca.recoveryPausesMs;
    // Someone is waiting at the counter: give up (the receipt stays pending) after about two calls'
    // time and the pauses (2 × 20 s + 6 s by default).
    const deadline = clock.now().getTime() + 2 * arca.timeoutMs + pauses.reduce((sum, ms) => sum + ms, 0) + 500;
    for (let round = 0; round <= pauses.length; round++) {
      if (round > 0 && clock.now().getTime() > deadline) break;
      if (sendNow && attempt.supersededBy) {
        // ARCA never took it, and the sale has its CAEA receipt: the number goes back, unsent.
        await repo.updateAttempt(
          orm,
          attempt.companyId,
          attempt.id,
          { status: 'rejected', lastError: `superseded by CAEA receipt (invoice ${attempt.supersededBy})` },
          clock.now(),
        );
        return (await repo.findInvoice(orm, attempt.companyId, attempt.supersededBy))!;
      }
      if (sendNow) {
        const request = attempt.request as unknown as CaeRequest;
        try {
          const response = await session.wsfe.requestCae(auth, request);
          if (response.result === 'A' && response.cae && response.caeExpiry) {
            return await approve(ctx, attempt, {
              cae: response.cae,
              caeExpiry: response.caeExpiry,
              observations: response.observations,
            });
          }
          const codes = response.errors.map((e) => e.code);
          if (codes.some((c) => UNKNOWN_FATE.has(c))) {
            attempt = await noteTry(attempt, `ARCA ${response.errors.map((e) => `${e.code} ${e.message}`).join('; ')}`);
          } else if (codes.includes(NUMBERING)) {
            // The number is not ARCA's next: ours may have been granted on an answer we lost, or
            // another system used it. Asking tells which.
            attempt = await noteTry(attempt, `ARCA ${NUMBERING}: number ${attempt.number} is not the next one`);
          } else {
            return await reject(ctx, attempt, response);
          }
        } catch (err) {
          if (!(err instanceof ArcaTransportError)) throw err;
          attempt = await noteTry(attempt, `${err.kind}: ${err.message}`);
          logger.warn(
            { companyId: attempt.companyId, attempt: attempt.id, kind: err.kind },
            'ARCA answer lost; asking what became of the receipt',
          );
        }
        const pause = pauses[round];
        if (pause === undefined) break;
        await sleep(pause);
      }
      let last: number;
      try {
        last = await session.wsfe.lastAuthorized(auth, { pointOfSale: attempt.pointOfSale, type: attempt.receiptCode });
      } catch (err) {
        if (!(err instanceof ArcaTransportError)) throw err;
        attempt = await noteTry(attempt, `${err.kind}: ${err.message}`);
        sendNow = false;
        const pause = pauses[round];
        if (pause === undefined) break;
        await sleep(pause);
        continue;
      }
      if (last >= attempt.number) {
        const found = await session.wsfe.consult(auth, {
          pointOfSale: attempt.pointOfSale,
          type: attempt.receiptCode,
          number: attempt.number,
        });
        if (found?.cae && isOurs(found, attempt.request as unknown as CaeRequest)) {
          return await approve(ctx, attempt, { cae: found.cae, caeExpiry: found.caeExpiry, observations: [] });
        }
        // Someone else (another system on this point of sale) took the number: ours is the next.
        attempt = await renumber(attempt, last + 1);
      } else if (last < attempt.number - 1) {
        // ARCA's series is behind our reservation (nothing of ours there): take its next number.
        attempt = await renumber(attempt, last + 1);
      }
      sendNow = true;
    }
    throw new AppError(
      'upstream_timeout',
      `ARCA did not confirm receipt ${formatReceiptNumber(receiptTypeName(attempt.letter, attempt.kind), attempt.pointOfSale, attempt.number)}; it stays pending and is settled with ARCA before the next number of its series`,
      { headers: { 'x-invoice-attempt': String(attempt.id) } },
    );
  }

  async function renumber(attempt: repo.AttemptRow, number: number): Promise<repo.AttemptRow> {
    const request = { ...(attempt.request as unknown as CaeRequest), number };
    logger.warn(
      { companyId: attempt.companyId, attempt: attempt.id, from: attempt.number, to: number },
      'receipt number moved to ARCA next',
    );
    return repo.updateAttempt(
      orm,
      attempt.companyId,
      attempt.id,
      { number, request: request as unknown as Record<string, unknown> },
      clock.now(),
    );
  }

  /** Settles the series' pending attempt if any (under the series lock). */
  async function settlePending(ctx: RequestCtx, session: ArcaSession, auth: WsfeAuth, series: repo.Series) {
    const pending = await repo.pendingOfSeries(orm, series);
    if (pending) await drive(ctx, session, auth, pending, false);
  }

  /**
   * Issues a receipt: with a CAE, or, when ARCA cannot be had and the company has CAEA on, under
   * the fortnight's CAEA on the CAEA point of sale (the cashier sees a valid receipt either way).
   * Invoices and credit notes both come through here.
   */
  async function authorize(ctx: CompanyCtx, setup: FiscalReady, input: Draft): Promise<IssueResult> {
    const caeaOn = setup.caea.enabled && setup.caea.pointOfSale !== null;
    // The credit note of a CAEA receipt asks its CAE on the company's CAE point of sale.
    const draft =
      input.pointOfSale === setup.caea.pointOfSale
        ? { ...input, pointOfSale: setup.defaultPointOfSale ?? setup.pointsOfSale[0] ?? input.pointOfSale }
        : input;
    if (caeaOn) {
      const already = await issuedOfSale(ctx.companyId, draft.saleId, draft.kind, draft.returnId);
      if (already) return { invoice: invoiceDetail(already), created: false };
    }
    if (caeaOn && caea.inContingency(ctx.companyId)) {
      const issued = await contingency(ctx, setup, draft, null);
      if (issued) return issued;
    }
    if (draft.associated) {
      // ARCA checks a credit note's associated receipt exists (10041): a CAEA one must be informed first.
      const associated = await repo.findInvoice(orm, ctx.companyId, draft.associated.invoiceId);
      if (associated?.emission === 'caea' && associated.informStatus !== 'informed') {
        await caea.informAll(ctx.companyId).catch(() => undefined);
      }
    }
    try {
      return await authorizeWithCae(ctx, setup, draft, caeaOn);
    } catch (err) {
      if (!caeaOn || !isOutage(err)) throw err;
      caea.enterContingency(ctx.companyId);
      // The CAE attempt of this very receipt (a return's credit note is one per return): superseded,
      // it is settled by asking ARCA and never sent again.
      const pending = await repo.liveAttempt(orm, ctx.companyId, draft.saleId, draft.kind, draft.returnId);
      const issued = await contingency(ctx, setup, draft, pending?.status === 'pending' ? pending.id : null);
      if (!issued)
        throw err instanceof ContingencyNow
          ? new AppError('caea_unavailable', 'ARCA cannot be reached and there is no CAEA for today')
          : err;
      logger.warn({ companyId: ctx.companyId, sale: draft.saleId }, 'ARCA unreachable: receipt issued under CAEA');
      return issued;
    }
  }

  async function contingency(
    ctx: CompanyCtx,
    setup: FiscalReady,
    draft: Draft,
    supersedes: number | null,
  ): Promise<IssueResult | null> {
    const row = await caea.issue(ctx, setup, caeaDraftOf(draft), supersedes);
    return row ? { invoice: invoiceDetail(row), created: true } : null;
  }

  async function authorizeWithCae(ctx: CompanyCtx, setup: FiscalReady, draft: Draft, caeaOn: boolean): Promise<IssueResult> {
    const series: repo.Series = {
      issuerCuit: setup.cuit,
      environment: setup.environment,
      pointOfSale: draft.pointOfSale,
      receiptCode: draft.receiptCode,
    };
    return withSerialLock(db, repo.seriesKey(series), async () => {
      if (caeaOn && caea.inContingency(ctx.companyId)) throw new ContingencyNow();
      const { session, auth } = await openSession(setup);
      await settlePending(ctx, session, auth, series);
      const issued = await issuedOfSale(ctx.companyId, draft.saleId, draft.kind, draft.returnId);
      if (issued) return { invoice: invoiceDetail(issued), created: false };
      const live = await repo.liveAttempt(orm, ctx.companyId, draft.saleId, draft.kind, draft.returnId);
      if (live?.status === 'pending') {
        throw new AppError(
          'conflict',
          `sale ${draft.saleId} has receipt attempt ${live.id} pending on point of sale ${live.pointOfSale}`,
        );
      }
      let last: number;
      try {
        last = await session.wsfe.lastAuthorized(auth, { pointOfSale: draft.pointOfSale, type: draft.receiptCode });
      } catch (err) {
        if (err instanceof ArcaTransportError) {
          throw new AppError('upstream_timeout', explainTransport(err, 'FECompUltimoAutorizado'), { cause: err });
        }
        throw new AppError('upstream_failed', `ARCA: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      const ours = await repo.lastApprovedNumber(orm, series);
      if (ours > last) {
        throw new AppError(
          'conflict',
          `ARCA's last authorised receipt of this series is ${last}, but this service already holds ${ours}: is the environment (${setup.environment}) right?`,
        );
      }
      let attempt: repo.AttemptRow;
      try {
        attempt = await orm.transaction((tx) =>
          repo.insertAttempt(
            tx,
            {
              companyId: ctx.companyId,
              saleId: draft.saleId,
              kind: draft.kind,
              letter: draft.letter,
              receiptCode: draft.receiptCode,
              issuerCuit: setup.cuit,
              environment: setup.environment,
              pointOfSale: draft.pointOfSale,
              number: last + 1,
              status: 'pending',
              request: caeRequest(draft, last + 1) as unknown as Record<string, unknown>,
              receiverName: draft.buyer.name,
              customerId: draft.customerId,
              receiverAddress: draft.receiverAddress,
              associatedInvoiceId: draft.associated?.invoiceId ?? null,
              returnId: draft.returnId,
              createdBy: auditBy(ctx).actor?.email ?? 'cli',
            },
            clock.now(),
          ),
        );
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw new AppError('conflict', `sale ${draft.saleId} is being invoiced by another request`, { cause: err });
        }
        throw err;
      }
      const invoice = await drive(ctx, session, auth, attempt, true);
      return { invoice: invoiceDetail(invoice), created: true };
    });
  }

  /**
   * The sale's receipt of this kind if it has one: approved here (the approval writes the invoice row
   * with the attempt) or received already issued through invoice.issued from another system.
   */
  async function issuedOfSale(companyId: number, saleId: number, kind: InvoiceKind, returnId: number | null = null) {
    return (
      (await repo.invoicesOfSale(orm, companyId, saleId)).find(
        (i) => i.kind === kind && (kind === 'invoice' || (i.returnId ?? null) === returnId),
      ) ?? null
    );
  }

  /**
   * A credit note of `invoice` for `amounts` (the whole invoice's, or a return's lines): same
   * class and point of sale, the invoice's buyer, CbtesAsoc naming it.
   */
  async function creditInvoice(
    ctx: CompanyCtx,
    invoice: repo.IssuedInvoiceRow,
    amounts: Draft['amounts'],
    returnId: number | null,
  ): Promise<IssueResult> {
    if (invoice.source !== 'arca' || invoice.kind !== 'invoice' || !invoice.receiptCode || !invoice.issueDate) {
      throw new AppError('invalid_state', `invoice ${invoice.id} was not issued here; its credit note is issued where it was`);
    }
    const issued = await issuedOfSale(ctx.companyId, invoice.saleId, 'credit_note', returnId);
    if (issued) return { invoice: invoiceDetail(issued), created: false };
    const setup = await fiscal.ready(ctx.companyId);
    if (setup.cuit !== invoice.issuerCuit || setup.environment !== invoice.environment) {
      throw new AppError(
        'invalid_state',
        `invoice ${invoice.id} was issued by CUIT ${invoice.issuerCuit} in ${invoice.environment}; the company now is set up differently`,
      );
    }
    const letter = invoice.type.slice(-1) as Letter;
    return authorize(ctx, setup, {
      kind: 'credit_note',
      saleId: invoice.saleId,
      letter,
      receiptCode: RECEIPT_CODES[letter].credit_note,
      pointOfSale: invoice.pointOfSale,
      buyer: {
        docType: invoice.docType ?? 99,
        docNumber: invoice.docNumber ?? '0',
        ivaCondition: invoice.receiverIvaCondition ?? 5,
        name: invoice.receiverName,
      },
      amounts,
      date: arcaDate(clock.now()),
      customerId: invoice.customerId,
      receiverAddress: invoice.receiverAddress,
      associated: {
        invoiceId: invoice.id,
        type: invoice.receiptCode,
        pointOfSale: invoice.pointOfSale,
        number: invoice.number,
        cuit: invoice.issuerCuit!,
        date: invoice.issueDate.replaceAll('-', ''),
      },
      returnId,
    });
  }

  /** The sale's invoice issued here, if any (what a refund's credit note credits). */
  async function ownInvoiceOfSale(companyId: number, saleId: number) {
    return (await repo.invoicesOfSale(orm, companyId, saleId)).find((i) => i.kind === 'invoice' && i.source === 'arca') ?? null;
  }

  /**
   * The credit note a refund owes: a return's (its lines and amounts) or, for a sale cancelled
   * whole without returns, the whole invoice's. Null when the sale has no invoice issued here.
   */
  async function creditRefund(ctx: CompanyCtx, saleId: number, returnId: number | null): Promise<IssueResult | null> {
    const invoice = await ownInvoiceOfSale(ctx.companyId, saleId);
    if (!invoice) return null;
    if (returnId === null) {
      if (await repo.hasReturns(orm, ctx.companyId, saleId)) return null;
      return creditInvoice(ctx, invoice, wholeInvoiceAmounts(invoice), null);
    }
    const lines = await repo.returnLines(orm, ctx.companyId, saleId, returnId);
    if (lines.length === 0) throw new AppError('not_found', `return ${returnId} of sale ${saleId} not found`);
    const letter = invoice.type.slice(-1) as Letter;
    const amounts = computeAmounts(
      letter,
      lines.map((l) => ({ ivaRate: l.iva_rate, subtotalCents: toCents(l.amount) })),
    );
    return creditInvoice(ctx, invoice, amounts, returnId);
  }

  /** The customer a receipt is issued to (`customer_id`), this company's only; never together with `buyer`. */
  async function customerOf(companyId: number, input: { buyer?: unknown; customer_id?: number | undefined }) {
    if (input.customer_id === undefined) return null;
    if (input.buyer !== undefined) {
      throw new AppError('validation_failed', 'send either customer_id or buyer, not both', {
        details: [{ path: '/buyer', message: 'not with customer_id' }],
      });
    }
    const customer = await findCustomer(companyId, input.customer_id);
    if (!customer) throw new AppError('not_found', `customer ${input.customer_id} not found`);
    return customer;
  }

  async function loadSale(companyId: number, saleId: number) {
    const sale = await repo.saleForInvoice(orm, companyId, saleId);
    if (!sale) throw new AppError('not_found', `sale ${saleId} not found`);
    return sale;
  }

  /** The sale's invoice as it would be authorised (everything but the number), or the receipt it already has. */
  async function invoiceDraft(
    ctx: CompanyCtx,
    saleId: number,
    input: { buyer?: BuyerInput | undefined; customer_id?: number | undefined; point_of_sale?: number | undefined },
    options: { checkPointOfSale: boolean },
  ): Promise<{ issued: repo.IssuedInvoiceRow } | { setup: FiscalReady; draft: Draft }> {
    const sale = await loadSale(ctx.companyId, saleId);
    const issued = await issuedOfSale(ctx.companyId, saleId, 'invoice');
    if (issued) return { issued };
    if (sale.status === 'cancelled') throw new AppError('invalid_state', `sale ${saleId} is cancelled; it cannot be invoiced`);
    const setup = await fiscal.ready(ctx.companyId);
    if (sale.items.length === 0) throw new AppError('invalid_state', `sale ${saleId} has no items to invoice`);
    const lines = sale.items.map((i) => ({ ivaRate: i.iva_rate, subtotalCents: toCents(i.subtotal) }));
    const totalCents = lines.reduce((sum, l) => sum + l.subtotalCents, 0);
    if (totalCents !== toCents(sale.total)) {
      throw new AppError(
        'invalid_state',
        `sale ${saleId} total ${sale.total} is not the sum of its items; it cannot be invoiced as it is`,
      );
    }
    if (totalCents <= 0) throw new AppError('invalid_state', `sale ${saleId} has no amount to invoice`);
    // Without customer_id or buyer, the receipt goes to the sale's own customer (as the screen
    // preselects it): a customer's sale is not a receipt to an unidentified buyer with their name.
    const customer =
      input.customer_id === undefined && input.buyer === undefined && sale.customer_id !== null
        ? await findCustomer(ctx.companyId, sale.customer_id)
        : await customerOf(ctx.companyId, input);
    const buyer = resolveBuyer(
      customer ? buyerOfCustomer(customer) : (input.buyer ?? (sale.customer_name ? { name: sale.customer_name } : undefined)),
      totalCents,
    );
    const letter = chooseLetter(setup.ivaCondition, buyer);
    const pointOfSale = input.point_of_sale ?? setup.defaultPointOfSale ?? setup.pointsOfSale[0]!;
    if (options.checkPointOfSale && !setup.pointsOfSale.includes(pointOfSale)) {
      throw new AppError(
        'validation_failed',
        `point of sale ${pointOfSale} is not one of the company's (${setup.pointsOfSale.join(', ')})`,
        {
          details: [{ path: '/point_of_sale', message: `one of ${setup.pointsOfSale.join(', ')}` }],
        },
      );
    }
    return {
      setup,
      draft: {
        kind: 'invoice',
        saleId,
        letter,
        receiptCode: RECEIPT_CODES[letter].invoice,
        pointOfSale,
        buyer,
        amounts: computeAmounts(letter, lines),
        date: arcaDate(clock.now()),
        customerId: customer?.id ?? null,
        receiverAddress: customer ? printedAddress(customer) : null,
        associated: null,
        returnId: null,
      },
    };
  }

  function caeaDraftOf(draft: Draft): CaeaDraft {
    const { pointOfSale: _p, number: _n, ...request } = caeRequest(draft, 0);
    return {
      saleId: draft.saleId,
      kind: draft.kind,
      letter: draft.letter,
      receiptCode: draft.receiptCode,
      request,
      receiverName: draft.buyer.name,
      customerId: draft.customerId,
      receiverAddress: draft.receiverAddress,
      associatedInvoiceId: draft.associated?.invoiceId ?? null,
      returnId: draft.returnId,
      ivaLines: request.ivaLines.map((l) => ({ id: l.id, rate: ID_RATE.get(l.id) ?? '', base: l.base, amount: l.amount })),
    };
  }

  return {
    async issue(
      ctx: CompanyCtx,
      saleId: number,
      input: { buyer?: BuyerInput | undefined; customer_id?: number | undefined; point_of_sale?: number | undefined },
    ): Promise<IssueResult> {
      const prepared = await invoiceDraft(ctx, saleId, input, { checkPointOfSale: true });
      if ('issued' in prepared) return { invoice: invoiceDetail(prepared.issued), created: false };
      return authorize(ctx, prepared.setup, prepared.draft);
    },

    /**
     * A sale's invoice a register box printed offline under the CAEA, with a number of its reserved
     * block and the moment it was generated: recorded once (the same call again returns it), with
     * the amounts computed here from the sale, exactly as the box computes them.
     */
    async issueOffline(
      ctx: CompanyCtx,
      saleId: number,
      input: {
        block_id: number;
        number: number;
        generated_at: string;
        total: number;
        buyer?: BuyerInput | undefined;
        customer_id?: number | undefined;
      },
    ): Promise<IssueResult> {
      const { block_id, number, generated_at, total, ...who } = input;
      const existing = await repo.invoicesOfSale(orm, ctx.companyId, saleId);
      const mine = existing.find((i) => i.kind === 'invoice');
      if (mine) {
        if (mine.caeaBlockId === block_id && mine.number === number) return { invoice: invoiceDetail(mine), created: false };
        throw new AppError(
          'conflict',
          `sale ${saleId} already has receipt ${formatReceiptNumber(mine.type, mine.pointOfSale, mine.number)}`,
        );
      }
      const prepared = await invoiceDraft(ctx, saleId, who, { checkPointOfSale: false });
      if ('issued' in prepared) return { invoice: invoiceDetail(prepared.issued), created: false };
      if (toCents(prepared.draft.amounts.total) !== Math.round(total * 100)) {
        throw new AppError('validation_failed', `the printed total ${total} is not the sale's ${prepared.draft.amounts.total}`, {
          details: [{ path: '/total', message: 'does not match the sale' }],
        });
      }
      const result = await caea.recordOffline(ctx, prepared.setup, caeaDraftOf(prepared.draft), {
        blockId: block_id,
        number,
        generatedAt: generated_at,
      });
      return { invoice: invoiceDetail(result.invoice), created: result.created };
    },

    /** The credit note of an invoice whose sale was cancelled: same class, same amounts, CbtesAsoc. */
    async creditNote(ctx: CompanyCtx, invoiceId: number): Promise<IssueResult> {
      const invoice = await repo.findInvoice(orm, ctx.companyId, invoiceId);
      if (!invoice) throw new AppError('not_found', `invoice ${invoiceId} not found`);
      const sale = await loadSale(ctx.companyId, invoice.saleId);
      if (sale.status !== 'cancelled') {
        throw new AppError(
          'invalid_state',
          `sale ${invoice.saleId} is not cancelled: cancel it first, then issue the credit note`,
        );
      }
      if (invoice.kind === 'invoice' && (await repo.hasReturns(orm, ctx.companyId, invoice.saleId))) {
        throw new AppError('invalid_state', `sale ${invoice.saleId} was returned line by line; each return has its credit note`);
      }
      return creditInvoice(ctx, invoice, wholeInvoiceAmounts(invoice), null);
    },

    /**
     * The credit note a refund owes, issued now (a return: its lines; a sale cancelled whole: the
     * invoice's amounts). Null when the sale has no invoice issued here. When ARCA cannot be reached
     * the refund stays as made and its credit note is settled later (settleCreditNotes).
     */
    creditRefund,

    /**
     * Refunds whose credit note could not even be reserved (ARCA unreachable at the time), issued
     * one by one (job `invoices-settle-pending`). Answers how many were issued.
     */
    async settleCreditNotes(): Promise<number> {
      const owed = await repo.refundsAwaitingCreditNote(orm, 20);
      let issued = 0;
      for (const refund of owed) {
        try {
          const result = await creditRefund(cliCtx(refund.company_id), refund.sale_id, refund.return_id);
          if (result?.created) issued++;
        } catch (err) {
          logger.warn(
            { companyId: refund.company_id, sale: refund.sale_id, err: err instanceof Error ? err.message : String(err) },
            'credit note of a refund still not issued',
          );
        }
      }
      return issued;
    },

    /** Settles a pending attempt now (the "Reintentar" button, the background resolver). */
    async retry(ctx: CompanyCtx, attemptId: number) {
      const attempt = await repo.findAttempt(orm, ctx.companyId, attemptId);
      if (!attempt) throw new AppError('not_found', `invoice attempt ${attemptId} not found`);
      if (attempt.status !== 'pending') return attemptWire(attempt);
      const setup = await fiscal.ready(ctx.companyId);
      const series = {
        issuerCuit: attempt.issuerCuit,
        environment: attempt.environment,
        pointOfSale: attempt.pointOfSale,
        receiptCode: attempt.receiptCode,
      };
      if (setup.cuit !== series.issuerCuit || setup.environment !== series.environment) {
        throw new AppError(
          'invalid_state',
          'the company fiscal setup changed since this receipt was reserved; restore it to settle it',
        );
      }
      await withSerialLock(db, repo.seriesKey(series), async () => {
        const { session, auth } = await openSession(setup);
        const fresh = await repo.findAttempt(orm, ctx.companyId, attemptId);
        if (fresh?.status === 'pending') await drive(ctx, session, auth, fresh, false);
      });
      return attemptWire((await repo.findAttempt(orm, ctx.companyId, attemptId))!);
    },

    /** Pending attempts untouched for a minute, settled one by one (job `invoices-settle-pending`). */
    async settleStale(): Promise<number> {
      const stale = await repo.stalePending(orm, new Date(clock.now().getTime() - 60_000), 20);
      let settled = 0;
      for (const attempt of stale) {
        try {
          const after = await this.retry(cliCtx(attempt.companyId), attempt.id);
          if (after.status !== 'pending') settled++;
        } catch (err) {
          logger.warn(
            { companyId: attempt.companyId, attempt: attempt.id, err: err instanceof Error ? err.message : String(err) },
            'pending receipt still unsettled',
          );
        }
      }
      return settled;
    },

    async ofSale(ctx: CompanyCtx, saleId: number) {
      await loadSale(ctx.companyId, saleId);
      const [invoices, attempts] = await Promise.all([
        repo.invoicesOfSale(orm, ctx.companyId, saleId),
        repo.attemptsOfSale(orm, ctx.companyId, saleId),
      ]);
      return { invoices: invoices.map(invoiceDetail), attempts: attempts.map(attemptWire) };
    },

    async get(ctx: CompanyCtx, id: number) {
      const row = await repo.findInvoice(orm, ctx.companyId, id);
      if (!row) throw new AppError('not_found', `invoice ${id} not found`);
      return invoiceDetail(row);
    },

    async list(ctx: CompanyCtx, page: { cursor?: string | undefined; limit: number; customerId?: number | undefined }) {
      const beforeId = page.cursor ? Number(page.cursor) : undefined;
      if (page.cursor !== undefined && !(Number.isInteger(beforeId) && beforeId! > 0)) {
        throw new AppError('validation_failed', 'cursor is not one this API gave', {
          details: [{ path: '/cursor', message: 'invalid' }],
        });
      }
      const rows = await repo.listInvoices(orm, ctx.companyId, { beforeId, limit: page.limit + 1, customerId: page.customerId });
      const more = rows.length > page.limit;
      const items = rows.slice(0, page.limit);
      return { invoices: items.map(invoiceDetail), meta: { next_cursor: more ? String(items.at(-1)!.id) : null } };
    },

    /** Row and lines for the printouts. */
    async printable(companyId: number, id: number) {
      const row = await repo.findInvoice(orm, companyId, id);
      if (!row) return null;
      const lines = await repo.saleLines(orm, companyId, row.saleId);
      return { invoice: invoiceDetail(row), lines };
    },
  };
}
