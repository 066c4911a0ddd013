import type { Database } from '../../db/client.ts';
import { withSerialLock } from '../../db/serial-lock.ts';
import { type CompanyCtx, cliCtx, type RequestCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { type Fortnight, fortnightOf, nextFortnight, requestWindow } from '../arca/caea-period.ts';
import { ArcaServiceError, ArcaTransportError } from '../arca/errors.ts';
import { arcaDate, arcaTime } from '../arca/time.ts';
import type { CaeRequest, WsfeAuth } from '../arca/wsfe.ts';
import type { ArcaAccess } from './arca-access.ts';
import * as repo from './caea.repo.ts';
import { isoDate, receiptTypeName } from './fiscal-rules.ts';
import type { FiscalReady, FiscalService } from './fiscal.service.ts';
import { formatReceiptNumber, invoiceToWire } from './invoices.ts';
import { insertIssuedInvoice as insertInvoice, type Series } from './invoicing.repo.ts';

/** What a CAEA receipt is issued from: the CAE request it would have been, and who it is for. */
export interface CaeaDraft {
  saleId: number;
  kind: 'invoice' | 'credit_note';
  letter: 'A' | 'B' | 'C';
  receiptCode: number;
  request: Omit<CaeRequest, 'pointOfSale' | 'number'>;
  receiverName: string | null;
  customerId: number | null;
  receiverAddress: string | null;
  associatedInvoiceId: number | null;
  /** The return a partial credit note is for (null: an invoice, or a whole sale's credit note). */
  returnId: number | null;
  ivaLines: { id: number; rate: string; base: string; amount: string }[];
}

/** How long after ARCA failed to answer a company's receipt the next ones go straight to CAEA. */
const CONTINGENCY_MS = 60_000;
/** Default size of a register box's reserved block. */
export const DEFAULT_BLOCK_SIZE = 50;
/**
 * An unused block of an ended fortnight is released (and «sin movimiento» informed) when the last
 * day to inform is this close: until then a box offline since the fortnight ended may still bring
 * receipts it printed (once «sin movimiento» is informed, ARCA refuses them: 1424).
 */
const IDLE_BLOCK_MARGIN_DAYS = 3;

const RECEIPT_CODES_OF: Record<string, number[]> = {
  responsable_inscripto: [1, 6],
  monotributo: [11],
  exento: [11],
};

const isoOf = (yyyymmdd: string) => isoDate(yyyymmdd);

export type CaeaService = ReturnType<typeof createCaeaService>;

/** The company's CAEA points of sale: the server's, and the registers' when it has a second one. */
function caeaPointsOf(pointOfSale: number | null, registerPointOfSale: number | null): number[] {
  return [pointOfSale, registerPointOfSale].filter((p): p is number => p !== null);
}

/**
 * CAEA contingency (docs/facturacion.md, "Contingencia CAEA"): obtaining each fortnight's CAEA
 * ahead, issuing under it when CAE cannot be had, reserving blocks of numbers for register boxes
 * that may go offline, and informing every receipt (FECAEARegInformativo) or the point of sale
 * without movement (FECAEASinMovimientoInformar) before ARCA's deadline.
 */
export function createCaeaService({
  db,
  clock,
  logger,
  fiscal,
  arca,
}: {
  db: Database;
  clock: Clock;
  logger: Logger;
  fiscal: FiscalService;
  arca: ArcaAccess;
}) {
  const { orm } = db;
  const contingencyUntil = new Map<number, number>();
  const today = () => arcaDate(clock.now());

  async function session(
    companyId: number,
  ): Promise<{ setup: FiscalReady; auth: WsfeAuth; wsfe: Awaited<ReturnType<ArcaAccess['session']>>['wsfe'] }> {
    const setup = await fiscal.ready(companyId);
    const s = await arca.session(setup.credentials);
    return { setup, auth: await s.auth(), wsfe: s.wsfe };
  }

  function seriesOf(setup: { cuit: string; environment: string }, pointOfSale: number, receiptCode: number): Series {
    return { issuerCuit: setup.cuit, environment: setup.environment, pointOfSale, receiptCode };
  }

  async function currentCaea(companyId: number, setup: { cuit: string; environment: string }, date = today()) {
    const f = fortnightOf(date);
    return repo.findCaea(orm, companyId, {
      issuerCuit: setup.cuit,
      environment: setup.environment,
      period: f.period,
      fortnight: f.order,
    });
  }

  /** Inserts the CAEA receipt with the given number (under the series lock, in one transaction). */
  async function insertReceipt(
    ctx: RequestCtx,
    companyId: number,
    setup: FiscalReady,
    caea: repo.CaeaRow,
    draft: CaeaDraft,
    pointOfSale: number,
    number: number,
    generatedAt: string,
    extra: { blockId?: number; supersedes?: number | null },
  ) {
    const request: CaeRequest = { ...draft.request, pointOfSale, number };
    return orm.transaction(async (tx) => {
      const invoice = await insertInvoice(tx, {
        companyId,
        saleId: draft.saleId,
        type: receiptTypeName(draft.letter, draft.kind),
        pointOfSale,
        number,
        cae: caea.caea,
        caeExpiration: new Date(`${caea.validTo}T23:59:59-03:00`),
        total: request.total,
        issuedAt: clock.now(),
        source: 'arca',
        kind: draft.kind,
        receiptCode: draft.receiptCode,
        issueDate: isoOf(request.date),
        docType: request.docType,
        docNumber: request.docNumber,
        receiverIvaCondition: request.receiverIvaConditionId ?? null,
        receiverName: draft.receiverName,
        customerId: draft.customerId,
        receiverAddress: draft.receiverAddress,
        net: request.net,
        iva: request.iva,
        exempt: request.exempt,
        ivaLines: draft.ivaLines,
        environment: setup.environment,
        issuerCuit: setup.cuit,
        associatedInvoiceId: draft.associatedInvoiceId,
        returnId: draft.returnId,
        observations: [],
        emission: 'caea',
        caeaId: caea.id,
        generatedAt,
        caeaRequest: request as unknown as Record<string, unknown>,
        caeaBlockId: extra.blockId ?? null,
        informStatus: 'pending',
        informBy: caea.informBy,
      });
      if (extra.supersedes) await repo.markSuperseded(tx, companyId, extra.supersedes, invoice.id);
      await recordOutbound(tx, { companyId, event: 'invoice.issued', data: { invoice: invoiceToWire(invoice) }, causedBy: null });
      await recordAudit(tx, {
        action: 'invoice.issued',
        ...auditBy(ctx),
        companyId,
        details: {
          invoice_id: invoice.id,
          sale_id: draft.saleId,
          receipt: formatReceiptNumber(invoice.type, invoice.pointOfSale, invoice.number),
          caea: caea.caea,
          ...(extra.blockId ? { caea_block_id: extra.blockId } : {}),
          ...(extra.supersedes ? { superseded_attempt_id: extra.supersedes } : {}),
        },
      });
      return invoice;
    });
  }

  /**
   * ARCA's last number of each receipt type on each CAEA point of sale (the server's and the
   * registers'), kept with the CAEA: each CAEA series continues after it (ARCA takes only last + 1
   * when informing, 703). Best effort.
   */
  async function recordFloor(s: Awaited<ReturnType<typeof session>>, companyId: number, caeaId: number, pointsOfSale: number[]) {
    if (pointsOfSale.length === 0) return;
    const codes = s.setup.ivaCondition === 'responsable_inscripto' ? [1, 6, 3, 8] : [11, 13];
    const floor: Record<string, number> = {};
    try {
      for (const pointOfSale of pointsOfSale) {
        for (const type of codes) floor[`${pointOfSale}:${type}`] = await s.wsfe.lastAuthorized(s.auth, { pointOfSale, type });
      }
      await repo.setSeriesFloor(orm, companyId, caeaId, floor);
    } catch (err) {
      logger.warn(
        { companyId, err: err instanceof Error ? err.message : String(err) },
        'CAEA: last numbers not read; asked again next run',
      );
    }
  }

  async function obtainFor(company: {
    company_id: number;
    caea_point_of_sale: number | null;
    caea_register_point_of_sale: number | null;
  }): Promise<{ got: string[]; missing: string[] }> {
    const points = caeaPointsOf(company.caea_point_of_sale, company.caea_register_point_of_sale);
    const got: string[] = [];
    const missing: string[] = [];
    let s: Awaited<ReturnType<typeof session>>;
    try {
      s = await session(company.company_id);
    } catch (err) {
      logger.warn(
        { companyId: company.company_id, err: err instanceof Error ? err.message : String(err) },
        'CAEA: no ARCA session',
      );
      return { got, missing: ['session'] };
    }
    const now = today();
    const current = fortnightOf(now);
    const wanted: Fortnight[] = [current];
    const next = nextFortnight(current);
    if (now >= requestWindow(next).opens) wanted.push(next);
    for (const f of wanted) {
      const key = { issuerCuit: s.setup.cuit, environment: s.setup.environment, period: f.period, fortnight: f.order };
      const stored = await repo.findCaea(orm, company.company_id, key);
      if (stored) {
        if (Object.keys(stored.seriesFloor).length === 0) await recordFloor(s, company.company_id, stored.id, points);
        continue;
      }
      try {
        let grant: Awaited<ReturnType<typeof s.wsfe.caea>>;
        try {
          grant = await s.wsfe.caea(s.auth, { period: f.period, order: f.order, consult: false });
        } catch (err) {
          // Already granted (15008), or the answer was lost: ARCA tells which with FECAEAConsultar.
          if (!(err instanceof ArcaTransportError || (err instanceof ArcaServiceError && err.code === 15008))) throw err;
          grant = await s.wsfe.caea(s.auth, { period: f.period, order: f.order, consult: true });
          if (!grant) throw err;
        }
        if (!grant) throw new Error('FECAEASolicitar answered without a CAEA');
        const g = grant;
        const saved = await orm.transaction(async (tx) => {
          const row = await repo.saveCaea(tx, {
            companyId: company.company_id,
            issuerCuit: s.setup.cuit,
            environment: s.setup.environment,
            period: g.period,
            fortnight: g.order,
            caea: g.caea,
            validFrom: isoOf(g.validFrom),
            validTo: isoOf(g.validTo),
            informBy: isoOf(g.informBy),
            processedAt: g.processedAt,
            observations: g.observations,
          });
          await recordAudit(tx, {
            action: 'caea.obtained',
            ...auditBy(cliCtx(company.company_id)),
            companyId: company.company_id,
            details: { caea: row.caea, period: row.period, fortnight: row.fortnight, inform_by: row.informBy },
          });
          return row;
        });
        await recordFloor(s, company.company_id, saved.id, points);
        got.push(`${f.period}/${f.order}`);
      } catch (err) {
        missing.push(`${f.period}/${f.order}`);
        logger.warn(
          {
            companyId: company.company_id,
            period: f.period,
            order: f.order,
            err: err instanceof Error ? err.message : String(err),
          },
          'CAEA not obtained; retried on the next run',
        );
      }
    }
    return { got, missing };
  }

  /** Informs one CAEA receipt; true when ARCA has it (informed now or before). */
  async function informOne(
    s: Awaited<ReturnType<typeof session>>,
    row: repo.CaeaInvoiceRow,
  ): Promise<'informed' | 'rejected' | 'failed'> {
    const request = row.caeaRequest as unknown as CaeRequest;
    const tries = row.informTries + 1;
    try {
      const answer = await s.wsfe.caeaInform(s.auth, request, { caea: row.cae, generatedAt: row.generatedAt! });
      const codes = [...answer.errors, ...answer.observations].map((m) => m.code);
      let informed = answer.result === 'A';
      if (!informed && codes.includes(703)) {
        // Not the next number: perhaps ARCA took it on an answer we lost. FECompConsultar says.
        const found = await s.wsfe.consult(s.auth, { pointOfSale: row.pointOfSale, type: row.receiptCode!, number: row.number });
        informed =
          !!found &&
          found.emission === 'CAEA' &&
          found.cae === row.cae &&
          Math.abs(Number(found.total) - Number(request.total)) < 0.015;
      }
      await repo.updateInform(orm, row.companyId, row.id, {
        informStatus: informed ? 'informed' : 'rejected',
        informTries: tries,
        informError: informed
          ? null
          : codes.length
            ? [...answer.errors, ...answer.observations]
                .map((m) => `${m.code} ${m.message}`)
                .join('; ')
                .slice(0, 500)
            : 'rejected',
        informAnswer: answer as unknown as Record<string, unknown>,
        informedAt: informed ? clock.now() : null,
      });
      if (informed) {
        await recordAudit(orm, {
          action: 'caea.informed',
          ...auditBy(cliCtx(row.companyId)),
          companyId: row.companyId,
          details: { invoice_id: row.id, receipt: formatReceiptNumber(row.type, row.pointOfSale, row.number) },
        });
      }
      return informed ? 'informed' : 'rejected';
    } catch (err) {
      if (!(err instanceof ArcaTransportError || err instanceof ArcaServiceError)) throw err;
      await repo.updateInform(orm, row.companyId, row.id, {
        informTries: tries,
        informError: `${err.name}: ${err.message}`.slice(0, 500),
      });
      return 'failed';
    }
  }

  /**
   * Closes the blocks of an ended fortnight no box used (IDLE_BLOCK_MARGIN_DAYS before the last day
   * to inform): their numbers are free for the series again, and the point of sale can be informed
   * «sin movimiento». A box swaps its own unused block as soon as it is online in the new fortnight.
   */
  async function releaseIdleBlocks() {
    const idle = await repo.idleBlocksOfEndedFortnights(orm, isoOf(today()), IDLE_BLOCK_MARGIN_DAYS);
    for (const block of idle) {
      await withSerialLock(db, repo.caeaSeriesKey(block), () =>
        orm.transaction(async (tx) => {
          const fresh = await repo.findBlock(tx, block.companyId, block.id, { forUpdate: true });
          if (fresh?.status !== 'open' || (await repo.blockUsage(tx, block.companyId, block.id)).length > 0) return;
          await repo.returnBlock(tx, block.companyId, block.id, clock.now());
          await recordAudit(tx, {
            action: 'caea.block_returned',
            ...auditBy(cliCtx(block.companyId)),
            companyId: block.companyId,
            details: { block_id: block.id, box_id: block.boxId, used: 0, reason: 'fortnight_ended' },
          });
        }),
      );
    }
  }

  return {
    /** True while a company's receipts go straight to CAEA (ARCA failed to answer moments ago). */
    inContingency(companyId: number): boolean {
      return (contingencyUntil.get(companyId) ?? 0) > clock.now().getTime();
    },
    enterContingency(companyId: number) {
      contingencyUntil.set(companyId, clock.now().getTime() + CONTINGENCY_MS);
    },
    leaveContingency(companyId: number) {
      contingencyUntil.delete(companyId);
    },

    /**
     * Issues the draft under the current fortnight's CAEA on the CAEA point of sale, with the
     * series' next free number. Null when there is no CAEA for today (the caller keeps its error).
     */
    async issue(
      ctx: CompanyCtx,
      setup: FiscalReady,
      draft: CaeaDraft,
      supersedes: number | null,
    ): Promise<repo.CaeaInvoiceRow | null> {
      const pointOfSale = setup.caea.pointOfSale;
      if (!setup.caea.enabled || pointOfSale === null) return null;
      const existing = await repo.caeaInvoiceOfSale(orm, ctx.companyId, draft.saleId, draft.kind, draft.returnId);
      if (existing) return existing;
      const caea = await currentCaea(ctx.companyId, setup, draft.request.date);
      if (!caea) return null;
      const series = seriesOf(setup, pointOfSale, draft.receiptCode);
      const now = clock.now();
      return withSerialLock(db, repo.caeaSeriesKey(series), async () => {
        const again = await repo.caeaInvoiceOfSale(orm, ctx.companyId, draft.saleId, draft.kind, draft.returnId);
        if (again) return again;
        const number = await repo.nextCaeaNumber(orm, series);
        return insertReceipt(ctx, ctx.companyId, setup, caea, draft, pointOfSale, number, `${arcaDate(now)}${arcaTime(now)}`, {
          supersedes,
        });
      });
    },

    /** The job: every CAEA company gets the current and (inside its window) the next fortnight's CAEA. */
    async obtainAll(): Promise<{ companies: number; got: number; missing: number }> {
      const companies = await repo.caeaCompanies(orm);
      let got = 0;
      let missing = 0;
      for (const company of companies) {
        const r = await obtainFor(company);
        got += r.got.length;
        missing += r.missing.length;
      }
      return { companies: companies.length, got, missing };
    },

    async obtainNow(ctx: CompanyCtx) {
      const row = await fiscal.ready(ctx.companyId);
      if (!row.caea.enabled || row.caea.pointOfSale === null) {
        throw new AppError('invalid_state', 'CAEA is not enabled for this company, or it has no CAEA point of sale');
      }
      await obtainFor({
        company_id: ctx.companyId,
        caea_point_of_sale: row.caea.pointOfSale,
        caea_register_point_of_sale: row.caea.registerPointOfSale,
      });
      return this.status(ctx);
    },

    /**
     * The job: informs every CAEA receipt due, in number order per series; a series stops at its
     * first failure. Only receipts of the company's CUIT and environment now: those of another
     * (homologación before producción, a changed CUIT) would go to the wrong ARCA, and stay stale.
     */
    async informAll(companyId: number | null = null): Promise<{ informed: number; failed: number }> {
      const rows = await repo.toInform(orm, companyId, 500, { current: true });
      const stopped = new Set<string>();
      const sessions = new Map<number, Awaited<ReturnType<typeof session>> | null>();
      let informed = 0;
      let failed = 0;
      for (const row of rows) {
        const series = {
          issuerCuit: row.issuerCuit!,
          environment: row.environment!,
          pointOfSale: row.pointOfSale,
          receiptCode: row.receiptCode!,
        };
        const key = repo.caeaSeriesKey(series);
        if (stopped.has(key)) continue;
        if (!sessions.has(row.companyId)) {
          try {
            sessions.set(row.companyId, await session(row.companyId));
          } catch (err) {
            logger.warn(
              { companyId: row.companyId, err: err instanceof Error ? err.message : String(err) },
              'CAEA informing: no ARCA session',
            );
            sessions.set(row.companyId, null);
          }
        }
        const s = sessions.get(row.companyId);
        if (!s) {
          failed++;
          continue;
        }
        // ARCA takes a series' receipts in order (703): only the lowest uninformed one goes next.
        if ((await repo.firstUninformed(orm, series)) !== row.number) {
          stopped.add(key);
          continue;
        }
        const outcome = await withSerialLock(db, `${key}:inform`, async () => {
          const fresh = await repo.lockInvoice(orm, row.companyId, row.id);
          if (!fresh || fresh.informStatus === 'informed') return 'informed' as const;
          return informOne(s, fresh);
        });
        if (outcome === 'informed') informed++;
        else {
          failed++;
          stopped.add(key);
        }
      }
      return { informed, failed };
    },

    /** The job: "sin movimiento" for each CAEA whose fortnight ended with nothing issued on the CAEA point of sale. */
    async informNoMovement(): Promise<number> {
      await releaseIdleBlocks();
      const due = await repo.noMovementDue(orm, isoOf(today()), 50);
      let done = 0;
      for (const d of due) {
        try {
          const s = await session(d.company_id);
          const answer = await s.wsfe.caeaNoMovement(s.auth, { pointOfSale: d.point_of_sale, caea: d.caea });
          let ok = answer.result === 'A';
          if (!ok && answer.errors.some((e) => e.code === 1209)) {
            ok = await s.wsfe.caeaNoMovementConsult(s.auth, { pointOfSale: d.point_of_sale, caea: d.caea });
          }
          await orm.transaction(async (tx) => {
            await repo.saveNoMovement(
              tx,
              {
                companyId: d.company_id,
                caeaId: d.caea_id,
                pointOfSale: d.point_of_sale,
                status: ok ? 'informed' : 'rejected',
                answer: answer as unknown as Record<string, unknown>,
              },
              clock.now(),
            );
            await recordAudit(tx, {
              action: ok ? 'caea.no_movement_informed' : 'caea.no_movement_rejected',
              ...auditBy(cliCtx(d.company_id)),
              companyId: d.company_id,
              details: { caea: d.caea, point_of_sale: d.point_of_sale, errors: answer.errors },
            });
          });
          if (ok) done++;
        } catch (err) {
          logger.warn(
            { companyId: d.company_id, err: err instanceof Error ? err.message : String(err) },
            'CAEA sin movimiento not informed; retried',
          );
        }
      }
      return done;
    },

    /** The fiscal screen's CAEA panel: settings, current and next CAEA, alerts, receipts to inform. */
    async status(ctx: CompanyCtx) {
      const setup = await fiscal.get(ctx.companyId);
      const now = today();
      const cur = fortnightOf(now);
      const next = nextFortnight(cur);
      const rows = setup.cuit ? await repo.recentCaeas(orm, ctx.companyId, 12) : [];
      const pick = (f: Fortnight) =>
        rows.find(
          (r) =>
            r.issuerCuit === setup.cuit &&
            r.environment === setup.environment &&
            r.period === f.period &&
            r.fortnight === f.order,
        ) ?? null;
      const wire = (r: repo.CaeaRow | null, f: Fortnight) => ({
        period: f.period,
        fortnight: f.order,
        caea: r?.caea ?? null,
        valid_from: r?.validFrom ?? null,
        valid_to: r?.validTo ?? null,
        inform_by: r?.informBy ?? null,
        request_from: isoOf(requestWindow(f).opens),
      });
      const pending = await repo.toInform(orm, ctx.companyId, 200);
      const isStale = (p: repo.CaeaInvoiceRow) => p.issuerCuit !== setup.cuit || p.environment !== setup.environment;
      const duplicates = await repo.contingencyDuplicates(orm, ctx.companyId);
      const alerts: string[] = [];
      if (duplicates.length > 0) alerts.push('contingency_duplicate');
      if (setup.caea_enabled) {
        if (!pick(cur)) alerts.push('missing_current');
        if (!pick(next) && now >= requestWindow(next).opens) alerts.push('missing_next');
        if (pending.some((p) => p.informBy !== null && p.informBy < isoOf(now))) alerts.push('inform_overdue');
        if (pending.some((p) => p.informStatus === 'rejected' && !isStale(p))) alerts.push('inform_rejected');
      }
      if (pending.some(isStale)) alerts.push('inform_stale');
      return {
        enabled: setup.caea_enabled,
        point_of_sale: setup.caea_point_of_sale,
        register_point_of_sale: setup.caea_register_point_of_sale,
        in_contingency: this.inContingency(ctx.companyId),
        current: wire(pick(cur), cur),
        next: wire(pick(next), next),
        alerts,
        duplicates,
        to_inform: pending.map((p) => ({
          invoice_id: p.id,
          receipt: formatReceiptNumber(p.type, p.pointOfSale, p.number),
          issue_date: p.issueDate,
          total: Number(p.total),
          caea: p.cae,
          inform_by: p.informBy,
          status: p.informStatus,
          tries: p.informTries,
          last_error: p.informError,
          stale: isStale(p),
        })),
      };
    },

    /**
     * A block of the CAEA series' numbers for a register box (one per receipt type the company
     * issues), held until returned: nobody else issues them. An open block is given again as it is.
     * The blocks come from the registers' CAEA point of sale when the company has one (0301), so
     * the numbers a box holds never stand between the receipts the server issues.
     */
    async reserveBlocks(ctx: CompanyCtx, boxId: number, size: number) {
      const setup = await fiscal.ready(ctx.companyId);
      const pointOfSale = setup.caea.registerPointOfSale; // fiscal.ready: the CAEA point when there is no second
      if (!setup.caea.enabled || pointOfSale === null) {
        throw new AppError('invalid_state', 'CAEA is not enabled for this company, or it has no CAEA point of sale');
      }
      if (!(await repo.boxExists(orm, ctx.companyId, boxId))) throw new AppError('not_found', `box ${boxId} not found`);
      const caea = await currentCaea(ctx.companyId, setup);
      if (!caea) throw new AppError('caea_unavailable', 'there is no CAEA for the current fortnight yet');
      const codes = RECEIPT_CODES_OF[setup.ivaCondition] ?? [11];
      const blocks: repo.BlockRow[] = [];
      for (const code of codes) {
        const series = seriesOf(setup, pointOfSale, code);
        const block = await withSerialLock(db, repo.caeaSeriesKey(series), () =>
          orm.transaction(async (tx) => {
            const open = (await repo.openBlocksOfBox(tx, ctx.companyId, boxId)).find((b) => b.receiptCode === code);
            if (open && open.caeaId === caea.id && open.pointOfSale === pointOfSale) return open;
            if (open) await repo.returnBlock(tx, ctx.companyId, open.id, clock.now());
            const first = await repo.caeaSeriesTail(tx, series);
            const row = await repo.insertBlock(tx, {
              companyId: ctx.companyId,
              boxId,
              caeaId: caea.id,
              issuerCuit: setup.cuit,
              environment: setup.environment,
              pointOfSale: series.pointOfSale,
              receiptCode: code,
              firstNumber: first,
              lastNumber: first + size - 1,
              status: 'open',
              createdBy: auditBy(ctx).actor?.email ?? 'cli',
              returnedAt: null,
            });
            await recordAudit(tx, {
              action: 'caea.block_reserved',
              ...auditBy(ctx),
              details: { block_id: row.id, box_id: boxId, receipt_code: code, first: row.firstNumber, last: row.lastNumber },
            });
            return row;
          }),
        );
        blocks.push(block);
      }
      return { caea, setup, blocks };
    },

    /** The box is back: its block closes, and the numbers it did not use are free for the series again. */
    async returnBlock(ctx: CompanyCtx, blockId: number) {
      const block = await repo.findBlock(orm, ctx.companyId, blockId);
      if (!block) throw new AppError('not_found', `CAEA block ${blockId} not found`);
      if (block.status === 'returned') return { block, used: await repo.blockUsage(orm, ctx.companyId, blockId) };
      return withSerialLock(db, repo.caeaSeriesKey(block), () =>
        orm.transaction(async (tx) => {
          const row = await repo.returnBlock(tx, ctx.companyId, blockId, clock.now());
          const used = await repo.blockUsage(tx, ctx.companyId, blockId);
          await recordAudit(tx, {
            action: 'caea.block_returned',
            ...auditBy(ctx),
            details: { block_id: blockId, used: used.length, unused: block.lastNumber - block.firstNumber + 1 - used.length },
          });
          return { block: row, used };
        }),
      );
    },

    /** A receipt a box printed offline with a number of its block: recorded once, exactly as printed. */
    async recordOffline(
      ctx: CompanyCtx,
      setup: FiscalReady,
      draft: CaeaDraft,
      input: { blockId: number; number: number; generatedAt: string },
    ) {
      const block = await repo.findBlock(orm, ctx.companyId, input.blockId);
      if (!block) throw new AppError('not_found', `CAEA block ${input.blockId} not found`);
      const existing = await repo.caeaInvoiceOfSale(orm, ctx.companyId, draft.saleId, draft.kind, draft.returnId);
      if (existing) {
        if (existing.caeaBlockId === block.id && existing.number === input.number) return { invoice: existing, created: false };
        throw new AppError('conflict', `sale ${draft.saleId} already has CAEA receipt ${existing.number}`);
      }
      if (block.receiptCode !== draft.receiptCode) {
        throw new AppError(
          'validation_failed',
          `block ${block.id} is for receipt type ${block.receiptCode}, the sale's receipt is ${draft.receiptCode}`,
          {
            details: [{ path: '/block_id', message: 'receipt type mismatch' }],
          },
        );
      }
      if (block.status !== 'open') throw new AppError('invalid_state', `block ${block.id} was already returned`);
      if (input.number < block.firstNumber || input.number > block.lastNumber) {
        throw new AppError(
          'validation_failed',
          `number ${input.number} is outside block ${block.firstNumber}–${block.lastNumber}`,
          {
            details: [{ path: '/number', message: 'outside the block' }],
          },
        );
      }
      if (!/^\d{14}$/.test(input.generatedAt)) {
        throw new AppError('validation_failed', 'generated_at must be yyyymmddhhmiss', {
          details: [{ path: '/generated_at', message: 'yyyymmddhhmiss' }],
        });
      }
      const caea = await repo.caeaById(orm, ctx.companyId, block.caeaId);
      const date = input.generatedAt.slice(0, 8);
      if (!caea || isoOf(date) < caea.validFrom || isoOf(date) > caea.validTo) {
        throw new AppError('validation_failed', 'the receipt date is outside the CAEA vigencia', {
          details: [{ path: '/generated_at', message: 'outside the CAEA' }],
        });
      }
      const withDate: CaeaDraft = { ...draft, request: { ...draft.request, date } };
      return withSerialLock(db, repo.caeaSeriesKey(block), async () => {
        // Returned meanwhile (by the box, or released at the end of its fortnight): its numbers are free again.
        if ((await repo.findBlock(orm, ctx.companyId, block.id))?.status !== 'open') {
          throw new AppError('invalid_state', `block ${block.id} was already returned`);
        }
        try {
          const invoice = await insertReceipt(
            ctx,
            ctx.companyId,
            setup,
            caea,
            withDate,
            block.pointOfSale,
            input.number,
            input.generatedAt,
            {
              blockId: block.id,
            },
          );
          return { invoice, created: true };
        } catch (err) {
          if (err instanceof Error && /unique|duplicate/i.test(err.message)) {
            throw new AppError('conflict', `number ${input.number} of this block is already used by another receipt`, {
              cause: err,
            });
          }
          throw err;
        }
      });
    },

    async usedOfBlock(ctx: CompanyCtx, blockId: number) {
      return repo.blockUsage(orm, ctx.companyId, blockId);
    },

    async blocksOfBox(ctx: CompanyCtx, boxId: number) {
      if (!(await repo.boxExists(orm, ctx.companyId, boxId))) throw new AppError('not_found', `box ${boxId} not found`);
      return repo.openBlocksOfBox(orm, ctx.companyId, boxId);
    },

    /** Today's date for ARCA (YYYYMMDD). */
    today,
  };
}
