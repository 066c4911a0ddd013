import type { OutboundEvent } from '../../modules/webhooks/webhook-events.ts';

/** What each outbound event means, for the owner choosing what to receive. */
export const EVENT_DESCRIPTIONS: Record<OutboundEvent, string> = {
  'sales.created': 'Venta nueva',
  'sales.paid': 'Venta cobrada',
  'sales.cancelled': 'Venta anulada',
  'invoice.issued': 'Factura emitida',
  'movement.created': 'Movimiento de stock (entrada, salida, transferencia o ajuste)',
  'product.upserted': 'Producto creado o modificado',
  'product.stock_updated': 'Cambio de stock de un producto',
};

const PRIVATE = /(\S+?) (?:is|resolves to) (?:the )?(?:a )?private or loopback address/;

/**
 * A delivery failure as the receiver's owner can act on it: what happened and what to do, in
 * Spanish. The log keeps the technical text (English) for whoever runs the receiving server.
 */
export function explainDeliveryError(error: string | null, statusCode: number | null): string {
  const text = error ?? '';
  const privateTarget = PRIVATE.exec(text);
  if (privateTarget) {
    return `La dirección apunta a una red privada o a esta misma máquina (${privateTarget[1]!.replace(/^target /, '')}): Mostrador solo envía a servidores públicos de internet. Usá la dirección pública de tu sistema.`;
  }
  const host = /(?:ENOTFOUND|no address for) (\S+)/.exec(text);
  if (host || /ENOTFOUND|EAI_AGAIN/.test(text)) {
    return `No existe el servidor ${host?.[1] ?? ''} (el nombre no se encuentra en DNS). Revisá que la dirección esté bien escrita.`.replace(
      '  ',
      ' ',
    );
  }
  if (/timed out|ETIMEDOUT/.test(text))
    return 'Tu servidor tardó demasiado en responder (más de 10 segundos). Revisá que esté encendido y responda rápido.';
  if (/ECONNREFUSED/.test(text)) return 'Tu servidor rechazó la conexión: no hay nada escuchando en esa dirección y puerto.';
  if (/ECONNRESET|socket hang up|cut short/.test(text)) return 'Tu servidor cortó la conexión antes de responder.';
  if (/certificate|CERT_|SSL|TLS/i.test(text))
    return 'El certificado HTTPS de tu servidor no es válido (vencido, autofirmado o de otro nombre).';
  if (/redirects are not followed/.test(text)) {
    return `Tu servidor respondió con una redirección (HTTP ${statusCode ?? ''}); Mostrador no las sigue: poné la dirección final.`;
  }
  if (statusCode !== null && (statusCode < 200 || statusCode >= 300)) {
    if (statusCode === 401 || statusCode === 403)
      return `Tu servidor rechazó el envío (HTTP ${statusCode}): revisá la verificación de la firma o los encabezados.`;
    if (statusCode === 404) return 'Tu servidor respondió HTTP 404: la ruta no existe. Revisá la dirección.';
    if (statusCode === 410) return 'Tu servidor respondió HTTP 410 (ya no existe): el webhook se desactiva.';
    if (statusCode >= 500) return `Tu servidor falló al recibirlo (HTTP ${statusCode}). Se reintenta solo.`;
    return `Tu servidor respondió HTTP ${statusCode}: solo un 2xx cuenta como recibido.`;
  }
  return text ? `No se pudo entregar: ${text}` : 'No se pudo entregar.';
}

const FIELD_NAMES: Record<string, string> = {
  url: 'La dirección',
  events: 'Los eventos',
  headers: 'Los encabezados',
  secret: 'El secreto',
  description: 'La descripción',
};

/** The settings API's validation details, said in Spanish per field. */
export function explainEndpointProblems(details: { path: string; message: string }[]): string {
  return details
    .map(({ path, message }) => {
      const field = path.replace(/^body\./, '').split('.')[0]!;
      if (field === 'url') {
        const privateTarget = PRIVATE.exec(message);
        if (privateTarget) return explainDeliveryError(message, null);
        if (/not a valid URL|is required/.test(message)) return 'La dirección no es una URL válida (empezá con https://).';
        if (/http or https/.test(message)) return 'La dirección tiene que empezar con https:// o http://.';
        if (/credentials/.test(message)) return 'La dirección no puede llevar usuario y contraseña: mandalos como encabezado.';
      }
      if (field === 'headers') {
        if (/set by Mostrador/.test(message))
          return `El encabezado ${path.split('.').slice(1).join('.')} lo pone Mostrador en cada envío: no se puede reemplazar.`;
        return `Encabezado ${path.split('.').slice(1).join('.') || ''} no válido: usá «Nombre: valor», sin saltos de línea.`;
      }
      if (field === 'secret') return 'El secreto propio tiene que tener entre 24 y 256 caracteres, sin espacios.';
      return `${FIELD_NAMES[field] ?? field}: revisá el valor.`;
    })
    .join(' ');
}
