/** CUIT/CUIL validation: 11 digits, the last one a mod-11 check digit over weights 5432765432. */
const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;
const VALID_PREFIXES = new Set(['20', '23', '24', '25', '26', '27', '30', '33', '34']);

/** Returns the 11 digits of a valid CUIT (accepts "20-12345678-6" or "20123456786"), or null. */
export function normalizeCuit(input: string): string | null {
  const trimmed = input.trim();
  if (!/^\d{2}-?\d{8}-?\d$/.test(trimmed)) return null;
  const digits = trimmed.replace(/-/g, '');
  if (!VALID_PREFIXES.has(digits.slice(0, 2))) return null;
  return cuitCheckDigit(digits.slice(0, 10)) === Number(digits[10]) ? digits : null;
}

/** The check digit for the first ten digits, or -1 when none exists (remainder 1 gives 10). */
export function cuitCheckDigit(first10: string): number {
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += Number(first10[i]) * WEIGHTS[i]!;
  const check = 11 - (sum % 11);
  if (check === 11) return 0;
  if (check === 10) return -1;
  return check;
}

export function formatCuit(digits: string): string {
  return `${digits.slice(0, 2)}-${digits.slice(2, 10)}-${digits.slice(10)}`;
}
