const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A lower-cased, trimmed email that looks like an address (at most 254 characters). */
export function isEmailAddress(email: string): boolean {
  return EMAIL.test(email) && email.length <= 254;
}
