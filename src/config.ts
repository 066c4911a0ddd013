import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { normalizeCuit } from './lib/cuit.ts';

export type Role = 'web' | 'worker' | 'all';
const ROLES: readonly Role[] = ['web', 'worker', 'all'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  readonly role: Role;
  readonly http: {
    readonly port: number;
    readonly host: string;
    readonly publicBaseUrl: string;
    readonly isHttps: boolean;
    /** Which proxies' X-Forwarded-For to believe: false (none), a hop count, or addresses/CIDRs. */
    readonly trustProxy: boolean | number | readonly string[];
  };
  readonly db: {
    readonly kind: 'pglite' | 'postgres';
    /** Set when kind is 'postgres'. */
    readonly url: string | null;
    /** Where PGlite keeps its files and the generated secret key lives. */
    readonly dataDir: string;
    readonly poolMax: number;
    /** PostgreSQL: parallel workers one query of the app may use (max_parallel_workers_per_gather); 0 = none. */
    readonly parallelWorkers: number;
  };
  readonly secretKey: string;
  readonly auth: AuthConfig;
  readonly logLevel: LogLevel;
  readonly demo: { readonly seedOnEmpty: boolean };
  readonly integration: {
    /** How long a resolved integration key is trusted without asking the database (0: always ask). */
    readonly keyCacheTtlMs: number;
    /** Days inbound events are kept (the polling history and the idempotency window). */
    readonly retentionDays: number;
    /** sales.created batch statements running at once per process (PostgreSQL; PGlite runs one). */
    readonly batchConcurrency: number;
  };
  readonly shutdownTimeoutMs: number;
  /** On SIGTERM, how long a web process keeps serving while /readyz answers 503 (load balancers leave it). */
  readonly shutdownDrainMs: number;
  /** Port of a worker's /healthz, /readyz and /metrics (ROLE=worker; 0 picks a free one). */
  readonly workerPort: number;
  /** Bearer token /metrics requires; null leaves it open (it holds aggregate counts only). */
  readonly metricsToken: string | null;
  readonly webhooks: {
    /** Deliver to private, loopback and link-local addresses (tests, self-hosting on a LAN). */
    readonly allowPrivateTargets: boolean;
    /** Deliveries one worker process sends at once. */
    readonly concurrency: number;
  };
  readonly exchange: {
    /** A DolarAPI-compatible endpoint answering one quote object. */
    readonly sourceUrl: string;
    /** A configured rate (decimal string) served instead of any upstream; null when not set. */
    readonly fixedRate: string | null;
  };
  readonly scanner: {
    /** Lookups per minute per scanner token and client address; 0 turns the limit off. */
    readonly rateLimitPerMinute: number;
  };
  readonly instagram: InstagramConfig;
  readonly whatsapp: WhatsappConfig;
  readonly salesAgent: SalesAgentConfig;
  readonly arca: ArcaConfig;
}

/** Electronic invoicing with ARCA (docs/facturacion.md). */
export interface ArcaConfig {
  /**
   * The service's own certificate, for companies that delegate to it in ARCA: ARCA_CUIT,
   * ARCA_CERT_FILE and ARCA_KEY_FILE (PEM paths), all three or none.
   */
  readonly service: { readonly cuit: string; readonly certFile: string; readonly keyFile: string } | null;
  /** ARCA_WSAA_URL / ARCA_WSFE_URL: override both environments' endpoints (a local fake); null: ARCA's own. */
  readonly wsaaUrl: string | null;
  readonly wsfeUrl: string | null;
  /** ARCA_TIMEOUT_MS: every call to ARCA gives up after this long. */
  readonly timeoutMs: number;
  /**
   * ARCA_RECOVERY_PAUSE_MS: the first pause before asking ARCA again what became of a receipt whose
   * answer was lost; the next ones are 3, 6 and 12 times as long (250 ms: 250, 750, 1500, 3000).
   */
  readonly recoveryPauseMs: number;
  /**
   * ARCA_DEMO_FAKE: answer with the built-in fake ARCA (in this process) when neither endpoints nor
   * a service certificate are set. On by default with the demo seed, so the demo company invoices.
   */
  readonly demoFake: boolean;
}

/** The automatic sales-reply agent on the operator inbox (docs/operador/agente-de-ventas.md). */
export interface SalesAgentConfig {
  /** SALES_AGENT_ENABLED: off by default; off means no claim, no reply and no log row. */
  readonly enabled: boolean;
  /** SALES_AGENT_ACCOUNT_ID: the one connected Instagram account it answers for. */
  readonly accountId: string | null;
  /** SALES_AGENT_SENDER_IDS: the Instagram ids (IGSID) of the people it answers; anyone else is skipped. */
  readonly senderIds: readonly string[];
  /** SALES_AGENT_WHATSAPP_NUMBER_ID: the WhatsApp phone number id it answers for (issue 31). */
  readonly whatsappNumberId: string | null;
  /** SALES_AGENT_WHATSAPP_SENDER_IDS: the WhatsApp numbers (wa_id, digits) of the people it answers there. */
  readonly whatsappSenderIds: readonly string[];
  /** An OpenAI-compatible chat endpoint; null: the deterministic rules answer. */
  readonly llm: {
    readonly baseUrl: string;
    readonly apiKey: string | null;
    readonly model: string;
    readonly timeoutMs: number;
  } | null;
}

/** The operator channel on WhatsApp (the service's own number, docs/operador/whatsapp.md). */
export interface WhatsappConfig {
  /** Secrets a webhook signature may use: WHATSAPP_APP_SECRET and META_APP_SECRET (none: fail-closed). */
  readonly webhookSecrets: readonly string[];
  /** WHATSAPP_VERIFY_TOKEN: the hub.verify_token of the subscription (none: verification refused). */
  readonly verifyToken: string | null;
  /** WHATSAPP_SEND_ENABLED: only true, 1 or yes (any case) turn it on. */
  readonly sendEnabled: boolean;
  /** WHATSAPP_GRAPH_URL with WHATSAPP_GRAPH_VERSION: https://graph.facebook.com/v23.0 by default. */
  readonly graphUrl: string;
}

/** The operator channel (the service's own Instagram account, docs/operador/instagram.md). */
export interface InstagramConfig {
  /** False without INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET: the channel is not configured. */
  readonly configured: boolean;
  readonly appId: string | null;
  readonly appSecret: string | null;
  /** Secret of the code and long-lived exchanges: INSTAGRAM_TOKEN_EXCHANGE_SECRET, else the app secret. */
  readonly tokenExchangeSecret: string | null;
  /** Secrets a Meta webhook signature may use: the app secret and META_APP_SECRET. */
  readonly webhookSecrets: readonly string[];
  readonly verifyToken: string | null;
  readonly channelsConsumerSecret: string | null;
  /** INSTAGRAM_SEND_ENABLED: only true, 1 or yes (any case) turn it on. */
  readonly sendEnabled: boolean;
  readonly cronSecret: string | null;
  readonly authorizeUrl: string;
  readonly apiUrl: string;
  readonly graphUrl: string;
}

export interface AuthConfig {
  /** Lifetime of a session; each use pushes the end this far out again. */
  readonly sessionTtlHours: number;
  /** Login attempts allowed per account and per client within one window. */
  readonly loginLimitPerAccount: number;
  readonly loginLimitPerClient: number;
  readonly loginWindowSeconds: number;
  /** External identity provider whose JWTs are accepted as sessions (null: only our own sessions). */
  readonly jwks: { readonly url: string; readonly issuer: string; readonly audience: string | null } | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Reads a `.env` file into the environment without overriding what is already set. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

/**
 * The only reader of the environment. Validates every key at once and throws a ConfigError
 * listing each bad one. With the embedded database and no SECRET_KEY, a key is generated once
 * and kept in DATA_DIR so restarts can still decrypt what was stored.
 */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const str = (key: string) => {
    const value = env[key]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const int = (key: string, fallback: number, min: number, max: number) => {
    const raw = str(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${key} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const bool = (key: string, fallback: boolean) => {
    const raw = str(key)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(raw)) return true;
    if (['false', '0', 'no', 'off'].includes(raw)) return false;
    problems.push(`${key} must be true or false (got "${raw}")`);
    return fallback;
  };
  const oneOf = <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
    const raw = str(key);
    if (raw === undefined) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${key} must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  };

  const role = oneOf('ROLE', ROLES, 'all');
  const port = int('PORT', 3000, 0, 65535);
  const host = str('HOST') ?? '0.0.0.0';
  const publicBaseUrl = (str('PUBLIC_BASE_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  let isHttps = false;
  try {
    const url = new URL(publicBaseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    isHttps = url.protocol === 'https:';
  } catch {
    problems.push(`PUBLIC_BASE_URL must be an http(s) URL (got "${publicBaseUrl}")`);
  }

  const databaseUrl = str('DATABASE_URL') ?? null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const dataDir = resolve(str('DATA_DIR') ?? './data');
  const poolMax = int('DB_POOL_MAX', 10, 1, 200);
  const parallelWorkers = int('DB_PARALLEL_WORKERS', 0, 0, 64);
  const logLevel = oneOf('LOG_LEVEL', LOG_LEVELS, 'info');
  const shutdownTimeoutMs = int('SHUTDOWN_TIMEOUT_MS', 8000, 100, 60000);
  const shutdownDrainMs = int('SHUTDOWN_DRAIN_MS', 3000, 0, 60000);
  if (shutdownDrainMs >= shutdownTimeoutMs) {
    problems.push(`SHUTDOWN_DRAIN_MS must be less than SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs}) (got "${shutdownDrainMs}")`);
  }
  const workerPort = int('WORKER_PORT', 3001, 0, 65535);
  const metricsToken = str('METRICS_TOKEN') ?? null;
  if (metricsToken !== null && metricsToken.length < 16) problems.push('METRICS_TOKEN must be at least 16 characters');
  const seedOnEmpty = bool('DEMO_SEED', databaseUrl === null);
  const allowPrivateTargets = bool('ALLOW_PRIVATE_WEBHOOK_TARGETS', false);
  const webhookConcurrency = int('WEBHOOK_CONCURRENCY', 16, 1, 256);
  const exchangeSourceUrl = str('EXCHANGE_SOURCE_URL') ?? 'https://dolarapi.com/v1/dolares/oficial';
  if (!isHttpUrl(exchangeSourceUrl)) problems.push(`EXCHANGE_SOURCE_URL must be an http(s) URL (got "${exchangeSourceUrl}")`);
  const fixedRate = str('EXCHANGE_RATE_FIXED') ?? null;
  if (fixedRate !== null && !(/^\d{1,10}(\.\d{1,4})?$/.test(fixedRate) && Number(fixedRate) > 0)) {
    problems.push(`EXCHANGE_RATE_FIXED must be a positive decimal like 1160.50 (got "${fixedRate}")`);
  }
  const scannerRateLimit = int('SCANNER_RATE_LIMIT_PER_MINUTE', 120, 0, 1_000_000);
  const keyCacheTtlMs = int('INTEGRATION_KEY_CACHE_TTL_MS', 5000, 0, 60000);
  const retentionDays = int('INTEGRATION_RETENTION_DAYS', 90, 1, 3650);
  const batchConcurrency = int('INGEST_BATCH_CONCURRENCY', 2, 1, 200);

  let secretKey = str('SECRET_KEY');
  if (secretKey !== undefined && secretKey.length < 32) {
    problems.push('SECRET_KEY must be at least 32 characters (for example: openssl rand -base64 48)');
  }
  if (secretKey === undefined && databaseUrl !== null) {
    problems.push('SECRET_KEY is required when DATABASE_URL is set');
  }

  const auth = readAuthConfig(str, int, problems);

  const trustProxy = readTrustProxy(str('TRUST_PROXY'), problems);
  const instagram = readInstagramConfig(str, problems);
  const whatsapp = readWhatsappConfig(str, problems);
  const salesAgent = readSalesAgentConfig(str, int, problems);
  const arca = readArcaConfig(str, int, bool, seedOnEmpty, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  if (secretKey === undefined) secretKey = readOrCreateSecretKey(dataDir);

  return deepFreeze({
    role,
    http: { port, host, publicBaseUrl, isHttps, trustProxy },
    db: { kind: databaseUrl === null ? 'pglite' : 'postgres', url: databaseUrl, dataDir, poolMax, parallelWorkers },
    secretKey,
    auth,
    logLevel,
    demo: { seedOnEmpty },
    integration: { keyCacheTtlMs, retentionDays, batchConcurrency },
    shutdownTimeoutMs,
    shutdownDrainMs,
    workerPort,
    metricsToken,
    webhooks: { allowPrivateTargets, concurrency: webhookConcurrency },
    exchange: { sourceUrl: exchangeSourceUrl, fixedRate },
    scanner: { rateLimitPerMinute: scannerRateLimit },
    instagram,
    whatsapp,
    salesAgent,
    arca,
  } satisfies Config);
}

function readAuthConfig(
  str: (key: string) => string | undefined,
  int: (key: string, fallback: number, min: number, max: number) => number,
  problems: string[],
): AuthConfig {
  const jwksUrl = str('AUTH_JWKS_URL');
  const issuer = str('AUTH_JWT_ISSUER');
  const audience = str('AUTH_JWT_AUDIENCE') ?? null;
  if (jwksUrl !== undefined) {
    try {
      const url = new URL(jwksUrl);
      const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new Error('protocol');
    } catch {
      problems.push(`AUTH_JWKS_URL must be an https URL (http only on localhost) (got "${jwksUrl}")`);
    }
    if (issuer === undefined) problems.push('AUTH_JWT_ISSUER is required when AUTH_JWKS_URL is set');
  } else if (issuer !== undefined || audience !== null) {
    problems.push('AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE only apply together with AUTH_JWKS_URL');
  }
  return {
    sessionTtlHours: int('AUTH_SESSION_TTL_HOURS', 12, 1, 168),
    loginLimitPerAccount: int('AUTH_LOGIN_LIMIT_PER_ACCOUNT', 5, 1, 1000),
    loginLimitPerClient: int('AUTH_LOGIN_LIMIT_PER_CLIENT', 30, 1, 10000),
    loginWindowSeconds: int('AUTH_LOGIN_WINDOW_SECONDS', 900, 1, 86400),
    jwks: jwksUrl !== undefined && issuer !== undefined ? { url: jwksUrl, issuer, audience } : null,
  };
}

function readWhatsappConfig(str: (key: string) => string | undefined, problems: string[]): WhatsappConfig {
  const base = str('WHATSAPP_GRAPH_URL') ?? 'https://graph.facebook.com';
  if (!isHttpUrl(base)) problems.push(`WHATSAPP_GRAPH_URL must be an http(s) URL (got "${base}")`);
  const version = str('WHATSAPP_GRAPH_VERSION') ?? 'v23.0';
  if (!/^v\d{1,3}\.\d{1,3}$/.test(version)) problems.push(`WHATSAPP_GRAPH_VERSION must look like v23.0 (got "${version}")`);
  return {
    webhookSecrets: [str('WHATSAPP_APP_SECRET'), str('META_APP_SECRET')].filter((s): s is string => s !== undefined),
    verifyToken: str('WHATSAPP_VERIFY_TOKEN') ?? null,
    // The same accepted values as INSTAGRAM_SEND_ENABLED: anything else is off.
    sendEnabled: ['true', '1', 'yes'].includes(str('WHATSAPP_SEND_ENABLED')?.toLowerCase() ?? ''),
    graphUrl: `${base.replace(/\/+$/, '')}/${version}`,
  };
}

function readInstagramConfig(str: (key: string) => string | undefined, problems: string[]): InstagramConfig {
  const appId = str('INSTAGRAM_APP_ID') ?? null;
  const appSecret = str('INSTAGRAM_APP_SECRET') ?? null;
  if (appId !== null && !/^\d{1,30}$/.test(appId))
    problems.push(`INSTAGRAM_APP_ID must be the numeric Instagram app id (got "${appId}")`);
  if ((appId === null) !== (appSecret === null)) {
    problems.push('INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET go together: set both or neither');
  }
  const metaSecret = str('META_APP_SECRET') ?? null;
  const hosts = {
    authorizeUrl: str('INSTAGRAM_AUTHORIZE_URL') ?? 'https://www.instagram.com/oauth/authorize',
    apiUrl: str('INSTAGRAM_API_URL') ?? 'https://api.instagram.com',
    graphUrl: str('INSTAGRAM_GRAPH_URL') ?? 'https://graph.instagram.com',
  };
  for (const [key, value] of [
    ['INSTAGRAM_AUTHORIZE_URL', hosts.authorizeUrl],
    ['INSTAGRAM_API_URL', hosts.apiUrl],
    ['INSTAGRAM_GRAPH_URL', hosts.graphUrl],
  ] as const) {
    if (!isHttpUrl(value)) problems.push(`${key} must be an http(s) URL (got "${value}")`);
  }
  return {
    configured: appId !== null && appSecret !== null,
    appId,
    appSecret,
    tokenExchangeSecret: str('INSTAGRAM_TOKEN_EXCHANGE_SECRET') ?? appSecret,
    webhookSecrets: [appSecret, metaSecret].filter((s): s is string => s !== null),
    verifyToken: str('INSTAGRAM_VERIFY_TOKEN') ?? null,
    channelsConsumerSecret: str('CHANNELS_CONSUMER_SECRET') ?? null,
    // Not the strict boolean reader: the contract says any value other than true/1/yes is off.
    sendEnabled: ['true', '1', 'yes'].includes(str('INSTAGRAM_SEND_ENABLED')?.toLowerCase() ?? ''),
    cronSecret: str('CRON_SECRET') ?? null,
    authorizeUrl: hosts.authorizeUrl,
    apiUrl: hosts.apiUrl.replace(/\/+$/, ''),
    graphUrl: hosts.graphUrl.replace(/\/+$/, ''),
  };
}

function readSalesAgentConfig(
  str: (key: string) => string | undefined,
  int: (key: string, fallback: number, min: number, max: number) => number,
  problems: string[],
): SalesAgentConfig {
  const enabled = ['true', '1', 'yes'].includes(str('SALES_AGENT_ENABLED')?.toLowerCase() ?? '');
  const accountId = str('SALES_AGENT_ACCOUNT_ID') ?? null;
  if (accountId !== null && !/^\d{1,30}$/.test(accountId))
    problems.push(`SALES_AGENT_ACCOUNT_ID must be the numeric Instagram account id (got "${accountId}")`);
  const senderIds = (str('SALES_AGENT_SENDER_IDS') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const id of senderIds)
    if (!/^\d{1,30}$/.test(id))
      problems.push(`SALES_AGENT_SENDER_IDS must be numeric Instagram ids separated by commas (got "${id}")`);
  const whatsappNumberId = str('SALES_AGENT_WHATSAPP_NUMBER_ID') ?? null;
  if (whatsappNumberId !== null && !/^\d{1,30}$/.test(whatsappNumberId))
    problems.push(`SALES_AGENT_WHATSAPP_NUMBER_ID must be the numeric WhatsApp phone number id (got "${whatsappNumberId}")`);
  const whatsappSenderIds = (str('SALES_AGENT_WHATSAPP_SENDER_IDS') ?? '')
    .split(',')
    .map((part) => part.trim().replace(/^\+/, ''))
    .filter(Boolean);
  for (const id of whatsappSenderIds)
    if (!/^\d{6,20}$/.test(id))
      problems.push(`SALES_AGENT_WHATSAPP_SENDER_IDS must be WhatsApp numbers (digits) separated by commas (got "${id}")`);
  if ((whatsappNumberId === null) !== (whatsappSenderIds.length === 0))
    problems.push('SALES_AGENT_WHATSAPP_NUMBER_ID and SALES_AGENT_WHATSAPP_SENDER_IDS go together: set both or neither');
  const instagramSet = accountId !== null && senderIds.length > 0;
  if (enabled && !instagramSet && whatsappNumberId === null)
    problems.push(
      'SALES_AGENT_ENABLED needs SALES_AGENT_ACCOUNT_ID and SALES_AGENT_SENDER_IDS (Instagram) or SALES_AGENT_WHATSAPP_NUMBER_ID and SALES_AGENT_WHATSAPP_SENDER_IDS',
    );
  const baseUrl = str('LLM_BASE_URL') ?? null;
  const model = str('LLM_MODEL') ?? null;
  if (baseUrl !== null && !isHttpUrl(baseUrl)) problems.push(`LLM_BASE_URL must be an http(s) URL (got "${baseUrl}")`);
  if ((baseUrl === null) !== (model === null)) problems.push('LLM_BASE_URL and LLM_MODEL go together: set both or neither');
  const timeoutMs = int('LLM_TIMEOUT_MS', 8000, 500, 60000);
  return {
    enabled,
    accountId,
    senderIds,
    whatsappNumberId,
    whatsappSenderIds,
    llm:
      baseUrl !== null && model !== null
        ? { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: str('LLM_API_KEY') ?? null, model, timeoutMs }
        : null,
  };
}

function readArcaConfig(
  str: (key: string) => string | undefined,
  int: (key: string, fallback: number, min: number, max: number) => number,
  bool: (key: string, fallback: boolean) => boolean,
  demoSeed: boolean,
  problems: string[],
): ArcaConfig {
  const cuit = str('ARCA_CUIT');
  const certFile = str('ARCA_CERT_FILE');
  const keyFile = str('ARCA_KEY_FILE');
  const given = [cuit, certFile, keyFile].filter((v) => v !== undefined).length;
  if (given !== 0 && given !== 3) problems.push('ARCA_CUIT, ARCA_CERT_FILE and ARCA_KEY_FILE go together: set all three or none');
  if (cuit !== undefined && normalizeCuit(cuit) === null)
    problems.push(`ARCA_CUIT must be a valid 11-digit CUIT (got "${cuit}")`);
  for (const [key, file] of [
    ['ARCA_CERT_FILE', certFile],
    ['ARCA_KEY_FILE', keyFile],
  ] as const) {
    if (file !== undefined && !existsSync(file)) problems.push(`${key} points to a file that does not exist (${file})`);
  }
  const wsaaUrl = str('ARCA_WSAA_URL') ?? null;
  const wsfeUrl = str('ARCA_WSFE_URL') ?? null;
  for (const [key, url] of [
    ['ARCA_WSAA_URL', wsaaUrl],
    ['ARCA_WSFE_URL', wsfeUrl],
  ] as const) {
    if (url !== null && !isHttpUrl(url)) problems.push(`${key} must be an http(s) URL (got "${url}")`);
  }
  const timeoutMs = int('ARCA_TIMEOUT_MS', 20000, 500, 120000);
  const recoveryPauseMs = int('ARCA_RECOVERY_PAUSE_MS', 250, 1, 10000);
  const configured = given === 3 || wsaaUrl !== null || wsfeUrl !== null;
  const demoFake = bool('ARCA_DEMO_FAKE', demoSeed && !configured);
  return {
    service: given === 3 ? { cuit: normalizeCuit(cuit!)!, certFile: resolve(certFile!), keyFile: resolve(keyFile!) } : null,
    wsaaUrl,
    wsfeUrl,
    timeoutMs,
    recoveryPauseMs,
    demoFake,
  };
}

/** TRUST_PROXY: unset/false, true, a hop count, or a comma list of proxy addresses or CIDRs. */
function readTrustProxy(raw: string | undefined, problems: string[]): boolean | number | string[] {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const list = raw.split(',').map((part) => part.trim());
  if (list.every((part) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(part))) return list;
  problems.push(`TRUST_PROXY must be true, false, a hop count or a comma list of addresses/CIDRs (got "${raw}")`);
  return false;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function readOrCreateSecretKey(dataDir: string): string {
  const path = resolve(dataDir, 'secret.key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(48).toString('base64url');
  writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
