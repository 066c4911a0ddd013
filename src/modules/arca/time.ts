/**
 * ARCA's clock: Argentina's fixed offset (-03:00, no daylight saving since 2009). Shared by the
 * client (WSAA times, CbteFch), the fake, and invoicing.
 */
const OFFSET_MS = 3 * 3_600_000;
const local = (at: Date) => new Date(at.getTime() - OFFSET_MS).toISOString();

/** ISO 8601 at -03:00, as WSAA writes and expects it; `millis` keeps the milliseconds (its answers have them). */
export function argentinaIso(at: Date, { millis = false }: { millis?: boolean } = {}): string {
  return `${local(at).slice(0, millis ? 23 : 19)}-03:00`;
}

/** YYYYMMDD of a moment in Argentina (CbteFch and every other WSFEv1 date). */
export function arcaDate(at: Date): string {
  return local(at).slice(0, 10).replaceAll('-', '');
}

/** HHMMSS of a moment in Argentina (the time part of FchProceso). */
export function arcaTime(at: Date): string {
  return local(at).slice(11, 19).replaceAll(':', '');
}
