/**
 * CAEA fortnights (WSFEv1 manual §FECAEASolicitar): `Periodo` YYYYMM and `Orden` 1 (days 1–15) or
 * 2 (16 to the month's end). A CAEA may be requested from 5 calendar days before its fortnight
 * starts until the fortnight's last day. Dates are ARCA's YYYYMMDD (Argentina).
 */

export interface Fortnight {
  period: number;
  order: 1 | 2;
}

const day = (yyyymmdd: string) =>
  Date.UTC(Number(yyyymmdd.slice(0, 4)), Number(yyyymmdd.slice(4, 6)) - 1, Number(yyyymmdd.slice(6, 8))) / 86_400_000;
const ymd = (dayNumber: number) => new Date(dayNumber * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');

export function addDays(yyyymmdd: string, days: number): string {
  return ymd(day(yyyymmdd) + days);
}

export function daysBetween(from: string, to: string): number {
  return day(to) - day(from);
}

export function fortnightOf(yyyymmdd: string): Fortnight {
  return { period: Number(yyyymmdd.slice(0, 6)), order: Number(yyyymmdd.slice(6, 8)) <= 15 ? 1 : 2 };
}

export function fortnightRange({ period, order }: Fortnight): { from: string; to: string } {
  const year = Math.floor(period / 100);
  const month = period % 100;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const p = String(period);
  return order === 1 ? { from: `${p}01`, to: `${p}15` } : { from: `${p}16`, to: `${p}${String(last).padStart(2, '0')}` };
}

export function nextFortnight({ period, order }: Fortnight): Fortnight {
  if (order === 1) return { period, order: 2 };
  const year = Math.floor(period / 100);
  const month = period % 100;
  return month === 12 ? { period: (year + 1) * 100 + 1, order: 1 } : { period: period + 1, order: 1 };
}

/** When ARCA takes FECAEASolicitar for this fortnight (error 15006 outside). */
export function requestWindow(f: Fortnight): { opens: string; closes: string } {
  const { from, to } = fortnightRange(f);
  return { opens: addDays(from, -5), closes: to };
}

export function validFortnight(period: number, order: number): boolean {
  const month = period % 100;
  return (
    Number.isInteger(period) && period >= 200001 && period <= 999912 && month >= 1 && month <= 12 && (order === 1 || order === 2)
  );
}

export const fortnightLabel = (f: Fortnight) => `${String(f.period).slice(0, 4)}-${String(f.period).slice(4)}/${f.order}`;
