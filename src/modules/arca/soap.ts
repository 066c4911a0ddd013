import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { XMLParser } from 'fast-xml-parser';
import { ArcaFaultError, ArcaTransportError } from './errors.ts';

/**
 * One SOAP 1.1 call over node:http(s): the envelope posted, the answer read whole within
 * `timeoutMs` (connecting, sending and reading together), parsed without namespace prefixes.
 * A SOAP fault becomes ArcaFaultError; anything without a usable answer, ArcaTransportError.
 */

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => ['Err', 'Obs', 'PtoVenta', 'AlicIva', 'FECAEDetResponse', 'Evt', 'CbteAsoc', 'FECAEASINMOV'].includes(name),
});

export function parseXml(text: string): Record<string, unknown> {
  return parser.parse(text) as Record<string, unknown>;
}

/** Reading parsed XML: an element as an object (or empty), a repeated element as a list, a leaf as text. */
export type Node = Record<string, unknown>;
export const obj = (value: unknown): Node => (value && typeof value === 'object' ? (value as Node) : {});
export const list = (value: unknown): Node[] => (Array.isArray(value) ? (value as Node[]) : value ? [value as Node] : []);
export const text = (value: unknown): string =>
  value === undefined || value === null || typeof value === 'object' ? '' : String(value);

export const xmlEscape = (value: string | number) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

export interface SoapCall {
  url: string;
  /** The SOAPAction header value (WSAA takes an empty one). */
  action: string;
  envelope: string;
  timeoutMs: number;
  operation: string;
}

export function postSoap({ url, action, envelope, timeoutMs, operation }: SoapCall): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const payload = Buffer.from(envelope, 'utf8');
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: ArcaTransportError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(err);
    };
    const req = send(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'text/xml; charset=utf-8',
          soapaction: `"${action}"`,
          'content-length': payload.length,
          accept: 'text/xml',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('aborted', () => fail(new ArcaTransportError('network', operation, 'the connection closed mid-answer')));
        res.on('error', (err) => fail(new ArcaTransportError('network', operation, err.message)));
        res.on('end', () => {
          if (settled) return;
          if (!res.complete) return fail(new ArcaTransportError('network', operation, 'the connection closed mid-answer'));
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    const timer = setTimeout(
      () => fail(new ArcaTransportError('timeout', operation, `no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('error', (err) => fail(new ArcaTransportError('network', operation, err.message)));
    req.end(payload);
  });
}

/** Posts and returns the SOAP Body's content; faults and transport failures throw. */
export async function soapBody(call: SoapCall): Promise<Record<string, unknown>> {
  const { status, body } = await postSoap(call);
  let parsed: Record<string, unknown>;
  try {
    parsed = parseXml(body);
  } catch {
    throw new ArcaTransportError('http', call.operation, `unreadable answer (HTTP ${status})`, status);
  }
  const envelope = parsed['Envelope'] as Record<string, unknown> | undefined;
  const soapBodyNode = envelope?.['Body'] as Record<string, unknown> | undefined;
  const fault = soapBodyNode?.['Fault'] as Record<string, unknown> | undefined;
  if (fault) {
    const code = String(fault['faultcode'] ?? (fault['Code'] as Record<string, unknown> | undefined)?.['Value'] ?? 'unknown');
    const text = String(fault['faultstring'] ?? (fault['Reason'] as Record<string, unknown> | undefined)?.['Text'] ?? '');
    throw new ArcaFaultError(code.replace(/^[^:]*:/, ''), text, call.operation);
  }
  if (status !== 200 || !soapBodyNode) {
    throw new ArcaTransportError('http', call.operation, `HTTP ${status} without a SOAP answer`, status);
  }
  return soapBodyNode;
}
