/**
 * What ARCA's WSFEv1 codes mean for a shop owner and what to fix, in Spanish (shown on screen and
 * in docs/facturacion.md). Codes not listed show ARCA's own text.
 */
export const ARCA_CODE_HINTS: Record<number, string> = {
  500: 'ARCA tuvo un error interno. Reintentá en unos minutos.',
  501: 'La base de datos de ARCA no respondió. Reintentá en unos minutos.',
  502: 'ARCA estaba autorizando otro comprobante del mismo punto de venta. Mostrador lo verifica y reintenta solo.',
  600: 'ARCA no aceptó el ticket de acceso. Probá la conexión en Configuración → Facturación.',
  601: 'El CUIT de la empresa no figura entre los que puede representar el certificado. Si delegaste hace poco, esperá unos minutos y reintentá; si no, revisá la delegación en el Administrador de Relaciones de ARCA.',
  602: 'ARCA no tiene ese comprobante.',
  10004: 'El punto de venta tiene que estar entre 1 y 99998.',
  10005:
    'El punto de venta no está dado de alta en ARCA como "web service". Crealo en ARCA (Administración de puntos de venta) o elegí otro.',
  10013: 'La factura A se emite al CUIT del comprador: cargá su CUIT.',
  10015: 'Falta identificar al comprador (tipo y número de documento) o el número no figura en los padrones de ARCA.',
  10016:
    'El número o la fecha no son los que ARCA espera. Si es el número, Mostrador lo vuelve a pedir solo; si es la fecha, revisá la fecha del equipo.',
  10023: 'El IVA total no coincide con la suma del IVA de cada alícuota.',
  10040: 'El comprobante asociado no corresponde a esta nota de crédito.',
  10041: 'El comprobante asociado no existe en ARCA para ese punto de venta.',
  10048: 'El total no coincide con la suma de neto, IVA, exento y tributos. Revisá los precios y las alícuotas de los productos.',
  10051: 'El IVA de una alícuota no corresponde a su base imponible. Revisá la alícuota de IVA de los productos.',
  10061: 'La suma de las bases imponibles no coincide con el neto gravado.',
  10070: 'Falta el detalle de IVA de un comprobante con neto gravado.',
  10071: 'Un comprobante C no lleva IVA discriminado: revisá la condición frente al IVA de la empresa (Monotributo).',
  10197: 'La nota de crédito tiene que indicar la factura que anula.',
  10242: 'La condición frente al IVA del comprador no es un valor que ARCA acepte. Elegí otra.',
  10243:
    'La condición frente al IVA del comprador no corresponde a esta clase de comprobante (A: Responsable Inscripto o Monotributo; B: Consumidor Final, Exento y otros).',
  10245: 'Aviso de ARCA: la condición frente al IVA del comprador será obligatoria.',
  10246: 'Falta la condición frente al IVA del comprador, obligatoria (RG 5616).',
};

export function arcaHint(code: number, arcaMessage?: string): string {
  return ARCA_CODE_HINTS[code] ?? arcaMessage ?? `ARCA respondió con el código ${code}.`;
}

/** Receiver IVA conditions (CondicionIVAReceptorId, FEParamGetCondicionIvaReceptor). */
export const RECEIVER_CONDITIONS: Record<number, string> = {
  1: 'IVA Responsable Inscripto',
  4: 'IVA Sujeto Exento',
  5: 'Consumidor Final',
  6: 'Responsable Monotributo',
  7: 'Sujeto No Categorizado',
  8: 'Proveedor del Exterior',
  9: 'Cliente del Exterior',
  10: 'IVA Liberado – Ley N° 19.640',
  13: 'Monotributista Social',
  15: 'IVA No Alcanzado',
  16: 'Monotributo Trabajador Independiente Promovido',
};
/** Conditions that receive class A from a Responsable Inscripto (RG 5003: monotributistas too). */
export const CLASS_A_RECEIVERS: ReadonlySet<number> = new Set([1, 6, 13, 16]);
