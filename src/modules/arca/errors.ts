/** Failures talking to ARCA, by what the caller can conclude from them. */

/**
 * No usable answer: `timeout` (nothing complete within the time limit), `network` (refused,
 * reset, dropped mid-answer) or `http` (a status other than 200 without a SOAP fault). A request
 * that failed this way may or may not have been processed by ARCA.
 */
export class ArcaTransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network' | 'http',
    readonly operation: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ArcaTransportError';
  }
}

/** A SOAP fault (WSAA: `coe.alreadyAuthenticated`, `cms.cert.untrusted`, …; the `ns1:` prefix dropped). */
export class ArcaFaultError extends Error {
  constructor(
    readonly faultCode: string,
    readonly faultString: string,
    readonly operation: string,
  ) {
    super(`${operation}: ${faultCode}: ${faultString}`);
    this.name = 'ArcaFaultError';
  }
}

/** WSFEv1 `Errors/Err` on an operation other than FECAESolicitar (600 token, 601 CUIT, 602 no data, …). */
export class ArcaServiceError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly operation: string,
  ) {
    super(`${operation}: ${code} ${message}`);
    this.name = 'ArcaServiceError';
  }
}

/** No access ticket can be had now (ARCA says one exists that we do not hold). Message in Spanish. */
export class ArcaTicketUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArcaTicketUnavailableError';
  }
}
