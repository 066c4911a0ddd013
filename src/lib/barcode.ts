/** GS1 check digit for the digits before it (EAN-8, UPC-A, EAN-13, GTIN-14). */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = Number(body[body.length - 1 - i]);
    sum += i % 2 === 0 ? digit * 3 : digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** True for an all-digit GTIN (8, 12, 13 or 14 digits) whose last digit checks. */
export function isValidGtin(code: string): boolean {
  if (!/^(\d{8}|\d{12,14})$/.test(code)) return false;
  return gs1CheckDigit(code.slice(0, -1)) === Number(code.at(-1));
}

/** Completes a 12-digit EAN-13 body with its check digit. */
export function ean13(body12: string): string {
  if (!/^\d{12}$/.test(body12)) throw new RangeError(`EAN-13 body must be 12 digits: ${body12}`);
  return body12 + gs1CheckDigit(body12);
}
