import { createHash } from 'node:crypto';

/**
 * The name of a statement, derived from its text: the name node-postgres prepares it under, and
 * the name a failed statement is logged under (never its parameters: see logger.ts).
 */
export function statementName(text: string): string {
  return `s_${createHash('sha1').update(text).digest('base64url')}`;
}
