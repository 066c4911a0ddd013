import { createHash, randomBytes, randomInt, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { verifyLoginCms } from '../cms.ts';
import { list, type Node, obj, parseXml, text, xmlEscape } from '../soap.ts';
import { addDays as addCaeaDays, fortnightRange, requestWindow, validFortnight } from '../caea-period.ts';
import { arcaDate, arcaTime, argentinaIso } from '../time.ts';

/**
 * A fake ARCA for tests, the demo and `npm run fake:arca`: WSAA (LoginCms) and WSFEv1
 * (service.asmx) over HTTP with ARCA's envelopes, namespaces and statuses (research wire samples).
 * It checks the CMS signature and the request times, keeps tickets, numbers receipts per (CUIT,
 * point of sale, type), applies the FECAESolicitar rules that bite, answers 502 to a second
 * concurrent request of the same series, and can be told to reject, delay, fail or drop.
 */

const cents = (value: unknown) => Math.round(Number(text(value) || '0') * 100);

export interface FakeReceipt {
  cuit: string;
  pointOfSale: number;
  type: number;
  number: number;
  concept: number;
  docType: number;
  docNumber: string;
  date: string;
  total: string;
  untaxed: string;
  net: string;
  exempt: string;
  otherTaxes: string;
  iva: string;
  ivaLines: { id: number; base: string; amount: string }[];
  currency: string;
  rate: string;
  cae: string;
  caeExpiry: string;
  processedAt: string;
  /** How it was authorised: CAE (FECAESolicitar) or CAEA (informed with FECAEARegInformativo). */
  emission?: 'CAE' | 'CAEA';
  /** CbteFchHsGen of a CAEA receipt. */
  generatedAt?: string;
}

export interface FakeCaea {
  cuit: string;
  period: number;
  order: 1 | 2;
  caea: string;
  from: string;
  to: string;
  deadline: string;
  processedAt: string;
}

interface Ticket {
  token: string;
  sign: string;
  fingerprint: string;
  expiresAt: number;
}

interface State {
  tickets: Ticket[];
  /** Last successful login per certificate fingerprint + service: when, and until when it is valid. */
  logins: Record<string, { at: number; expiresAt: number }>;
  receipts: FakeReceipt[];
  pointsOfSale: Record<string, number[]>;
  represented: Record<string, string[]>;
  /** Granted CAEAs, per CUIT and fortnight. */
  caeas: FakeCaea[];
  /** Points of sale of type "CAEA … Contingencias" per CUIT (none unless set). */
  caeaPoints: Record<string, number[]>;
  /** CUITs ARCA does not let request a CAEA (15001: not an "autoimpresor"). */
  caeaDenied: string[];
  noMovement: { cuit: string; caea: string; pointOfSale: number; processedAt: string }[];
}

export type RejectableCode = 10016 | 10242 | 10243 | 10246 | 10048;

export interface FakeArcaOptions {
  /** Keep tickets and receipts in this JSON file (the demo), so a restart keeps the numbering. */
  stateFile?: string;
  /** WSAA's "preventive window" for a repeated login: 10 minutes in homologation. */
  alreadyAuthenticatedWindowMs?: number;
  /** Ticket lifetime: 12 hours. */
  ticketLifetimeMs?: number;
  /**
   * Days after a fortnight's end until FchTopeInf (the deadline to inform its receipts). ARCA's
   * number is not confirmed by the research (8 and 30 are both cited); the fake uses 8 unless told.
   */
  caeaInformDays?: number;
  now?: () => Date;
}

const MESSAGES: Record<number, string> = {
  500: 'Error interno de aplicación.',
  502: 'Error interno de base de datos - Autorizador CAE. Transacción Activa',
  600: 'ValidacionDeToken: No validaron las fechas del token GenTime, ExpTime, NowUTC: token inválido o vencido',
  601: 'CUIT representada no incluida en Token',
  602: 'No existen datos en nuestros registros para los parametros ingresados.',
  10004: 'Campo <PtoVta> debe estar comprendido entre 1 y 99998.',
  10005: 'El punto de venta informado debe estar dado de alta y ser del tipo RECE.',
  10013: 'Para comprobantes clase A y M el campo DocTipo tenga valor 80 (CUIT)',
  10016:
    'El numero o fecha del comprobante no se corresponde con el proximo a autorizar. Consultar metodo FECompUltimoAutorizado.',
  10023: 'El campo ImpIVA (importe de IVA) debe ser igual a la suma de los importes de las alícuotas informadas en <AlicIva>.',
  10041:
    'Si el punto de venta del comprobante asociado (campo <PtoVta> de <CbtesAsoc>) es electrónico, el número de comprobante debe obrar en las bases del organismo para el punto de venta y tipo de comprobante informado.',
  10048: "El campo  'Importe Total' ImpTotal, debe ser igual  a la  suma de ImpTotConc + ImpNeto + ImpOpEx + ImpTrib + ImpIVA.",
  10051: 'Los importes informados en AlicIVA se deben corresponder según el tipo de iva seleccionado.',
  10061: 'La suma de los campos <BaseImp> en <AlicIva> debe ser igual al valor ingresado en ImpNeto.',
  10070: 'Si el importe neto es mayor a cero, es obligatorio informar el array de iva.',
  10071: 'Si el tipo de comprobante es C, el array de IVA no debe informarse.',
  10197:
    'Si el comprobante es Debito o Credito, se deberá informar de forma obligatoria los campos Fecha Comprobantes Asociados Desde/Hasta, o al menos un comprobante asociado.',
  10242:
    'El campo de identificación de la Condición de IVA del receptor no es un valor permitido. Para mayor detalle consular el método FEParamGetCondicionIvaReceptor.',
  10243:
    'El campo de identificación de Condición de IVA del receptor no es valido para la clase de comprobante informado. Para mas detalle consultar el Método: FEParamGetCondicionIvaReceptor',
  10246:
    'Campo Condición Frente al IVA del receptor es obligatorio conforme a lo reglamentado por la Resolución General N° 5616. Para mas información consular método FEParamGetCondicionIvaReceptor.',
  701: 'El punto de venta informado debe ser del tipo CAEA y no estar bloqueado a la fecha del comprobante.',
  702: 'La fecha del comprobante debe estar comprendida en el período de vigencia del CAEA.',
  703: 'El número de comprobante informado debe ser el siguiente al último informado para el punto de venta y tipo.',
  704: 'La fecha del comprobante debe ser igual o posterior a la del último comprobante informado.',
  705: 'El CAEA informado no corresponde a la CUIT.',
  780: 'El CAEA informado no existe.',
  782: 'El CAEA debe ser numérico de 14 dígitos.',
  1200: 'El código informado no es un CAEA.',
  1201: 'La CUIT informada no corresponde al CAEA.',
  1202: 'El punto de venta informado tiene comprobantes con ese CAEA.',
  1203: 'La fecha de envío debe ser posterior al inicio de vigencia del CAEA.',
  1204: 'El punto de venta no es del tipo CAEA.',
  1209: 'El punto de venta ya fue informado sin movimiento para ese CAEA.',
  1424: 'El CAEA y punto de venta ya fueron informados sin movimiento.',
  1440: 'El campo CbteFchHsGen es obligatorio para puntos de venta de contingencia.',
  1441: 'El campo CbteFchHsGen debe tener formato yyyymmddhhmiss.',
  1445: 'La fecha del comprobante debe estar dentro de los 5 días de CbteFchHsGen.',
  // The fake's own: ARCA's code for informing after FchTopeInf is not documented in the manual.
  1499: '(ARCA simulado) Vencido el plazo para informar los comprobantes de este CAEA (FchTopeInf).',
  15001: 'La CUIT debe estar registrada como Autoimpresor para solicitar CAEA.',
  15003: 'La CUIT debe tener al menos un punto de venta CAEA activo.',
  15004: 'El campo Periodo debe tener formato AAAAMM.',
  15005: 'El campo Orden debe ser 1 o 2.',
  15006: 'El CAEA solo puede solicitarse desde 5 días corridos antes del inicio de la quincena hasta su último día.',
  15008: 'Ya existe un CAEA otorgado para el Periodo y Orden informados.',
};
const DATE_WINDOW_MESSAGE =
  'Campo CbteFch Debe estar comprendido  en el  rango  N-5 y N+5 siendo N la fecha de envio del pedido  de autorizacion para 1 - Productos';

const CONDITIONS = new Set([1, 4, 5, 6, 7, 8, 9, 10, 13, 15, 16]);
const CLASS_OF: Record<number, 'A' | 'B' | 'C'> = { 1: 'A', 2: 'A', 3: 'A', 6: 'B', 7: 'B', 8: 'B', 11: 'C', 12: 'C', 13: 'C' };
const ALLOWED: Record<'A' | 'B' | 'C', Set<number> | null> = {
  A: new Set([1, 6, 13, 16]),
  B: new Set([4, 5, 7, 8, 9, 10, 15]),
  C: null,
};
const CREDIT_NOTES: Record<number, number[]> = { 3: [1, 2, 3], 8: [6, 7, 8], 13: [11, 12, 13] };
const RATES: Record<number, number> = { 3: 0, 4: 105, 5: 210, 6: 270, 8: 50, 9: 25 };
const DEFAULT_POINTS = [1, 2];
const WSAA_NS = 'http://wsaa.view.sua.dvadac.desein.afip.gov';
const FE_NS = 'http://ar.gov.afip.dif.FEV1/';

function emptyState(): State {
  return {
    tickets: [],
    logins: {},
    receipts: [],
    pointsOfSale: {},
    represented: {},
    caeas: [],
    caeaPoints: {},
    caeaDenied: [],
    noMovement: [],
  };
}

function dayNumber(yyyymmdd: string): number {
  return Date.UTC(Number(yyyymmdd.slice(0, 4)), Number(yyyymmdd.slice(4, 6)) - 1, Number(yyyymmdd.slice(6, 8))) / 86_400_000;
}
function addDays(yyyymmdd: string, days: number): string {
  return new Date((dayNumber(yyyymmdd) + days) * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
}

export type FakeArca = ReturnType<typeof createFakeArca>;

export function createFakeArca(options: FakeArcaOptions = {}) {
  const now = options.now ?? (() => new Date());
  const window = options.alreadyAuthenticatedWindowMs ?? 10 * 60_000;
  const lifetime = options.ticketLifetimeMs ?? 12 * 3_600_000;
  let state: State = emptyState();
  if (options.stateFile && existsSync(options.stateFile)) {
    try {
      state = { ...emptyState(), ...(JSON.parse(readFileSync(options.stateFile, 'utf8')) as State) };
    } catch {
      state = emptyState();
    }
  }
  const persist = () => {
    if (!options.stateFile) return;
    const tmp = `${options.stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, options.stateFile);
  };

  const queue = {
    reject: [] as RejectableCode[],
    delay: [] as { ms: number; op: string | null }[],
    fail: [] as { status: number; op: string | null }[],
    drop: 0,
  };
  /** Operations that fail until the outage ends: 'http' answers 503, 'reset' drops the connection, 'slow' never answers in time. */
  let outage: { ops: string[] | null; mode: 'http' | 'reset' | 'slow' } | null = null;
  const informDays = options.caeaInformDays ?? 8;
  const stats = { logins: 0, caeRequests: 0, requests: {} as Record<string, number> };
  const inflight = new Set<string>();

  const take = <T extends { op: string | null }>(items: T[], op: string): T | undefined => {
    const i = items.findIndex((item) => item.op === null || item.op === op);
    return i === -1 ? undefined : items.splice(i, 1)[0];
  };

  const control = {
    rejectNext(code: RejectableCode) {
      queue.reject.push(code);
    },
    /** The next call (of `op`, or any) answers after `ms`; a FECAESolicitar is still granted. */
    delayNext(ms: number, op: string | null = null) {
      queue.delay.push({ ms, op });
    },
    /** The next FECAESolicitar is authorised and stored, then the connection is dropped unanswered. */
    dropAfterGrant() {
      queue.drop += 1;
    },
    /** The next call (of `op`, or any) gets this HTTP status without being processed. */
    failNext(status: number, op: string | null = null) {
      queue.fail.push({ status, op });
    },
    /** ARCA "down" for these operations (all when null) until endOutage. */
    startOutage(mode: 'http' | 'reset' | 'slow' = 'http', ops: string[] | null = null) {
      outage = { ops, mode };
    },
    endOutage() {
      outage = null;
    },
    setCaeaPointsOfSale(cuit: string, points: number[]) {
      state.caeaPoints[cuit] = points;
      persist();
    },
    denyCaea(cuit: string) {
      state.caeaDenied.push(cuit);
      persist();
    },
    /** A CAEA ARCA granted earlier (any fortnight, outside the window), optionally with another FchTopeInf. */
    grantCaea(cuit: string, period: number, order: 1 | 2, caea: string, deadline?: string): FakeCaea {
      const range = fortnightRange({ period, order });
      const granted: FakeCaea = {
        cuit,
        period,
        order,
        caea,
        from: range.from,
        to: range.to,
        deadline: deadline ?? addCaeaDays(range.to, informDays),
        processedAt: `${range.from}000000`,
      };
      state.caeas.push(granted);
      persist();
      return { ...granted };
    },
    caeas(): FakeCaea[] {
      return state.caeas.map((c) => ({ ...c }));
    },
    noMovement() {
      return state.noMovement.map((n) => ({ ...n }));
    },
    setPointsOfSale(cuit: string, points: number[]) {
      state.pointsOfSale[cuit] = points;
      persist();
    },
    /** Only these CUITs may be represented by tickets of this certificate (601 otherwise). */
    restrictRepresented(fingerprint: string, cuits: string[]) {
      state.represented[fingerprint] = cuits;
      persist();
    },
    lastAuthorized(cuit: string, pointOfSale: number, type: number) {
      return lastOf(cuit, pointOfSale, type);
    },
    receipts(): FakeReceipt[] {
      return state.receipts.map((r) => ({ ...r }));
    },
    /** Drop every pending rejection, delay, failure and drop. */
    clearQueue() {
      outage = null;
      queue.reject = [];
      queue.delay = [];
      queue.fail = [];
      queue.drop = 0;
    },
    /** Forget logins (as if the preventive window passed) but keep receipts. */
    forgetLogins() {
      state.logins = {};
      persist();
    },
    reset() {
      state = emptyState();
      queue.reject = [];
      queue.delay = [];
      queue.fail = [];
      queue.drop = 0;
      outage = null;
      stats.logins = 0;
      stats.caeRequests = 0;
      stats.requests = {};
      persist();
    },
  };

  function lastOf(cuit: string, pointOfSale: number, type: number): number {
    let last = 0;
    for (const r of state.receipts)
      if (r.cuit === cuit && r.pointOfSale === pointOfSale && r.type === type && r.number > last) last = r.number;
    return last;
  }

  function envelope(version: '1.1' | '1.2', body: string, header = true): string {
    const ns = version === '1.2' ? 'http://www.w3.org/2003/05/soap-envelope' : 'http://schemas.xmlsoap.org/soap/envelope/';
    const head = header
      ? `<soap:Header><FEHeaderInfo xmlns="${FE_NS}"><ambiente>HomologacionExterno - fake</ambiente><fecha>${argentinaIso(now(), { millis: true })}</fecha><id>7.0.0.53</id></FEHeaderInfo></soap:Header>`
      : '';
    return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ns}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">${head}<soap:Body>${body}</soap:Body></soap:Envelope>`;
  }

  function wsaaFault(code: string, message: string): { status: number; body: string } {
    return {
      status: 500,
      body:
        '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><soapenv:Fault>' +
        `<faultcode xmlns:ns1="http://xml.apache.org/axis/">ns1:${code}</faultcode><faultstring>${xmlEscape(message)}</faultstring>` +
        '<detail><ns2:exceptionName xmlns:ns2="http://xml.apache.org/axis/">gov.afip.desein.dvadac.sua.view.wsaa.LoginFault</ns2:exceptionName><ns3:hostname xmlns:ns3="http://xml.apache.org/axis/">wsaa.fake</ns3:hostname></detail>' +
        '</soapenv:Fault></soapenv:Body></soapenv:Envelope>',
    };
  }

  function loginCms(bodyNode: Node): { status: number; body: string } {
    const cms = text(obj(bodyNode['loginCms'])['in0']);
    let verified: ReturnType<typeof verifyLoginCms>;
    try {
      verified = verifyLoginCms(cms);
    } catch {
      return wsaaFault('cms.sign.invalid', 'Firma inválida o algoritmo no soportado');
    }
    const tra = obj(parseXml(verified.content)['loginTicketRequest']);
    const header = obj(tra['header']);
    const generation = new Date(text(header['generationTime']));
    const expiration = new Date(text(header['expirationTime']));
    const service = text(tra['service']);
    const at = now().getTime();
    if (Number.isNaN(generation.getTime()) || generation.getTime() > at + 5 * 60_000) {
      return wsaaFault('xml.generationTime.invalid', 'generationTime posee formato o dato inválido');
    }
    if (Number.isNaN(expiration.getTime()) || expiration.getTime() <= at) {
      return wsaaFault('xml.expirationTime.expired', 'expirationTime expirado');
    }
    if (service !== 'wsfe') return wsaaFault('wsn.unavailable', `El servicio ${service} no está disponible`);
    const cert = new X509Certificate(verified.certPem);
    if (new Date(cert.validTo).getTime() < at) return wsaaFault('cms.cert.expired', 'Certificado expirado');
    const fingerprint = createHash('sha256').update(cert.raw).digest('hex');
    const key = `${fingerprint}:${service}`;
    const previous = state.logins[key];
    if (previous && at - previous.at < window && previous.expiresAt > at) {
      return wsaaFault('coe.alreadyAuthenticated', 'El CEE ya posee un TA valido para el acceso al WSN solicitado');
    }
    const ticket: Ticket = {
      token: randomBytes(48).toString('base64'),
      sign: randomBytes(24).toString('base64'),
      fingerprint,
      expiresAt: at + lifetime,
    };
    state.tickets = state.tickets.filter((t) => t.expiresAt > at);
    state.tickets.push(ticket);
    state.logins[key] = { at, expiresAt: ticket.expiresAt };
    stats.logins += 1;
    persist();
    const ta =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<loginTicketResponse version="1">\n    <header>\n' +
      `        <source>CN=wsaahomo, O=AFIP, C=AR, SERIALNUMBER=CUIT 33693450239</source>\n        <destination>${xmlEscape(cert.subject.replaceAll('\n', ', '))}</destination>\n` +
      `        <uniqueId>${randomInt(1, 2 ** 31)}</uniqueId>\n        <generationTime>${argentinaIso(new Date(at), { millis: true })}</generationTime>\n        <expirationTime>${argentinaIso(new Date(ticket.expiresAt), { millis: true })}</expirationTime>\n    </header>\n` +
      `    <credentials>\n        <token>${ticket.token}</token>\n        <sign>${ticket.sign}</sign>\n    </credentials>\n</loginTicketResponse>\n`;
    return {
      status: 200,
      body: `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><loginCmsResponse xmlns="${WSAA_NS}"><loginCmsReturn>${xmlEscape(ta)}</loginCmsReturn></loginCmsResponse></soapenv:Body></soapenv:Envelope>`,
    };
  }

  const errorsXml = (codes: number[]) =>
    codes.length
      ? `<Errors>${codes.map((c) => `<Err><Code>${c}</Code><Msg>${xmlEscape(MESSAGES[c] ?? 'Error')}</Msg></Err>`).join('')}</Errors>`
      : '';

  /** 600/601 for a bad ticket or a CUIT it does not represent; null when fine. */
  function authProblem(auth: Node): number | null {
    const ticket = state.tickets.find((t) => t.token === text(auth['Token']) && t.sign === text(auth['Sign']));
    if (!ticket || ticket.expiresAt <= now().getTime()) return 600;
    const allowed = state.represented[ticket.fingerprint];
    if (allowed && !allowed.includes(text(auth['Cuit']))) return 601;
    return null;
  }

  function result(op: string, inner: string, version: '1.1' | '1.2') {
    return envelope(version, `<${op}Response xmlns="${FE_NS}"><${op}Result>${inner}</${op}Result></${op}Response>`);
  }

  function caeAnswer(
    head: { cuit: string; pos: number; type: number },
    detail: string,
    resultCode: 'A' | 'R',
    errors: number[],
    version: '1.1' | '1.2',
  ) {
    const cab = `<FeCabResp><Cuit>${head.cuit}</Cuit><PtoVta>${head.pos}</PtoVta><CbteTipo>${head.type}</CbteTipo><FchProceso>${arcaDate(now())}${arcaTime(now())}</FchProceso><CantReg>1</CantReg><Resultado>${resultCode}</Resultado><Reproceso>N</Reproceso></FeCabResp>`;
    return result('FECAESolicitar', `${cab}<FeDetResp>${detail}</FeDetResp>${errorsXml(errors)}`, version);
  }

  /** FECAESolicitar: validate, number, grant. `grant` stores the receipt; its XML is the answer. */
  function solicitar(bodyNode: Node, version: '1.1' | '1.2'): { body: string; granted: boolean } {
    stats.caeRequests += 1;
    const op = obj(bodyNode['FECAESolicitar']);
    const auth = obj(op['Auth']);
    const req = obj(op['FeCAEReq']);
    const cab = obj(req['FeCabReq']);
    const d = list(obj(req['FeDetReq'])['FECAEDetRequest'])[0] ?? {};
    const cuit = text(auth['Cuit']);
    const pos = Number(text(cab['PtoVta']));
    const type = Number(text(cab['CbteTipo']));
    const head = { cuit, pos, type };
    const number = Number(text(d['CbteDesde']));
    const date = text(d['CbteFch']);
    const detail = (resultCode: 'A' | 'R', obs: { code: number; message?: string }[], cae = '', expiry = '') =>
      `<FECAEDetResponse><Concepto>${text(d['Concepto'])}</Concepto><DocTipo>${text(d['DocTipo'])}</DocTipo><DocNro>${text(d['DocNro'])}</DocNro><CbteDesde>${number}</CbteDesde><CbteHasta>${text(d['CbteHasta'])}</CbteHasta><CbteFch>${date}</CbteFch><Resultado>${resultCode}</Resultado>` +
      (obs.length
        ? `<Observaciones>${obs.map((o) => `<Obs><Code>${o.code}</Code><Msg>${xmlEscape(o.message ?? MESSAGES[o.code] ?? '')}</Msg></Obs>`).join('')}</Observaciones>`
        : '') +
      (cae ? `<CAE>${cae}</CAE><CAEFchVto>${expiry}</CAEFchVto>` : '<CAE /><CAEFchVto />') +
      '</FECAEDetResponse>';
    const rejectErr = (code: number) => ({ body: caeAnswer(head, detail('R', []), 'R', [code], version), granted: false });
    const rejectObs = (code: number, message?: string) => ({
      body: caeAnswer(head, detail('R', [{ code, ...(message ? { message } : {}) }]), 'R', [], version),
      granted: false,
    });

    const problem = authProblem(auth);
    if (problem) return { body: result('FECAESolicitar', errorsXml([problem]), version), granted: false };
    const forced = queue.reject.shift();
    if (forced !== undefined) return forced === 10016 ? rejectErr(10016) : rejectObs(forced);
    if (!(pos >= 1 && pos <= 99998)) return rejectErr(10004);
    if (!(state.pointsOfSale[cuit] ?? DEFAULT_POINTS).includes(pos)) return rejectErr(10005);
    const letter = CLASS_OF[type];
    if (!letter) return rejectErr(10005);
    if (letter === 'A' && text(d['DocTipo']) !== '80') return rejectObs(10013);
    const conditionText = text(d['CondicionIVAReceptorId']);
    if (conditionText === '') return rejectObs(10246);
    const condition = Number(conditionText);
    if (!CONDITIONS.has(condition)) return rejectObs(10242);
    const allowed = ALLOWED[letter];
    if (allowed && !allowed.has(condition)) return rejectObs(10243);
    const ivaLines = list(obj(d['Iva'])['AlicIva']).map((a) => ({
      id: Number(text(a['Id'])),
      base: text(a['BaseImp']),
      amount: text(a['Importe']),
    }));
    if (letter === 'C' && d['Iva'] !== undefined) return rejectObs(10071);
    const total = cents(d['ImpTotal']);
    const parts = cents(d['ImpTotConc']) + cents(d['ImpNeto']) + cents(d['ImpOpEx']) + cents(d['ImpTrib']) + cents(d['ImpIVA']);
    if (Math.abs(total - parts) > 1) return rejectObs(10048);
    if (letter !== 'C') {
      if (cents(d['ImpNeto']) > 0 && ivaLines.length === 0) return rejectObs(10070);
      const bases = ivaLines.reduce((s, l) => s + cents(l.base), 0);
      if (ivaLines.length && Math.abs(bases - cents(d['ImpNeto'])) > ivaLines.length) return rejectObs(10061);
      const ivas = ivaLines.reduce((s, l) => s + cents(l.amount), 0);
      if (Math.abs(ivas - cents(d['ImpIVA'])) > 1) return rejectObs(10023);
      for (const l of ivaLines) {
        const rate = RATES[l.id];
        if (rate === undefined || Math.abs(cents(l.amount) - (cents(l.base) * rate) / 1000) > 1) return rejectObs(10051);
      }
    }
    const associated = list(obj(d['CbtesAsoc'])['CbteAsoc']);
    if (CREDIT_NOTES[type]) {
      if (associated.length === 0) return rejectObs(10197);
      for (const a of associated) {
        const aType = Number(text(a['Tipo']));
        const exists = state.receipts.some(
          (r) =>
            r.cuit === (text(a['Cuit']) || cuit) &&
            r.pointOfSale === Number(text(a['PtoVta'])) &&
            r.type === aType &&
            r.number === Number(text(a['Nro'])),
        );
        if (!CREDIT_NOTES[type]!.includes(aType) || !exists) return rejectObs(10041);
      }
    }
    const today = arcaDate(now());
    if (!/^\d{8}$/.test(date) || Math.abs(dayNumber(date) - dayNumber(today)) > 5) return rejectObs(10016, DATE_WINDOW_MESSAGE);
    const last = lastOf(cuit, pos, type);
    const lastReceipt = state.receipts.find(
      (r) => r.cuit === cuit && r.pointOfSale === pos && r.type === type && r.number === last,
    );
    if (number !== last + 1 || text(d['CbteHasta']) !== String(number)) return rejectErr(10016);
    if (lastReceipt && dayNumber(date) < dayNumber(lastReceipt.date)) return rejectObs(10016, DATE_WINDOW_MESSAGE);
    const cae = `7${String(randomInt(0, 10 ** 9)).padStart(9, '0')}${String(randomInt(0, 10 ** 4)).padStart(4, '0')}`;
    const caeExpiry = addDays(date, 10);
    state.receipts.push({
      cuit,
      pointOfSale: pos,
      type,
      number,
      concept: Number(text(d['Concepto'])),
      docType: Number(text(d['DocTipo'])),
      docNumber: text(d['DocNro']),
      date,
      total: text(d['ImpTotal']),
      untaxed: text(d['ImpTotConc']),
      net: text(d['ImpNeto']),
      exempt: text(d['ImpOpEx']),
      otherTaxes: text(d['ImpTrib']),
      iva: text(d['ImpIVA']),
      ivaLines,
      currency: text(d['MonId']),
      rate: text(d['MonCotiz']),
      cae,
      caeExpiry,
      processedAt: `${arcaDate(now())}000000`,
    });
    persist();
    return { body: caeAnswer(head, detail('A', [], cae, caeExpiry), 'A', [], version), granted: true };
  }

  function consultar(bodyNode: Node, version: '1.1' | '1.2'): string {
    const op = obj(bodyNode['FECompConsultar']);
    const problem = authProblem(obj(op['Auth']));
    if (problem) return result('FECompConsultar', errorsXml([problem]), version);
    const q = obj(op['FeCompConsReq']);
    const cuit = text(obj(op['Auth'])['Cuit']);
    const r = state.receipts.find(
      (x) =>
        x.cuit === cuit &&
        x.pointOfSale === Number(text(q['PtoVta'])) &&
        x.type === Number(text(q['CbteTipo'])) &&
        x.number === Number(text(q['CbteNro'])),
    );
    if (!r) return result('FECompConsultar', errorsXml([602]), version);
    const iva = r.ivaLines.length
      ? `<Iva>${r.ivaLines.map((l) => `<AlicIva><Id>${l.id}</Id><BaseImp>${l.base}</BaseImp><Importe>${l.amount}</Importe></AlicIva>`).join('')}</Iva>`
      : '';
    return result(
      'FECompConsultar',
      `<ResultGet><Concepto>${r.concept}</Concepto><DocTipo>${r.docType}</DocTipo><DocNro>${r.docNumber}</DocNro><CbteDesde>${r.number}</CbteDesde><CbteHasta>${r.number}</CbteHasta><CbteFch>${r.date}</CbteFch><ImpTotal>${r.total}</ImpTotal><ImpTotConc>${r.untaxed}</ImpTotConc><ImpNeto>${r.net}</ImpNeto><ImpOpEx>${r.exempt}</ImpOpEx><ImpTrib>${r.otherTaxes}</ImpTrib><ImpIVA>${r.iva}</ImpIVA><FchServDesde /><FchServHasta /><FchVtoPago /><MonId>${r.currency}</MonId><MonCotiz>${r.rate}</MonCotiz>${iva}<Resultado>A</Resultado><CodAutorizacion>${r.cae}</CodAutorizacion><EmisionTipo>${r.emission ?? 'CAE'}</EmisionTipo><FchVto>${r.caeExpiry}</FchVto><FchProceso>${r.processedAt}</FchProceso><PtoVta>${r.pointOfSale}</PtoVta><CbteTipo>${r.type}</CbteTipo></ResultGet>`,
      version,
    );
  }

  /** FECAEASolicitar / FECAEAConsultar: same request (Periodo, Orden), same FECAEAGet answer. */
  function caeaGet(operation: 'FECAEASolicitar' | 'FECAEAConsultar', op: Node, version: '1.1' | '1.2'): string {
    const auth = obj(op['Auth']);
    const problem = authProblem(auth);
    if (problem) return result(operation, errorsXml([problem]), version);
    const cuit = text(auth['Cuit']);
    const periodText = text(op['Periodo']);
    const period = Number(periodText);
    const order = Number(text(op['Orden']));
    if (!/^\d{6}$/.test(periodText) || !validFortnight(period, 1)) return result(operation, errorsXml([15004]), version);
    if (order !== 1 && order !== 2) return result(operation, errorsXml([15005]), version);
    const existing = state.caeas.find((c) => c.cuit === cuit && c.period === period && c.order === order);
    const answer = (c: FakeCaea) =>
      result(
        operation,
        `<ResultGet><CAEA>${c.caea}</CAEA><Periodo>${c.period}</Periodo><Orden>${c.order}</Orden><FchVigDesde>${c.from}</FchVigDesde><FchVigHasta>${c.to}</FchVigHasta><FchTopeInf>${c.deadline}</FchTopeInf><FchProceso>${c.processedAt}</FchProceso></ResultGet>`,
        version,
      );
    if (operation === 'FECAEAConsultar') return existing ? answer(existing) : result(operation, errorsXml([602]), version);
    if (state.caeaDenied.includes(cuit)) return result(operation, errorsXml([15001]), version);
    if ((state.caeaPoints[cuit] ?? []).length === 0) return result(operation, errorsXml([15003]), version);
    const today = arcaDate(now());
    const window = requestWindow({ period, order });
    if (today < window.opens || today > window.closes) return result(operation, errorsXml([15006]), version);
    if (existing) return result(operation, errorsXml([15008]), version);
    const range = fortnightRange({ period, order });
    const granted: FakeCaea = {
      cuit,
      period,
      order,
      caea: `3${String(period).slice(2)}${order}${String(randomInt(0, 10 ** 8)).padStart(8, '0')}`.slice(0, 14),
      from: range.from,
      to: range.to,
      deadline: addCaeaDays(range.to, informDays),
      processedAt: `${today}${arcaTime(now())}`,
    };
    state.caeas.push(granted);
    persist();
    return answer(granted);
  }

  /** FECAEARegInformativo: each detail checked as ARCA does for CAEA receipts, then stored. */
  function caeaInform(op: Node, version: '1.1' | '1.2'): string {
    const auth = obj(op['Auth']);
    const problem = authProblem(auth);
    if (problem) return result('FECAEARegInformativo', errorsXml([problem]), version);
    const cuit = text(auth['Cuit']);
    const req = obj(op['FeCAEARegInfReq']);
    const cab = obj(req['FeCabReq']);
    const pos = Number(text(cab['PtoVta']));
    const type = Number(text(cab['CbteTipo']));
    const details = list(obj(req['FeDetReq'])['FECAEADetRequest']);
    const today = arcaDate(now());
    const answers: { d: Node; result: 'A' | 'R'; obs: number[] }[] = [];
    for (const d of details) {
      const check = (): number | null => {
        const caea = text(d['CAEA']);
        if (!/^\d{14}$/.test(caea)) return 782;
        const granted = state.caeas.find((c) => c.caea === caea);
        if (!granted) return 780;
        if (granted.cuit !== cuit) return 705;
        if (!(state.caeaPoints[cuit] ?? []).includes(pos)) return 701;
        if (state.noMovement.some((n) => n.caea === caea && n.pointOfSale === pos)) return 1424;
        const date = text(d['CbteFch']);
        if (date < granted.from || date > granted.to) return 702;
        const generated = text(d['CbteFchHsGen']);
        if (!generated) return 1440;
        if (!/^\d{14}$/.test(generated)) return 1441;
        if (Math.abs(dayNumber(date) - dayNumber(generated.slice(0, 8))) > 5) return 1445;
        if (today > granted.deadline) return 1499;
        const last = lastOf(cuit, pos, type);
        if (Number(text(d['CbteDesde'])) !== last + 1) return 703;
        const previous = state.receipts.find(
          (r) => r.cuit === cuit && r.pointOfSale === pos && r.type === type && r.number === last,
        );
        if (previous && date < previous.date) return 704;
        const letter = CLASS_OF[type];
        if (letter === 'C' && d['Iva'] !== undefined) return 10071;
        const total = cents(d['ImpTotal']);
        const parts =
          cents(d['ImpTotConc']) + cents(d['ImpNeto']) + cents(d['ImpOpEx']) + cents(d['ImpTrib']) + cents(d['ImpIVA']);
        if (Math.abs(total - parts) > 1) return 10048;
        return null;
      };
      const code = check();
      if (code !== null) {
        answers.push({ d, result: 'R', obs: [code] });
        continue;
      }
      state.receipts.push({
        cuit,
        pointOfSale: pos,
        type,
        number: Number(text(d['CbteDesde'])),
        concept: Number(text(d['Concepto'])),
        docType: Number(text(d['DocTipo'])),
        docNumber: text(d['DocNro']),
        date: text(d['CbteFch']),
        total: text(d['ImpTotal']),
        untaxed: text(d['ImpTotConc']),
        net: text(d['ImpNeto']),
        exempt: text(d['ImpOpEx']),
        otherTaxes: text(d['ImpTrib']),
        iva: text(d['ImpIVA']),
        ivaLines: list(obj(d['Iva'])['AlicIva']).map((a) => ({
          id: Number(text(a['Id'])),
          base: text(a['BaseImp']),
          amount: text(a['Importe']),
        })),
        currency: text(d['MonId']),
        rate: text(d['MonCotiz']),
        cae: text(d['CAEA']),
        caeExpiry: state.caeas.find((c) => c.caea === text(d['CAEA']))!.to,
        processedAt: `${today}${arcaTime(now())}`,
        emission: 'CAEA',
        generatedAt: text(d['CbteFchHsGen']),
      });
      answers.push({ d, result: 'A', obs: [] });
    }
    persist();
    const overall = answers.every((a) => a.result === 'A') ? 'A' : answers.some((a) => a.result === 'A') ? 'P' : 'R';
    const cabResp = `<FeCabResp><Cuit>${cuit}</Cuit><PtoVta>${pos}</PtoVta><CbteTipo>${type}</CbteTipo><FchProceso>${today}${arcaTime(now())}</FchProceso><CantReg>${answers.length}</CantReg><Resultado>${overall}</Resultado><Reproceso>N</Reproceso></FeCabResp>`;
    const detResp = answers
      .map(
        ({ d, result: r, obs }) =>
          `<FECAEADetResponse><Concepto>${text(d['Concepto'])}</Concepto><DocTipo>${text(d['DocTipo'])}</DocTipo><DocNro>${text(d['DocNro'])}</DocNro><CbteDesde>${text(d['CbteDesde'])}</CbteDesde><CbteHasta>${text(d['CbteHasta'])}</CbteHasta><CbteFch>${text(d['CbteFch'])}</CbteFch><Resultado>${r}</Resultado><CAEA>${text(d['CAEA'])}</CAEA>` +
          (obs.length
            ? `<Observaciones>${obs.map((c) => `<Obs><Code>${c}</Code><Msg>${xmlEscape(MESSAGES[c] ?? '')}</Msg></Obs>`).join('')}</Observaciones>`
            : '') +
          '</FECAEADetResponse>',
      )
      .join('');
    return result('FECAEARegInformativo', `${cabResp}<FeDetResp>${detResp}</FeDetResp>`, version);
  }

  function noMovementInform(op: Node, version: '1.1' | '1.2'): string {
    const name = 'FECAEASinMovimientoInformar';
    const auth = obj(op['Auth']);
    const problem = authProblem(auth);
    if (problem) return result(name, errorsXml([problem]), version);
    const cuit = text(auth['Cuit']);
    const caea = text(op['CAEA']);
    const pos = Number(text(op['PtoVta']));
    const today = arcaDate(now());
    const answer = (r: 'A' | 'R', errors: number[]) =>
      result(
        name,
        `<CAEA>${xmlEscape(caea)}</CAEA><FchProceso>${today}${arcaTime(now())}</FchProceso><PtoVta>${pos}</PtoVta><Resultado>${r}</Resultado>${errorsXml(errors)}`,
        version,
      );
    const granted = state.caeas.find((c) => c.caea === caea);
    if (!granted) return answer('R', [1200]);
    if (granted.cuit !== cuit) return answer('R', [1201]);
    if (!(state.caeaPoints[cuit] ?? []).includes(pos)) return answer('R', [1204]);
    if (today < granted.from) return answer('R', [1203]);
    if (state.noMovement.some((n) => n.caea === caea && n.pointOfSale === pos)) return answer('R', [1209]);
    if (state.receipts.some((r) => r.cuit === cuit && r.pointOfSale === pos && r.cae === caea)) return answer('R', [1202]);
    state.noMovement.push({ cuit, caea, pointOfSale: pos, processedAt: `${today}${arcaTime(now())}` });
    persist();
    return answer('A', []);
  }

  function noMovementConsult(op: Node, version: '1.1' | '1.2'): string {
    const name = 'FECAEASinMovimientoConsultar';
    const auth = obj(op['Auth']);
    const problem = authProblem(auth);
    if (problem) return result(name, errorsXml([problem]), version);
    const cuit = text(auth['Cuit']);
    const caea = text(op['CAEA']);
    const pos = Number(text(op['PtoVta']) || '0');
    const found = state.noMovement.filter((n) => n.cuit === cuit && n.caea === caea && (pos === 0 || n.pointOfSale === pos));
    if (found.length === 0) return result(name, errorsXml([602]), version);
    return result(
      name,
      `<ResultGet>${found.map((n) => `<FECAEASINMOV><CAEA>${n.caea}</CAEA><FchProceso>${n.processedAt}</FchProceso><PtoVta>${n.pointOfSale}</PtoVta></FECAEASINMOV>`).join('')}</ResultGet>`,
      version,
    );
  }

  function wsfe(operation: string, bodyNode: Node, version: '1.1' | '1.2'): { body: string; granted?: boolean } {
    const op = obj(bodyNode[operation]);
    switch (operation) {
      case 'FEDummy':
        return {
          body: result('FEDummy', '<AppServer>OK</AppServer><DbServer>OK</DbServer><AuthServer>OK</AuthServer>', version),
        };
      case 'FEParamGetPtosVenta': {
        const problem = authProblem(obj(op['Auth']));
        if (problem) return { body: result(operation, errorsXml([problem]), version) };
        const cuit = text(obj(op['Auth'])['Cuit']);
        const points = state.pointsOfSale[cuit] ?? DEFAULT_POINTS;
        const caeaPoints = state.caeaPoints[cuit] ?? [];
        if (points.length + caeaPoints.length === 0) return { body: result(operation, errorsXml([602]), version) };
        const row = (n: number, kind: string) =>
          `<PtoVenta><Nro>${n}</Nro><EmisionTipo>${kind}</EmisionTipo><Bloqueado>N</Bloqueado><FchBaja>NULL</FchBaja></PtoVenta>`;
        return {
          body: result(
            operation,
            `<ResultGet>${points.map((n) => row(n, 'CAE - Ri Iva')).join('')}${caeaPoints.map((n) => row(n, 'CAEA - Ri Iva - Contingencias')).join('')}</ResultGet>`,
            version,
          ),
        };
      }
      case 'FECompUltimoAutorizado': {
        const pos = Number(text(op['PtoVta']));
        const type = Number(text(op['CbteTipo']));
        const problem = authProblem(obj(op['Auth']));
        if (problem)
          return {
            body: result(
              operation,
              `<PtoVta>0</PtoVta><CbteTipo>0</CbteTipo><CbteNro>0</CbteNro>${errorsXml([problem])}`,
              version,
            ),
          };
        return {
          body: result(
            operation,
            `<PtoVta>${pos}</PtoVta><CbteTipo>${type}</CbteTipo><CbteNro>${lastOf(text(obj(op['Auth'])['Cuit']), pos, type)}</CbteNro>`,
            version,
          ),
        };
      }
      case 'FECAESolicitar':
        return solicitar(bodyNode, version);
      case 'FECompConsultar':
        return { body: consultar(bodyNode, version) };
      case 'FECAEASolicitar':
      case 'FECAEAConsultar':
        return { body: caeaGet(operation, op, version) };
      case 'FECAEARegInformativo':
        return { body: caeaInform(op, version) };
      case 'FECAEASinMovimientoInformar':
        return { body: noMovementInform(op, version) };
      case 'FECAEASinMovimientoConsultar':
        return { body: noMovementConsult(op, version) };
      case 'FEParamGetCotizacion': {
        const problem = authProblem(obj(op['Auth']));
        if (problem) return { body: result(operation, errorsXml([problem]), version) };
        return {
          body: result(
            operation,
            `<ResultGet><MonId>${xmlEscape(text(op['MonId']))}</MonId><MonCotiz>1160.5</MonCotiz><FchCotiz>${arcaDate(now())}</FchCotiz></ResultGet>`,
            version,
          ),
        };
      }
      default:
        return {
          body: envelope(
            version,
            `<soap:Fault><faultcode>soap:Client</faultcode><faultstring>Unknown operation ${xmlEscape(operation)}</faultstring></soap:Fault>`,
            false,
          ),
        };
    }
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  function send(res: ServerResponse, status: number, body: string, version: '1.1' | '1.2') {
    res.writeHead(status, {
      'content-type': version === '1.2' ? 'application/soap+xml; charset=utf-8' : 'text/xml; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }

  async function handleControl(req: IncomingMessage, res: ServerResponse) {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'GET')
      return json(200, {
        stats,
        receipts: state.receipts,
        pointsOfSale: state.pointsOfSale,
        caeas: state.caeas,
        caeaPointsOfSale: state.caeaPoints,
        noMovement: state.noMovement,
      });
    let command: Node;
    try {
      command = JSON.parse(await readBody(req)) as Node;
    } catch {
      return json(400, { error: 'body must be JSON' });
    }
    const action = text(command['action']);
    if (action === 'rejectNext') control.rejectNext(Number(command['code']) as RejectableCode);
    else if (action === 'delayNext') control.delayNext(Number(command['ms']), command['op'] ? text(command['op']) : null);
    else if (action === 'dropAfterGrant') control.dropAfterGrant();
    else if (action === 'failNext')
      control.failNext(Number(command['status'] ?? 500), command['op'] ? text(command['op']) : null);
    else if (action === 'setPointsOfSale') control.setPointsOfSale(text(command['cuit']), (command['points'] as number[]) ?? []);
    else if (action === 'forgetLogins') control.forgetLogins();
    else if (action === 'startOutage')
      control.startOutage(
        (text(command['mode']) || 'http') as 'http' | 'reset' | 'slow',
        Array.isArray(command['ops']) ? (command['ops'] as string[]) : null,
      );
    else if (action === 'endOutage') control.endOutage();
    else if (action === 'setCaeaPointsOfSale')
      control.setCaeaPointsOfSale(text(command['cuit']), (command['points'] as number[]) ?? []);
    else if (action === 'clearQueue') control.clearQueue();
    else if (action === 'reset') control.reset();
    else return json(400, { error: `unknown action ${action}` });
    return json(200, { ok: true });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/__control') return handleControl(req, res);
    const version: '1.1' | '1.2' = String(req.headers['content-type'] ?? '').includes('application/soap+xml') ? '1.2' : '1.1';
    if (req.method !== 'POST' || (path !== '/ws/services/LoginCms' && path !== '/wsfev1/service.asmx')) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    const raw = await readBody(req);
    let bodyNode: Node;
    try {
      bodyNode = obj(obj(parseXml(raw)['Envelope'])['Body']);
    } catch {
      return send(
        res,
        500,
        envelope(
          version,
          '<soap:Fault><faultcode>soap:Client</faultcode><faultstring>Malformed XML</faultstring></soap:Fault>',
          false,
        ),
        version,
      );
    }
    const operation = path === '/ws/services/LoginCms' ? 'loginCms' : (Object.keys(bodyNode)[0] ?? '');
    stats.requests[operation] = (stats.requests[operation] ?? 0) + 1;
    if (outage && (outage.ops === null || outage.ops.includes(operation)) && operation !== '') {
      if (outage.mode === 'reset') return req.socket.destroy();
      if (outage.mode === 'slow') return; // never answers: the client's time limit runs out
      res.writeHead(503, { 'content-type': 'text/html' });
      return res.end('<html><body><h1>503 Service Unavailable</h1></body></html>');
    }
    const failure = take(queue.fail, operation);
    if (failure) {
      res.writeHead(failure.status, { 'content-type': 'text/html' });
      return res.end(`<html><body><h1>${failure.status}</h1></body></html>`);
    }
    const delay = take(queue.delay, operation);
    if (operation === 'loginCms') {
      if (delay) await sleep(delay.ms);
      const answer = loginCms(bodyNode);
      if (!res.destroyed) send(res, answer.status, answer.body, '1.1');
      return;
    }
    if (operation === 'FECAESolicitar') {
      const cab = obj(obj(obj(bodyNode['FECAESolicitar'])['FeCAEReq'])['FeCabReq']);
      const series = `${text(obj(obj(bodyNode['FECAESolicitar'])['Auth'])['Cuit'])}:${text(cab['PtoVta'])}:${text(cab['CbteTipo'])}`;
      if (inflight.has(series)) {
        stats.caeRequests += 1;
        return send(res, 200, result('FECAESolicitar', errorsXml([502]), version), version);
      }
      inflight.add(series);
      try {
        if (delay) await sleep(delay.ms);
        const answer = solicitar(bodyNode, version);
        if (answer.granted && queue.drop > 0) {
          queue.drop -= 1;
          req.socket.destroy();
          return;
        }
        if (!res.destroyed) send(res, 200, answer.body, version);
      } finally {
        inflight.delete(series);
      }
      return;
    }
    if (delay) await sleep(delay.ms);
    const answer = wsfe(operation, bodyNode, version);
    if (!res.destroyed) send(res, 200, answer.body, version);
  }

  let server: Server | null = null;
  const sockets = new Set<Socket>();

  return {
    handle: (req: IncomingMessage, res: ServerResponse) => {
      handle(req, res).catch(() => {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('fake ARCA failed');
        } else res.destroy();
      });
    },
    control,
    stats,
    async listen(port = 0, host = '127.0.0.1') {
      server = createServer((req, res) => {
        handle(req, res).catch(() => res.destroy());
      });
      server.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server!.listen(port, host, resolve));
      const address = server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const baseUrl = `http://${host}:${actualPort}`;
      return { baseUrl, wsaaUrl: `${baseUrl}/ws/services/LoginCms`, wsfeUrl: `${baseUrl}/wsfev1/service.asmx` };
    },
    async close() {
      if (!server) return;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = null;
    },
  };
}
