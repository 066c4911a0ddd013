import { readFileSync } from 'node:fs';
import type { ArcaConfig } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { FiscalEnvironment } from '../../db/schema/index.ts';
import type { Logger } from '../../logger.ts';
import { getAccessTicket } from '../arca/tickets.ts';
import { createWsfeClient, type WsfeAuth } from '../arca/wsfe.ts';
import { DEMO_SERVICE_CUIT, type DemoArca, startDemoArca } from './demo-arca.ts';

/** The pauses of a lost answer's recovery, as multiples of ARCA_RECOVERY_PAUSE_MS (250, 750, 1500, 3000 ms by default). */
const RECOVERY_STEPS = [1, 3, 6, 12];

/** The pauses between asking ARCA what became of a receipt whose answer was lost, the first one `firstMs`. */
export function recoveryPauses(firstMs: number): number[] {
  return RECOVERY_STEPS.map((times) => times * firstMs);
}

/** ARCA's own endpoints per environment (WSAA LoginCms and WSFEv1). */
export const ARCA_ENDPOINTS: Record<FiscalEnvironment, { wsaaUrl: string; wsfeUrl: string }> = {
  homologacion: {
    wsaaUrl: 'https://wsaahomo.afip.gov.ar/ws/services/LoginCms',
    wsfeUrl: 'https://wswhomo.afip.gov.ar/wsfev1/service.asmx',
  },
  produccion: {
    wsaaUrl: 'https://wsaa.afip.gov.ar/ws/services/LoginCms',
    wsfeUrl: 'https://servicios1.afip.gov.ar/wsfev1/service.asmx',
  },
};

export interface ArcaCredentials {
  /** The company's CUIT: Auth.Cuit of every WSFEv1 call. */
  cuit: string;
  environment: FiscalEnvironment;
  certPem: string;
  keyPem: string;
}

export interface ArcaSession {
  readonly wsfe: ReturnType<typeof createWsfeClient>;
  /** A valid access ticket for this certificate (stored, shared across processes, refreshed with a margin). */
  auth(): Promise<WsfeAuth>;
}

export type ArcaAccess = ReturnType<typeof createArcaAccess>;

/**
 * Where and as whom Mostrador talks to ARCA: the endpoints (ARCA's per environment, or the
 * ARCA_WSAA_URL/ARCA_WSFE_URL override, or the built-in demo fake), the service's own certificate
 * for companies that delegate to it, and a WSFEv1 session per company.
 */
export function createArcaAccess({
  config,
  db,
  logger,
  dataDir,
}: {
  config: ArcaConfig;
  db: Database;
  logger: Logger;
  dataDir: string;
}) {
  let demo: Promise<DemoArca> | null = null;
  const demoArca = () => {
    demo ??= startDemoArca({ dataDir, logger });
    return demo;
  };
  let serviceCredentials: { cuit: string; certPem: string; keyPem: string } | null = null;
  const demoFakeInUse = () => config.demoFake && !config.wsaaUrl && !config.wsfeUrl;

  async function endpoints(environment: FiscalEnvironment) {
    if (demoFakeInUse()) {
      const fake = await demoArca();
      return { wsaaUrl: fake.wsaaUrl, wsfeUrl: fake.wsfeUrl };
    }
    const own = ARCA_ENDPOINTS[environment];
    return { wsaaUrl: config.wsaaUrl ?? own.wsaaUrl, wsfeUrl: config.wsfeUrl ?? own.wsfeUrl };
  }

  return {
    timeoutMs: config.timeoutMs,
    /** The pauses between asking ARCA what became of a receipt whose answer was lost (ARCA_RECOVERY_PAUSE_MS). */
    recoveryPausesMs: recoveryPauses(config.recoveryPauseMs),
    /** True when this process answers for ARCA with its built-in fake (ARCA_DEMO_FAKE, no endpoints given). */
    get demoFakeInUse() {
      return demoFakeInUse();
    },
    /** True when delegation is possible: the service has a certificate (its own, or the demo's). */
    get delegationAvailable() {
      return config.service !== null || config.demoFake;
    },
    /** The CUIT companies delegate to (shown in the delegation steps); null when none is set. */
    async serviceCuit(): Promise<string | null> {
      if (config.service) return config.service.cuit;
      // The demo's CUIT is fixed: showing it does not start the fake.
      if (config.demoFake) return DEMO_SERVICE_CUIT;
      return null;
    },
    /** The service's certificate and key (files read once), or the demo's generated pair. */
    async serviceCertificate(): Promise<{ cuit: string; certPem: string; keyPem: string } | null> {
      if (serviceCredentials) return serviceCredentials;
      if (config.service) {
        serviceCredentials = {
          cuit: config.service.cuit,
          certPem: readFileSync(config.service.certFile, 'utf8'),
          keyPem: readFileSync(config.service.keyFile, 'utf8'),
        };
        return serviceCredentials;
      }
      if (config.demoFake) {
        const fake = await demoArca();
        serviceCredentials = { cuit: fake.serviceCuit, certPem: fake.certPem, keyPem: fake.keyPem };
        return serviceCredentials;
      }
      return null;
    },
    endpoints,
    async session(credentials: ArcaCredentials): Promise<ArcaSession> {
      const { wsaaUrl, wsfeUrl } = await endpoints(credentials.environment);
      const wsfe = createWsfeClient({ url: wsfeUrl, timeoutMs: config.timeoutMs });
      return {
        wsfe,
        async auth() {
          const ticket = await getAccessTicket(db, {
            certPem: credentials.certPem,
            keyPem: credentials.keyPem,
            service: 'wsfe',
            wsaaUrl,
            timeoutMs: config.timeoutMs,
          });
          return { token: ticket.token, sign: ticket.sign, cuit: credentials.cuit };
        },
      };
    },
    async close() {
      if (demo) await (await demo).close();
    },
  };
}
