import type { Container } from '../container.ts';
import { registerAccountRoutes, registerAuthPublicRoutes } from '../modules/auth/auth.routes.ts';
import { registerDocsRoutes } from '../modules/docs/docs.routes.ts';
import { registerExchangeRoutes } from '../modules/exchange/exchange.routes.ts';
import { integrationGuard, registerIntegrationRoutes } from '../modules/integration/integration.routes.ts';
import {
  cronGuard,
  registerInstagramCronRoutes,
  registerInstagramOperatorRoutes,
  registerInstagramWebhookRoutes,
} from '../modules/instagram/instagram.routes.ts';
import { registerCatalogPages } from '../modules/catalog/catalog.pages.ts';
import { registerCatalogRoutes } from '../modules/catalog/catalog.routes.ts';
import { registerInstagramInboxPage } from '../modules/instagram/inbox.page.ts';
import { registerKioskPage } from '../modules/scanner/kiosk.routes.ts';
import { registerScaleSettingsRoutes } from '../modules/scanner/scale-settings.routes.ts';
import { scannerGuard } from '../modules/scanner/scanner.guard.ts';
import { registerScannerApi } from '../modules/scanner/scanner.routes.ts';
import { registerSettingsRoutes } from '../modules/settings/settings.routes.ts';
import { registerInvitationAccountRoutes, registerInvitationPublicRoutes } from '../modules/users/invitations.routes.ts';
import { registerSuperadminRoutes } from '../modules/superadmin/superadmin.routes.ts';
import { registerSalesAgentCronRoutes, registerSalesAgentRoutes } from '../modules/sales-agent/sales-agent.routes.ts';
import { registerWebhookRoutes } from '../modules/webhooks/webhooks.routes.ts';
import { registerWhatsappInboxPage } from '../modules/whatsapp/inbox.page.ts';
import { registerWhatsappOperatorRoutes, registerWhatsappWebhookRoutes } from '../modules/whatsapp/whatsapp.routes.ts';
import type { App } from './app.types.ts';
import { type AssetCatalog, registerAssetRoutes } from './assets.ts';
import { sessionGuard } from './auth-guard.ts';
import { merchantGuard } from './merchant-guard.ts';
import { registerApiTokenRoutes } from '../modules/api-tokens/api-tokens.routes.ts';
import { registerRegisterPage, registerSalesPages } from '../modules/register/register.pages.ts';
import { registerRegisterRoutes } from '../modules/register/register.routes.ts';
import { registerReturnsRoutes } from '../modules/sales/returns.routes.ts';
import { registerFiscalSettingsPage, registerInvoicePrintPage } from '../modules/invoicing/invoicing.pages.ts';
import { registerInvoicingRoutes } from '../modules/invoicing/invoicing.routes.ts';
import { registerCustomerRoutes } from '../modules/customers/customers.routes.ts';
import { registerCustomerPages } from '../modules/customers/customers.pages.ts';
import { registerReportsPages } from '../modules/reports/reports.pages.ts';
import { registerReportsRoutes } from '../modules/reports/reports.routes.ts';
import { registerRegisterWorker } from '../modules/register/register.worker.ts';
import { registerMetricsRoutes } from '../metrics/metrics.routes.ts';
import {
  registerAccountsPage,
  registerSharedStatementPage,
  registerStatementPrintPage,
} from '../modules/accounts/accounts.pages.ts';
import { registerAccountsRoutes } from '../modules/accounts/accounts.routes.ts';
import { registerHealthRoutes } from './health.routes.ts';
import { createShell } from './shell.ts';
import { registerSurface } from './surfaces.ts';

/**
 * Every route of the application, by surface: where a route is registered decides who may call it
 * (src/http/surfaces.ts). Each registrar receives the services it uses, not the container.
 */
export async function registerRoutes(app: App, container: Container, assets: AssetCatalog) {
  const { auth, users, members, invitations, config, settings, superadmin, webhooks, scanner, exchange, integration, logger } =
    container;
  const shell = createShell({ assets, auth });
  const accounts = { auth, users, config, shell };
  const sessions = { auth, config, refusedPage: shell.refused };

  await registerSurface(app, 'public', {}, (scope) => {
    registerHealthRoutes(scope, container);
    registerMetricsRoutes(scope, container);
    registerAssetRoutes(scope, assets);
    registerAuthPublicRoutes(scope, accounts);
    registerInvitationPublicRoutes(scope, { auth, invitations, config, shell });
    // The kiosk page checks its token itself: a wrong one gets a page that says so, not JSON.
    registerKioskPage(scope, scanner, assets);
    registerExchangeRoutes(scope, exchange);
    registerRegisterWorker(scope);
    registerDocsRoutes(scope, { logger, baseUrl: config.http.publicBaseUrl, assets });
    // A shared statement: its unguessable, expiring token is the only key (no login).
    registerSharedStatementPage(scope, { accounts: container.accounts.accounts, assets });
  });

  await registerSurface(app, 'integration', integrationGuard(integration), (scope) =>
    registerIntegrationRoutes(scope, integration, container.metrics),
  );

  await registerSurface(app, 'scanner', scannerGuard(scanner), (scope) => registerScannerApi(scope, scanner));

  // Meta's webhook and the channel hub: each POST is verified by its HMAC over the exact raw bytes in
  // the route's own raw-body scope (the signature needs the body), each GET by the verify token.
  await registerSurface(app, 'channel-webhook', {}, (scope) => {
    registerInstagramWebhookRoutes(scope, container);
    registerWhatsappWebhookRoutes(scope, container);
  });

  await registerSurface(app, 'cron', cronGuard(container), (scope) => {
    registerInstagramCronRoutes(scope, container);
    registerSalesAgentCronRoutes(scope, container);
  });

  await registerSurface(app, 'session', sessionGuard('session', sessions), (scope) => {
    registerAccountRoutes(scope, accounts);
    registerInvitationAccountRoutes(scope, { auth, invitations });
  });

  // Company members, admins and cashiers alike: the register and the back office's read screens come here.
  await registerSurface(app, 'member', sessionGuard('member', sessions), (scope) => {
    registerRegisterPage(scope, { register: container.register, shell });
    registerInvoicePrintPage(scope, { ...container.invoicing, assets });
    registerStatementPrintPage(scope, { accounts: container.accounts.accounts, assets });
  });

  await registerSurface(app, 'admin', sessionGuard('admin', sessions), (scope) => {
    registerSettingsRoutes(scope, { settings, endpoints: webhooks.endpoints, members, invitations, shell });
    registerWebhookRoutes(scope, webhooks);
    registerSalesPages(scope, { register: container.register, shell });
    registerScaleSettingsRoutes(scope, { db: container.db, scanner, shell });
    registerCatalogPages(scope, { catalog: container.catalog, tokens: container.apiTokens, shell });
    registerFiscalSettingsPage(scope, { fiscal: container.invoicing.fiscal, shell });
    registerCustomerPages(scope, { customers: container.customers, shell });
    registerAccountsPage(scope, { accounts: container.accounts.accounts, shell });
    registerReportsPages(scope, { ...container.reports, shell });
  });

  // The merchant API (/api/v1): a company API token or the session; each route declares its access.
  await registerSurface(app, 'merchant', merchantGuard({ auth, config, tokens: container.apiTokens }), (scope) => {
    registerApiTokenRoutes(scope, { tokens: container.apiTokens, companies: container.companies });
    registerRegisterRoutes(scope, { register: container.register, creditCancelled: container.returns.creditCancelled });
    registerReturnsRoutes(scope, { returns: container.returns });
    registerCatalogRoutes(scope, { catalog: container.catalog, imports: container.catalogImport });
    registerCustomerRoutes(scope, container.customers);
    registerInvoicingRoutes(scope, container.invoicing);
    registerAccountsRoutes(scope, container.accounts);
    registerReportsRoutes(scope, container.reports);
  });

  await registerSurface(app, 'superadmin', sessionGuard('superadmin', sessions), (scope) => {
    registerInstagramOperatorRoutes(scope, { instagram: container.instagram, shell });
    registerWhatsappOperatorRoutes(scope, container);
    registerInstagramInboxPage(scope, { instagram: container.instagram, shell });
    registerWhatsappInboxPage(scope, { whatsapp: container.whatsapp, shell });
    registerSalesAgentRoutes(scope, { salesAgent: container.salesAgent, shell });
    registerSuperadminRoutes(scope, { superadmin, settings, members, invitations, shell });
  });
}
