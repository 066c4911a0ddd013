import type { ErrorCode, ErrorDetail } from '../../lib/errors.ts';
import { formatDecimal, formatPesos, toMilli } from '../../lib/money.ts';

/**
 * What a person reads when the server refuses something: one Spanish text per error `code` (and,
 * where one code covers several cases, per `details`). Screens never read the English `error`
 * message to decide; a screen that needs its own wording for a code passes it to `api()` by code.
 */

export interface ErrorLike {
  code?: string | null;
  error?: string;
  details?: ErrorDetail[];
}

type Text = string | ((err: ErrorLike) => string);

/** The fields a validation refusal names, in a shop owner's words. */
const FIELD: Record<string, string> = {
  barcode: 'el código de barras',
  name: 'el nombre',
  sku: 'el código interno',
  base_price: 'el precio',
  price: 'el precio',
  cost: 'el costo',
  email: 'el email',
  phone: 'el teléfono',
  document: 'el documento',
  document_type: 'el tipo de documento',
  iva_condition: 'la condición frente al IVA',
  credit_limit: 'el límite de crédito',
  postal_code: 'el código postal',
  cuit: 'el CUIT',
  quantity: 'la cantidad',
  items: 'los productos de la venta',
  payments: 'los pagos',
  amount: 'el monto',
  reason: 'el motivo',
  deposit_id: 'el depósito',
  to_deposit_id: 'el depósito de destino',
  sold_at: 'la fecha de la venta',
  opened_at: 'la hora de apertura del turno',
  closed_at: 'la hora de cierre del turno',
  certificate: 'el certificado',
  private_key: 'la clave privada',
  legal_name: 'la razón social',
  activity_start: 'el inicio de actividades',
  points_of_sale: 'los puntos de venta',
  default_point_of_sale: 'el punto de venta de las facturas',
};

/** What is wrong with an uploaded ARCA certificate or its key, by the detail's `reason`. */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  not_a_certificate: 'Eso no es un certificado: subí el archivo .crt que te dio ARCA (empieza con -----BEGIN CERTIFICATE-----).',
  certificate_other_cuit: 'Ese certificado es de otro CUIT: subí el que generaste en ARCA con el CUIT de la empresa.',
  certificate_expired: 'Ese certificado ya venció: generá uno nuevo en ARCA y subilo.',
  private_key_missing:
    'Falta la clave privada: pegala junto al certificado, o generá acá el pedido de certificado (CSR) antes de pedirlo en ARCA.',
  key_mismatch:
    'La clave privada no corresponde a ese certificado: usá la clave con la que generaste el pedido de certificado (CSR).',
};

/** "/items/0/price" → "el precio"; null when the path names nothing we word. */
function fieldOf(path: string): string | null {
  const parts = path.split(/[/.]/).filter((p) => p !== '' && !/^\d+$/.test(p));
  for (const part of parts.reverse()) {
    const word = FIELD[part];
    if (word) return word;
  }
  return null;
}

const FILE_KIND: Record<string, string> = {
  xlsx: 'un libro de Excel (.xlsx)',
  xls: 'un libro de Excel viejo (.xls)',
  pdf: 'un PDF',
};
const lineText = (d: ErrorDetail) => (d.line === undefined ? '' : ` (línea ${d.line})`);

/** A refused spreadsheet, by the `message` of its detail. */
const FILE_PROBLEMS: Record<string, (d: ErrorDetail) => string> = {
  not_text: (d) =>
    `El archivo no es una planilla CSV: parece ${FILE_KIND[d.found ?? ''] ?? 'un archivo binario'}. Guardalo como CSV (Archivo → Guardar como → CSV) y subí ese.`,
  binary_data: (d) =>
    `El archivo tiene datos que no son texto${lineText(d)}. Guardá la planilla como CSV (UTF-8) y subila de nuevo.`,
  unknown_encoding: (d) =>
    `No pudimos leer el archivo${lineText(d)}: no es UTF-8 ni Windows-1252. Guardá la planilla como CSV UTF-8.`,
  repeated_column: (d) =>
    `La columna «${d.found ?? ''}» aparece dos veces en la primera línea (o con otro nombre que significa lo mismo). Dejá una sola y subí el archivo de nuevo.`,
  mixed_encoding: (d) =>
    `El archivo mezcla codificaciones${lineText(d)}: una parte es UTF-8 y otra no. Guardá toda la planilla como CSV UTF-8.`,
};

function validation(err: ErrorLike): string {
  const fields = [...new Set((err.details ?? []).map((d) => fieldOf(d.path)).filter((f): f is string => f !== null))];
  const barcode = err.details?.find((d) => fieldOf(d.path) === FIELD.barcode);
  if (barcode?.message === 'wrong_check_digit' && barcode.expected !== undefined) {
    return `El dígito verificador del código de barras no coincide: el último debería ser ${barcode.expected}. Revisá que esté bien escrito.`;
  }
  if (barcode?.message === 'wrong_length') {
    return 'El código de barras tiene que tener 8, 12 o 13 dígitos (EAN-8, UPC-A o EAN-13).';
  }
  const file = err.details?.find((d) => d.path === '/body' && FILE_PROBLEMS[d.message] !== undefined);
  if (file) return FILE_PROBLEMS[file.message]!(file);
  if (barcode?.message === 'not_digits') return 'El código de barras lleva solo números.';
  if (fields.some((f) => f === FIELD.barcode)) {
    return 'El código de barras no es válido: revisá que esté bien escrito y que el último dígito, el dígito verificador, sea el correcto.';
  }
  const certificate = err.details?.find((d) => d.reason !== undefined && d.reason in CERTIFICATE_PROBLEMS);
  if (certificate) return CERTIFICATE_PROBLEMS[certificate.reason!]!;
  const cash = err.details?.find((d) => d.message === 'more_than_cash');
  if (cash) {
    return `En la caja debería haber ${formatPesos(cash.expected ?? 0)} en efectivo: no se puede retirar más que eso. Si entró plata sin registrar, cargala primero como «Ingreso».`;
  }
  if (err.details?.some((d) => d.message === 'amount_max')) {
    return 'El importe pasa el máximo que se puede registrar ($\u00a0999.999.999.999,99): revisá la cantidad y el precio.';
  }
  if (err.details?.some((d) => d.path === '/buyer/doc_type' && d.message === 'cuit')) {
    return 'Con esa condición frente al IVA corresponde Factura A, y esa se hace solo con el CUIT del comprador (no con DNI ni CUIL): elegí CUIT y cargá su número.';
  }
  if (err.details?.some((d) => d.message === 'buyer_identification_required')) {
    return 'Desde $\u00a010.000.000 hay que identificar al comprador (RG 5700): cargá su CUIT o DNI.';
  }
  return fields.length > 0
    ? `Revisá ${fields.join(', ')}: hay un dato que no es válido.`
    : 'Revisá los datos: hay alguno que no es válido.';
}

/** A value that is already someone else's: names the other product when the server says which. */
function conflict(err: ErrorLike): string {
  const taken = err.details?.find((d) => d.message === 'taken' && d.product_id !== undefined);
  if (!taken) return 'Eso choca con algo que ya existe.';
  const what = fieldOf(taken.path) ?? 'ese dato';
  const owner = taken.product_name ? `«${taken.product_name}» (producto ${taken.product_id})` : `el producto ${taken.product_id}`;
  return `${capitalise(what)} ya lo usa ${owner}.`;
}

/** A document that another customer of the company already has: names that customer. */
function documentTaken(err: ErrorLike): string {
  const taken = err.details?.find((d) => d.customer_id !== undefined);
  if (!taken) return 'Ese documento ya es de otro cliente.';
  const owner = taken.customer_name
    ? `«${taken.customer_name}» (cliente ${taken.customer_id})`
    : `el cliente ${taken.customer_id}`;
  return `Ese documento ya lo tiene ${owner}.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A detail the server sends as a number (insufficient_stock: /stock, /amount, /remaining). */
function detailNumber(err: ErrorLike, path: string): number | null {
  const found = err.details?.find((d) => d.path === path);
  const value = found ? Number(found.message) : Number.NaN;
  return Number.isFinite(value) ? value : null;
}

/** A quantity as a person reads it: "1,5", "−3". */
export function formatStockQuantity(value: number): string {
  const text = formatDecimal(toMilli(Math.abs(value)), 3, { minDecimals: 0 });
  return value < 0 ? `\u2212${text}` : text;
}

function insufficientStock(err: ErrorLike): string {
  const stock = detailNumber(err, '/stock');
  const remaining = detailNumber(err, '/remaining');
  if (stock === null || remaining === null) return 'No hay tanto stock en el depósito.';
  return `En el depósito hay ${formatStockQuantity(stock)}: quedarían ${formatStockQuantity(remaining)}.`;
}

const TEXTS: Record<ErrorCode | 'offline', Text> = {
  offline: 'No hay conexión con el servidor. Revisá tu red y probá de nuevo.',
  bad_request: 'El pedido no es válido. Revisá los datos.',
  missing_parameter: 'Falta un dato en el pedido. Actualizá la página y probá de nuevo.',
  invalid_json: 'El pedido no es válido. Actualizá la página y probá de nuevo.',
  timestamp_out_of_window: 'La hora del equipo está muy corrida: revisá la fecha y la hora.',
  unauthenticated: 'Tu sesión terminó. Ingresá de nuevo.',
  signature_mismatch: 'La firma del pedido no coincide.',
  forbidden: 'No tenés permiso para hacer esto con tu usuario.',
  price_needs_admin: 'Cambiar el precio de un producto necesita a un administrador.',
  discount_needs_approval: 'Ese descuento supera el límite de la empresa: tiene que aprobarlo un administrador.',
  refund_needs_approval: 'Devolver dinero lo aprueba un administrador: que ingrese su email y su contraseña.',
  approval_refused: 'No se pudo aprobar: el email o la contraseña no son correctos, o esa persona no administra la empresa.',
  invalid_signature: 'La firma del pedido no es válida.',
  send_disabled: 'El envío de mensajes está apagado para esta cuenta.',
  not_found: 'No encontramos lo que buscabas: puede que lo hayan borrado. Actualizá la página.',
  product_not_found: 'Ese producto no existe (puede que lo hayan borrado). Actualizá la página.',
  page_not_found: 'Esa página no existe.',
  method_not_allowed: 'Esa dirección no acepta este pedido. Actualizá la página.',
  customer_not_found: 'Ese cliente no existe (puede que lo hayan borrado). Actualizá la página.',
  conflict,
  already_member: 'Esa persona ya está en la empresa.',
  cuit_unavailable: 'Ese CUIT no se puede usar en esta empresa; escribinos a soporte.',
  last_admin: 'Es la única persona que administra la empresa: primero hacé administradora a otra.',
  invitation_wrong_account:
    'Esta invitación es para otro email: cerrá la sesión e ingresá con la cuenta de ese email (o creala desde el enlace).',
  invitation_refused: 'Esta invitación no se puede aceptar con esta cuenta. Si creés que es un error, escribinos a soporte.',
  invitation_needs_login: 'Ese email ya tiene cuenta en Mostrador: ingresá con tu contraseña para aceptar la invitación.',
  invitation_expired: 'Esta invitación venció: pedile a la empresa que te mande una nueva.',
  invitation_used: 'Esta invitación ya se usó: cada enlace sirve una sola vez.',
  invitation_revoked: 'La empresa anuló esta invitación: si la esperabas, pedile una nueva.',
  cannot_change_self: 'No podés hacerlo con tu propio usuario: pedíselo a otra persona que administre la empresa.',
  channel_not_connected: 'La cuenta de Instagram no está conectada.',
  reconnect_required: 'Hay que volver a conectar la cuenta de Instagram.',
  insufficient_stock: insufficientStock,
  customer_document_taken: documentTaken,
  credit_limit_exceeded:
    'La venta supera el límite de crédito del cliente: cobrá una parte o pedile a un administrador que la autorice.',
  payload_too_large: 'Es demasiado grande para enviarlo.',
  request_timeout: 'El pedido tardó demasiado en llegar. Probá de nuevo.',
  headers_too_large: 'El pedido no es válido. Cerrá sesión y volvé a entrar.',
  unsupported_media_type: 'Ese tipo de archivo no se puede usar.',
  unsupported_event: 'Ese evento no está soportado.',
  validation_failed: validation,
  invalid_reference: 'Algo de lo que mandaste ya no existe: actualizá la página.',
  unknown_scale_plu: 'La etiqueta de balanza no corresponde a ningún producto.',
  invalid_state: 'No se puede hacer en el estado en que está ahora. Actualizá la página.',
  no_open_session: 'La caja no tiene un turno abierto: abrila para vender.',
  shift_of_another_person:
    'La caja tiene abierto el turno de otra persona. Para trabajar en tu propio turno, hacé el relevo: contá su caja y abrí el tuyo.',
  password_change_required: 'Tenés una contraseña temporal: elegí una nueva para seguir.',
  return_exceeds_sold: 'No podés devolver más de lo que se vendió (descontando lo que ya se devolvió).',
  no_refund_session: 'Para devolver dinero tenés que tener un turno de caja abierto: abrí uno y volvé a intentar.',
  fiscal_setup_incomplete: 'La empresa todavía no está lista para facturar: completá Configuración → Facturación.',
  window_closed: 'Pasaron más de 24 horas desde el último mensaje de la persona: ya no se le puede escribir.',
  recipient_not_found: 'No encontramos a esa persona en Instagram.',
  recipient_not_allowed:
    'Meta no deja escribirle a este número: la app está en modo de desarrollo y el número no está en su lista de destinatarios permitidos.',
  template_unsupported:
    'Esa plantilla pide una imagen, un encabezado o un botón con datos que desde acá no se pueden completar: elegí otra.',
  arca_rejected: 'ARCA rechazó el comprobante.',
  rate_limited: 'Demasiados intentos seguidos. Esperá un minuto y probá de nuevo.',
  invitation_limit: 'Llegaste a las 50 invitaciones de hoy. Podés invitar de nuevo mañana.',
  internal: 'Algo falló de nuestro lado. Probá de nuevo en un rato.',
  caea_unavailable:
    'Todavía no hay CAEA para esta quincena: pedilo en Configuración → Facturación (o esperá a que Mostrador lo obtenga).',
  upstream_failed: 'El servicio externo respondió con un error. Probá de nuevo en unos minutos.',
  upstream_timeout: 'El servicio externo no respondió a tiempo. Probá de nuevo en unos minutos.',
  unavailable: 'El servicio no se puede usar en este momento. Probá de nuevo en un rato.',
  rate_unavailable: 'No tenemos la cotización del dólar en este momento.',
  channel_not_configured: 'El canal todavía no está configurado.',
};

/** Every code this module words (the server's closed set plus the browser's own `offline`). */
export const DESCRIBED_CODES = Object.keys(TEXTS) as (ErrorCode | 'offline')[];

/** True when `code` is one this module has a text for. */
export function isDescribed(code: string | null | undefined): boolean {
  return typeof code === 'string' && Object.hasOwn(TEXTS, code);
}

/** The Spanish text for a refusal, chosen by its `code` (and `details`); a general one for an unknown code. */
export function describeError(err: ErrorLike): string {
  const text = err.code && Object.hasOwn(TEXTS, err.code) ? TEXTS[err.code as ErrorCode] : null;
  if (text === null) return 'No se pudo completar. Probá de nuevo en un rato.';
  return typeof text === 'function' ? text(err) : text;
}
