import type { Config } from './config.ts';
import { type Database, openPglite, openPostgres } from './db/client.ts';
import { createReadiness, type Readiness } from './http/health.routes.ts';
import { createJobQueue, type JobQueue } from './jobs/queue.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { pruneRateLimitWindows } from './lib/rate-limiter.ts';
import { type Cipher, createCipher } from './lib/secrets.ts';
import { type Clock, systemClock } from './lib/time.ts';
import { createLogger, type Logger } from './logger.ts';
import { defineAuthJobs } from './modules/auth/auth.jobs.ts';
import { type AuthService, createAuthService } from './modules/auth/auth.service.ts';
import { type CompanyService, createCompanyService } from './modules/companies/companies.service.ts';
import { createSettingsService, type SettingsService } from './modules/settings/settings.service.ts';
import { createSuperadminService, type SuperadminService } from './modules/superadmin/superadmin.service.ts';
import { createExchangeService, type ExchangeService } from './modules/exchange/exchange.service.ts';
import { createScannerService, type ScannerService } from './modules/scanner/scanner.service.ts';
import { createIntegrationService, type IntegrationService } from './modules/integration/integration.service.ts';
import { saleBatchOptions } from './modules/integration/sale-batcher.ts';
import { createInvitationService, type InvitationService } from './modules/users/invitations.service.ts';
import { createMemberService, type MemberService } from './modules/users/members.service.ts';
import { type ApiTokenService, createApiTokenService } from './modules/api-tokens/api-tokens.service.ts';
import { type CatalogService, createCatalogService } from './modules/catalog/catalog.service.ts';
import { type CatalogImport, createCatalogImport } from './modules/catalog/catalog-import.ts';
import { createUserService, type UserService } from './modules/users/users.service.ts';
import { createRegisterService, type RegisterService } from './modules/register/register.service.ts';
import { createInvoicingModule, type InvoicingModule } from './modules/invoicing/invoicing.module.ts';
import { createCustomersModule, type CustomersModule } from './modules/customers/customers.module.ts';
import { type AccountsModule, createAccountsModule } from './modules/accounts/accounts.module.ts';
import { createInstagramModule, type InstagramModule, type InstagramModuleDeps } from './modules/instagram/instagram.module.ts';
import { createSalesAgentModule, type SalesAgentModule } from './modules/sales-agent/sales-agent.module.ts';
import { createWhatsappModule, type WhatsappModule } from './modules/whatsapp/whatsapp.module.ts';
import { createReportsModule, type ReportsModule } from './modules/reports/reports.module.ts';
import { createReturnsService, type ReturnsService } from './modules/sales/returns.service.ts';
import { createWebhooksModule, type WebhooksModule, type WebhooksModuleDeps } from './modules/webhooks/webhooks.module.ts';

/** Everything the program shares: one instance per process, passed explicitly (manual DI). */
export interface Container {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: Database;
  readonly clock: Clock;
  readonly cipher: Cipher;
  readonly jobs: JobQueue;
  readonly metrics: Metrics;
  readonly readiness: Readiness;
  readonly companies: CompanyService;
  readonly users: UserService;
  readonly members: MemberService;
  readonly invitations: InvitationService;
  /** Company API tokens of the merchant API (/api/v1). */
  readonly apiTokens: ApiTokenService;
  /** The back office's catalogue and stock (merchant API). */
  readonly catalog: CatalogService;
  readonly catalogImport: CatalogImport;
  /** The cash register: box sessions and register sales (/api/v1/sales, /caja). */
  readonly register: RegisterService;
  /** Returns and exchanges of sales (/api/v1/sales/:id/returns, /exchanges). */
  readonly returns: ReturnsService;
  /** The merchant CRM: customers (/api/v1/customers, Clientes). */
  readonly customers: CustomersModule;
  /** Electronic invoicing with ARCA: fiscal setup, receipts, credit notes (docs/facturacion.md). */
  readonly invoicing: InvoicingModule;
  /** Cuenta corriente: accounts, payments on account, statements (docs/cuenta-corriente.md). */
  readonly accounts: AccountsModule;
  /** Reports, Inicio and the Libro IVA Digital (docs/reportes.md, docs/libro-iva.md). */
  readonly reports: ReportsModule;
  readonly auth: AuthService;
  readonly settings: SettingsService;
  readonly superadmin: SuperadminService;
  readonly webhooks: WebhooksModule;
  readonly scanner: ScannerService;
  readonly exchange: ExchangeService;
  readonly integration: IntegrationService;
  readonly instagram: InstagramModule;
  readonly salesAgent: SalesAgentModule;
  /** The operator channel on WhatsApp (docs/operador/whatsapp.md). */
  readonly whatsapp: WhatsappModule;
  close(): Promise<void>;
}

/** Replacements for tests and tools: a prepared database, a fixed clock, a captured logger, fakes of external services. */
export interface ContainerOverrides {
  db?: Database;
  clock?: Clock;
  logger?: Logger;
  /** Webhook delivery timings for tests (short timeouts, fast polls, fixed jitter). */
  webhookTuning?: WebhooksModuleDeps['tuning'];
  /** Instagram Graph timings for tests (a shorter abort, faster read spacing). */
  instagramTuning?: InstagramModuleDeps['tuning'];
  /** The sales agent's delay picker for tests (a uniform integer in [min, max] otherwise). */
  salesAgentRandom?: (min: number, max: number) => number;
  /** WhatsApp Graph timings for tests (a shorter abort). */
  whatsappTuning?: { timeoutMs?: number };
}

export async function openDatabase(config: Config): Promise<Database> {
  return config.db.kind === 'postgres'
    ? openPostgres({ url: config.db.url!, poolMax: config.db.poolMax, parallelWorkers: config.db.parallelWorkers })
    : openPglite({ dataDir: config.db.dataDir });
}

export async function createContainer(config: Config, overrides: ContainerOverrides = {}): Promise<Container> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db = overrides.db ?? (await openDatabase(config));
  const clock = overrides.clock ?? systemClock;
  const cipher = createCipher(config.secretKey);
  const jobs = createJobQueue(db, logger);
  const companies = createCompanyService({ db, cipher, clock });
  const users = createUserService({ db, clock });
  const members = createMemberService({ db, clock, users });
  const invitations = createInvitationService({ db, clock, users, publicBaseUrl: config.http.publicBaseUrl });
  const apiTokens = createApiTokenService({ db, clock, logger });
  const catalog = createCatalogService({ db, clock });
  const catalogImport = createCatalogImport({ db, clock });
  const auth = createAuthService({ db, config, clock, logger, users });
  // The register asks the auth module to check an admin's approval (discounts beyond the limit).
  const register = createRegisterService({
    db,
    clock,
    approver: (ctx, credentials, action) => auth.verifyAdminApproval(ctx, credentials, action),
  });
  const customers = createCustomersModule({ db, clock });
  const settings = createSettingsService({ db, config, clock, companies });
  const superadmin = createSuperadminService({ db, companies });
  defineAuthJobs(jobs, auth);
  jobs.define({
    name: 'rate-limits-prune',
    schedule: '41 * * * *',
    handler: async () => void (await pruneRateLimitWindows(db, clock.now())),
  });
  const webhooks = createWebhooksModule({ config, db, cipher, clock, logger, jobs, tuning: overrides.webhookTuning ?? {} });
  const scanner = createScannerService({ db, companies, clock, logger, rateLimitPerMinute: config.scanner.rateLimitPerMinute });
  const exchange = createExchangeService({ db, jobs, clock, logger, ...config.exchange });
  const integration = createIntegrationService({
    db,
    clock,
    logger,
    companies,
    jobs,
    config: config.integration,
    saleBatch: saleBatchOptions(db, config),
  });
  const instagram = createInstagramModule({ config, db, cipher, clock, logger, jobs, tuning: overrides.instagramTuning ?? {} });
  const whatsapp = createWhatsappModule({ config, db, cipher, clock, logger, tuning: overrides.whatsappTuning ?? {} });
  const salesAgent = createSalesAgentModule({
    config,
    db,
    clock,
    logger,
    jobs,
    instagram,
    whatsapp,
    ...(overrides.salesAgentRandom ? { random: overrides.salesAgentRandom } : {}),
  });

  const invoicing = createInvoicingModule({
    config,
    db,
    clock,
    cipher,
    logger,
    jobs,
    findCustomer: (companyId, id) => customers.customers.findCustomer(companyId, id),
  });
  const accounts = createAccountsModule({ db, clock, publicBaseUrl: config.http.publicBaseUrl });
  const returns = createReturnsService({
    db,
    clock,
    creditRefund: (ctx, saleId, returnId) => invoicing.invoicing.creditRefund(ctx, saleId, returnId),
    sell: (ctx, key, input, options) => register.createSale(ctx, key, input, options),
    // A cashier's refund of money: an admin approves on the spot, as a discount beyond the limit.
    approver: (ctx, credentials, action) => auth.verifyAdminApproval(ctx, credentials, action),
  });
  const reports = createReportsModule({ db, clock, sales: register });

  const metrics = createMetrics({ db, jobs, logger });
  const readiness = createReadiness();

  let closed = false;
  return {
    config,
    logger,
    db,
    clock,
    cipher,
    jobs,
    metrics,
    readiness,
    companies,
    users,
    members,
    invitations,
    apiTokens,
    catalog,
    catalogImport,
    register,
    returns,
    customers,
    invoicing,
    accounts,
    reports,
    auth,
    settings,
    superadmin,
    webhooks,
    scanner,
    exchange,
    integration,
    instagram,
    salesAgent,
    whatsapp,
    async close() {
      if (closed) return;
      closed = true;
      await webhooks.close();
      await apiTokens.close();
      await instagram.close();
      await invoicing.close();
      await jobs.stop(config.shutdownTimeoutMs);
      await db.close();
    },
  };
}
