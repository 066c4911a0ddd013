/**
 * Files a customer sent (WhatsApp media, Instagram attachments) are streamed to the operator from
 * our own origin, where the superadmin session lives. Whatever the sender chose as the type must not
 * run there: only pictures, sound, video and PDF open in the browser; anything else (HTML, SVG,
 * XML…) is a download. And none runs a script even when opened (CSP sandbox: an opaque origin,
 * no scripts, no forms), except PDF, which the browser's viewer refuses to show sandboxed.
 */
const SHOWN_INLINE = /^(?:image\/(?:png|jpeg|gif|webp|avif|bmp|heic|heif)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf)$/;

export function customerFileHeaders(contentType: string): Record<string, string> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const inline = SHOWN_INLINE.test(type);
  return {
    'content-type': contentType,
    'content-disposition': inline ? 'inline' : 'attachment',
    ...(type === 'application/pdf' ? {} : { 'content-security-policy': 'sandbox' }),
    'x-content-type-options': 'nosniff',
  };
}
