import { createHash } from 'node:crypto';

/** Names already worked out, by text: a hot statement's text is hashed once, not on every run. */
const names = new Map<string, string>();
const MAX_NAMES = 2_000;

/**
 * The name of a statement, derived from its text: the name node-postgres prepares it under, and
 * the name a failed statement is logged under (never its parameters: see logger.ts).
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `s_${createHash('sha1').update(text).digest('base64url')}`;
    // The texts are statement shapes (values are parameters), so they are few; a flood of new
    // ones only starts the memory over.
    if (names.size >= MAX_NAMES) names.clear();
    names.set(text, name);
  }
  return name;
}
