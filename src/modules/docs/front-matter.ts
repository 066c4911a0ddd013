export interface FrontMatter {
  fields: Record<string, string>;
  body: string;
}

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/**
 * Splits `---`-fenced front matter of flat `key: value` lines from a markdown body. Values may be
 * quoted ("…" or '…'); anything richer than that is not needed by the docs and is refused.
 */
export function parseFrontMatter(source: string): FrontMatter {
  const text = source.replace(/^\uFEFF/, '');
  const match = FENCE.exec(text);
  if (!match) return { fields: {}, body: text };
  const fields: Record<string, string> = {};
  for (const [index, line] of match[1]!.split(/\r?\n/).entries()) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!pair) throw new Error(`front matter line ${index + 2} is not "key: value": ${JSON.stringify(line)}`);
    fields[pair[1]!] = unquote(pair[2]!.trim());
  }
  return { fields, body: text.slice(match[0].length) };
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(["\\])/g, '$1');
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}
