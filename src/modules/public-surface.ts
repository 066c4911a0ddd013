import type { App } from '../app.ts';
import type { Container } from '../container.ts';
import { registerDocsRoutes } from './docs/docs.routes.ts';
import { registerExchangeRoutes } from './exchange/exchange.routes.ts';
import { registerKioskPage } from './scanner/kiosk.routes.ts';
import { registerScannerApi } from './scanner/scanner.routes.ts';

/** Everything reachable without a merchant login: scanner, kiosk, exchange rate, docs, llms files, OpenAPI. */
export function registerPublicSurface(app: App, container: Container) {
  registerScannerApi(app, container.scanner);
  registerKioskPage(app, container.scanner);
  registerExchangeRoutes(app, container.exchange);
  registerDocsRoutes(app, container);
}
