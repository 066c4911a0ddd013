import { signLoginTicketRequest } from './cms.ts';
import { ArcaTransportError } from './errors.ts';
import { parseXml, soapBody, xmlEscape } from './soap.ts';
import { argentinaIso } from './time.ts';

const WSAA_NS = 'http://wsaa.view.sua.dvadac.desein.afip.gov';

/** The login ticket request: valid from 10 minutes ago to 10 minutes ahead (clock skew). */
export function buildLoginTicketRequest({ service, now, uniqueId }: { service: string; now: Date; uniqueId?: number }): string {
  const id = uniqueId ?? Math.floor(now.getTime() / 1000);
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<loginTicketRequest version="1.0"><header><uniqueId>${id}</uniqueId>` +
    `<generationTime>${argentinaIso(new Date(now.getTime() - 600_000))}</generationTime>` +
    `<expirationTime>${argentinaIso(new Date(now.getTime() + 600_000))}</expirationTime>` +
    `</header><service>${xmlEscape(service)}</service></loginTicketRequest>`
  );
}

export interface AccessTicket {
  token: string;
  sign: string;
  generationTime: Date;
  expirationTime: Date;
}

/** WSAA loginCms: the signed request in, the access ticket (token and sign) out. */
export async function loginCms({ url, cms, timeoutMs }: { url: string; cms: string; timeoutMs: number }): Promise<AccessTicket> {
  const envelope =
    `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsaa="${WSAA_NS}">` +
    `<soapenv:Header/><soapenv:Body><wsaa:loginCms><wsaa:in0>${cms}</wsaa:in0></wsaa:loginCms></soapenv:Body></soapenv:Envelope>`;
  const body = await soapBody({ url, action: '', envelope, timeoutMs, operation: 'loginCms' });
  const inner = (body['loginCmsResponse'] as Record<string, unknown> | undefined)?.['loginCmsReturn'];
  if (typeof inner !== 'string') throw new ArcaTransportError('http', 'loginCms', 'answer without loginCmsReturn', 200);
  const ticket = parseXml(inner)['loginTicketResponse'] as Record<string, Record<string, string>> | undefined;
  const token = ticket?.['credentials']?.['token'];
  const sign = ticket?.['credentials']?.['sign'];
  const generation = ticket?.['header']?.['generationTime'];
  const expiration = ticket?.['header']?.['expirationTime'];
  if (!token || !sign || !expiration || !generation)
    throw new ArcaTransportError('http', 'loginCms', 'incomplete access ticket', 200);
  return { token, sign, generationTime: new Date(generation), expirationTime: new Date(expiration) };
}

/** Signs a fresh request for `service` with the certificate and logs in. */
export async function login(options: {
  url: string;
  certPem: string;
  keyPem: string;
  service: string;
  timeoutMs: number;
  now?: Date;
}): Promise<AccessTicket> {
  const now = options.now ?? new Date();
  const tra = buildLoginTicketRequest({ service: options.service, now });
  const cms = signLoginTicketRequest(tra, options.certPem, options.keyPem, now);
  return loginCms({ url: options.url, cms, timeoutMs: options.timeoutMs });
}
