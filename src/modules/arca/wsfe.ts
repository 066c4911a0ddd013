import { ArcaServiceError, ArcaTransportError } from './errors.ts';
import { list, type Node, obj, soapBody, text, xmlEscape } from './soap.ts';

/** WSFEv1 (electronic invoicing): the operations Mostrador uses, SOAP 1.1, elements in WSDL order. */

const NS = 'http://ar.gov.afip.dif.FEV1/';

export interface WsfeAuth {
  token: string;
  sign: string;
  cuit: string;
}

export interface CaeRequest {
  pointOfSale: number;
  /** CbteTipo: 1 Factura A, 6 B, 11 C; 3, 8, 13 their credit notes. */
  type: number;
  concept: 1 | 2 | 3;
  docType: number;
  docNumber: string;
  number: number;
  /** YYYYMMDD */
  date: string;
  total: string;
  untaxed: string;
  net: string;
  exempt: string;
  otherTaxes: string;
  iva: string;
  serviceFrom?: string;
  serviceTo?: string;
  paymentDue?: string;
  currency: string;
  currencyRate: string;
  receiverIvaConditionId?: number;
  associated?: { type: number; pointOfSale: number; number: number; cuit?: string; date?: string }[];
  ivaLines: { id: number; base: string; amount: string }[];
}

export interface ArcaNote {
  code: number;
  message: string;
}

export interface CaeResponse {
  result: 'A' | 'R' | 'P';
  cae: string | null;
  caeExpiry: string | null;
  number: number;
  date: string;
  observations: ArcaNote[];
  errors: ArcaNote[];
  processedAt: string | null;
}

/** A CAEA as FECAEASolicitar / FECAEAConsultar answer it (dates YYYYMMDD). */
export interface CaeaGrant {
  caea: string;
  period: number;
  order: 1 | 2;
  validFrom: string;
  validTo: string;
  informBy: string;
  processedAt: string;
  observations: ArcaNote[];
}

export interface CaeaInformResponse {
  result: 'A' | 'R' | 'P';
  observations: ArcaNote[];
  errors: ArcaNote[];
  processedAt: string | null;
}

export interface ConsultedReceipt {
  number: number;
  date: string;
  total: string;
  docType: number;
  docNumber: string;
  result: string;
  cae: string;
  caeExpiry: string;
  /** CAE or CAEA. */
  emission: string;
  concept: number;
  net: string;
  iva: string;
}

function notes(container: unknown, item: 'Err' | 'Obs'): ArcaNote[] {
  return list(obj(container)[item]).map((n) => ({ code: Number(text(n['Code'])), message: text(n['Msg']) }));
}

const tag = (name: string, value: string | number | undefined) =>
  value === undefined ? '' : `<ar:${name}>${xmlEscape(value)}</ar:${name}>`;

const authXml = (auth: WsfeAuth) =>
  `<ar:Auth>${tag('Token', auth.token)}${tag('Sign', auth.sign)}${tag('Cuit', auth.cuit)}</ar:Auth>`;

function detailXml(r: CaeRequest, caea?: { caea: string; generatedAt: string }): string {
  const associated = r.associated?.length
    ? `<ar:CbtesAsoc>${r.associated
        .map(
          (a) =>
            `<ar:CbteAsoc>${tag('Tipo', a.type)}${tag('PtoVta', a.pointOfSale)}${tag('Nro', a.number)}${tag('Cuit', a.cuit)}${tag('CbteFch', a.date)}</ar:CbteAsoc>`,
        )
        .join('')}</ar:CbtesAsoc>`
    : '';
  const iva = r.ivaLines.length
    ? `<ar:Iva>${r.ivaLines.map((l) => `<ar:AlicIva>${tag('Id', l.id)}${tag('BaseImp', l.base)}${tag('Importe', l.amount)}</ar:AlicIva>`).join('')}</ar:Iva>`
    : '';
  const element = caea ? 'FECAEADetRequest' : 'FECAEDetRequest';
  return (
    `<ar:${element}>` +
    tag('Concepto', r.concept) +
    tag('DocTipo', r.docType) +
    tag('DocNro', r.docNumber) +
    tag('CbteDesde', r.number) +
    tag('CbteHasta', r.number) +
    tag('CbteFch', r.date) +
    tag('ImpTotal', r.total) +
    tag('ImpTotConc', r.untaxed) +
    tag('ImpNeto', r.net) +
    tag('ImpOpEx', r.exempt) +
    tag('ImpTrib', r.otherTaxes) +
    tag('ImpIVA', r.iva) +
    tag('FchServDesde', r.serviceFrom) +
    tag('FchServHasta', r.serviceTo) +
    tag('FchVtoPago', r.paymentDue) +
    tag('MonId', r.currency) +
    tag('MonCotiz', r.currencyRate) +
    tag('CondicionIVAReceptorId', r.receiverIvaConditionId) +
    associated +
    iva +
    (caea ? tag('CAEA', caea.caea) + tag('CbteFchHsGen', caea.generatedAt) : '') +
    `</ar:${element}>`
  );
}

export type WsfeClient = ReturnType<typeof createWsfeClient>;

export function createWsfeClient({ url, timeoutMs }: { url: string; timeoutMs: number }) {
  async function call(operation: string, inner: string): Promise<Node> {
    const envelope =
      `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ar="${NS}">` +
      `<soapenv:Header/><soapenv:Body><ar:${operation}>${inner}</ar:${operation}></soapenv:Body></soapenv:Envelope>`;
    const body = await soapBody({ url, action: `${NS}${operation}`, envelope, timeoutMs, operation });
    const result = obj(obj(body[`${operation}Response`])[`${operation}Result`]);
    if (Object.keys(obj(body[`${operation}Response`])).length === 0) {
      throw new ArcaTransportError('http', operation, `answer without ${operation}Response`, 200);
    }
    return result;
  }

  function throwErrors(operation: string, result: Node, allow: number[] = []) {
    const errors = notes(result['Errors'], 'Err').filter((e) => !allow.includes(e.code));
    if (errors.length > 0) throw new ArcaServiceError(errors[0]!.code, errors[0]!.message, operation);
  }

  return {
    async dummy() {
      const r = await call('FEDummy', '');
      return { appServer: text(r['AppServer']), dbServer: text(r['DbServer']), authServer: text(r['AuthServer']) };
    },

    async pointsOfSale(auth: WsfeAuth) {
      const r = await call('FEParamGetPtosVenta', authXml(auth));
      const none = notes(r['Errors'], 'Err').some((e) => e.code === 602);
      throwErrors('FEParamGetPtosVenta', r, [602]);
      if (none) return [];
      return list(obj(r['ResultGet'])['PtoVenta']).map((p) => ({
        number: Number(text(p['Nro'])),
        emissionType: text(p['EmisionTipo']),
        blocked: text(p['Bloqueado']) === 'S',
        removedOn: ['', 'NULL'].includes(text(p['FchBaja'])) ? null : text(p['FchBaja']),
      }));
    },

    async lastAuthorized(auth: WsfeAuth, { pointOfSale, type }: { pointOfSale: number; type: number }): Promise<number> {
      const r = await call('FECompUltimoAutorizado', `${authXml(auth)}${tag('PtoVta', pointOfSale)}${tag('CbteTipo', type)}`);
      throwErrors('FECompUltimoAutorizado', r);
      const n = Number(text(r['CbteNro']));
      if (!Number.isInteger(n) || n < 0)
        throw new ArcaTransportError('http', 'FECompUltimoAutorizado', 'answer without CbteNro', 200);
      return n;
    },

    async requestCae(auth: WsfeAuth, req: CaeRequest): Promise<CaeResponse> {
      const inner =
        authXml(auth) +
        `<ar:FeCAEReq><ar:FeCabReq>${tag('CantReg', 1)}${tag('PtoVta', req.pointOfSale)}${tag('CbteTipo', req.type)}</ar:FeCabReq>` +
        `<ar:FeDetReq>${detailXml(req)}</ar:FeDetReq></ar:FeCAEReq>`;
      const r = await call('FECAESolicitar', inner);
      const head = obj(r['FeCabResp']);
      const detail = list(obj(r['FeDetResp'])['FECAEDetResponse'])[0] ?? {};
      const result = (text(detail['Resultado']) || text(head['Resultado']) || 'R') as CaeResponse['result'];
      const cae = text(detail['CAE']);
      const expiry = text(detail['CAEFchVto']);
      return {
        result,
        cae: cae || null,
        caeExpiry: expiry || null,
        number: Number(text(detail['CbteDesde']) || req.number),
        date: text(detail['CbteFch']) || req.date,
        observations: notes(detail['Observaciones'], 'Obs'),
        errors: notes(r['Errors'], 'Err'),
        processedAt: text(head['FchProceso']) || null,
      };
    },

    async consult(auth: WsfeAuth, { pointOfSale, type, number }: { pointOfSale: number; type: number; number: number }) {
      const r = await call(
        'FECompConsultar',
        `${authXml(auth)}<ar:FeCompConsReq>${tag('CbteTipo', type)}${tag('CbteNro', number)}${tag('PtoVta', pointOfSale)}</ar:FeCompConsReq>`,
      );
      if (notes(r['Errors'], 'Err').some((e) => e.code === 602)) return null;
      throwErrors('FECompConsultar', r);
      const g = obj(r['ResultGet']);
      if (Object.keys(g).length === 0) return null;
      const found: ConsultedReceipt = {
        number: Number(text(g['CbteDesde'])),
        date: text(g['CbteFch']),
        total: text(g['ImpTotal']),
        docType: Number(text(g['DocTipo'])),
        docNumber: text(g['DocNro']),
        result: text(g['Resultado']),
        cae: text(g['CodAutorizacion']),
        caeExpiry: text(g['FchVto']),
        emission: text(g['EmisionTipo']) || 'CAE',
        concept: Number(text(g['Concepto'])),
        net: text(g['ImpNeto']),
        iva: text(g['ImpIVA']),
      };
      return found;
    },

    /**
     * FECAEASolicitar (`consult` false) or FECAEAConsultar: the fortnight's CAEA, or null when
     * ARCA has none (Consultar's 602). Errors (15006 out of window, 15008 already granted, …) throw.
     */
    async caea(auth: WsfeAuth, { period, order, consult }: { period: number; order: 1 | 2; consult: boolean }) {
      const operation = consult ? 'FECAEAConsultar' : 'FECAEASolicitar';
      const r = await call(operation, `${authXml(auth)}${tag('Periodo', period)}${tag('Orden', order)}`);
      if (consult && notes(r['Errors'], 'Err').some((e) => e.code === 602)) return null;
      throwErrors(operation, r);
      const g = obj(r['ResultGet']);
      const caea = text(g['CAEA']);
      if (!/^\d{14}$/.test(caea)) throw new ArcaTransportError('http', operation, 'answer without a CAEA', 200);
      const grant: CaeaGrant = {
        caea,
        period: Number(text(g['Periodo']) || period),
        order: (Number(text(g['Orden']) || order) === 2 ? 2 : 1) as 1 | 2,
        validFrom: text(g['FchVigDesde']),
        validTo: text(g['FchVigHasta']),
        informBy: text(g['FchTopeInf']),
        processedAt: text(g['FchProceso']),
        observations: notes(g['Observaciones'], 'Obs'),
      };
      return grant;
    },

    /** FECAEARegInformativo of one receipt issued under a CAEA (pyafipws sends one per call too). */
    async caeaInform(auth: WsfeAuth, req: CaeRequest, caea: { caea: string; generatedAt: string }): Promise<CaeaInformResponse> {
      const inner =
        authXml(auth) +
        `<ar:FeCAEARegInfReq><ar:FeCabReq>${tag('CantReg', 1)}${tag('PtoVta', req.pointOfSale)}${tag('CbteTipo', req.type)}</ar:FeCabReq>` +
        `<ar:FeDetReq>${detailXml(req, caea)}</ar:FeDetReq></ar:FeCAEARegInfReq>`;
      const r = await call('FECAEARegInformativo', inner);
      const head = obj(r['FeCabResp']);
      const detail = list(obj(r['FeDetResp'])['FECAEADetResponse'])[0] ?? {};
      return {
        result: (text(detail['Resultado']) || text(head['Resultado']) || 'R') as CaeaInformResponse['result'],
        observations: notes(detail['Observaciones'], 'Obs'),
        errors: notes(r['Errors'], 'Err'),
        processedAt: text(head['FchProceso']) || null,
      };
    },

    /** FECAEASinMovimientoInformar: a CAEA point of sale without receipts in the CAEA's fortnight. */
    async caeaNoMovement(auth: WsfeAuth, { pointOfSale, caea }: { pointOfSale: number; caea: string }) {
      const r = await call('FECAEASinMovimientoInformar', `${authXml(auth)}${tag('PtoVta', pointOfSale)}${tag('CAEA', caea)}`);
      return {
        result: (text(r['Resultado']) || 'R') as 'A' | 'R',
        errors: notes(r['Errors'], 'Err'),
        processedAt: text(r['FchProceso']) || null,
      };
    },

    /** FECAEASinMovimientoConsultar: whether this point of sale was informed without movement. */
    async caeaNoMovementConsult(auth: WsfeAuth, { pointOfSale, caea }: { pointOfSale: number; caea: string }) {
      const r = await call('FECAEASinMovimientoConsultar', `${authXml(auth)}${tag('CAEA', caea)}${tag('PtoVta', pointOfSale)}`);
      if (notes(r['Errors'], 'Err').some((e) => e.code === 602)) return false;
      throwErrors('FECAEASinMovimientoConsultar', r);
      return list(obj(r['ResultGet'])['FECAEASINMOV']).some((n) => Number(text(n['PtoVta'])) === pointOfSale);
    },

    async quotation(auth: WsfeAuth, currency: string) {
      const r = await call('FEParamGetCotizacion', `${authXml(auth)}${tag('MonId', currency)}`);
      throwErrors('FEParamGetCotizacion', r);
      const g = obj(r['ResultGet']);
      return { rate: text(g['MonCotiz']), date: text(g['FchCotiz']) };
    },
  };
}
