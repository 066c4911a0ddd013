import type { Container } from '../container.ts';
import { cliCtx } from '../http/request-context.ts';
import { createBooksService, formatBooksReport } from '../modules/books/books.service.ts';
import { RETENTION_DAYS } from '../modules/webhooks/deliveries.service.ts';
import { parseOptions, positiveInt, UsageError } from './args.ts';
import { type Command, define } from './command.ts';

/** The books service as `books verify` runs it (also run by the pos bench after its load). */
export function booksOf(container: Container) {
  return createBooksService({
    db: container.db,
    clock: container.clock,
    daySummaries: (companyId) => container.register.summaries(cliCtx(companyId)),
    reportRollup: (companyId) => container.reports.rollup.mismatches(companyId),
    eventRetentionDays: RETENTION_DAYS,
  });
}

/** `books verify`: the proof that the numbers add up, for one company or all of them. Exit 1 on any difference. */
export const BOOKS_COMMANDS: Command[] = [
  define({
    words: ['books', 'verify'],
    parse: (args) => {
      const o = parseOptions(args, { company: { type: 'string' }, all: { type: 'boolean' } });
      if (o.all && o.company !== undefined) throw new UsageError('--company and --all do not go together');
      if (o.all) return { companyId: null, json: o.json };
      return { companyId: positiveInt(o.company, 'company'), json: o.json };
    },
    async run(container, { companyId }) {
      const books = booksOf(container);
      if (companyId !== null) {
        const report = await books.verify(companyId);
        const company = await container.companies.findCompany(companyId);
        return {
          json: { ok: report.ok, checks: report.checks },
          text: formatBooksReport(report, company?.name),
          exitCode: report.ok ? 0 : 1,
        };
      }
      const all = await books.verifyAll();
      const text = all.companies.map((report) => formatBooksReport(report)).join('\n');
      const bad = all.companies.filter((c) => !c.ok).length;
      return {
        json: { ok: all.ok, companies: all.companies },
        text: `${text}\n${all.ok ? `Todas las empresas (${all.companies.length}) cierran.` : `${bad} de ${all.companies.length} empresas con diferencias.`}`,
        exitCode: all.ok ? 0 : 1,
      };
    },
  }),
];
