/**
 * The placeholders of a WhatsApp template's text and how a filled one reads. Shared by the server
 * (the text stored for a sent template) and the panel (its preview), so both show what Meta delivers:
 * {{1}}, {{2}}… are filled by their number (not by the order they appear in), {{name}} by its name.
 */
export type ParameterFormat = 'POSITIONAL' | 'NAMED';

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;

/**
 * The values a text asks for, in the order they are given: by number for positional templates
 * ({{2}} … {{1}} asks for 1 then 2), by first appearance for named ones. Each once.
 */
export function placeholdersOf(text: string | null, format: ParameterFormat): string[] {
  const keys = [...new Set([...(text ?? '').matchAll(PLACEHOLDER)].map((m) => m[1]!))];
  return format === 'POSITIONAL' ? keys.sort((a, b) => Number(a) - Number(b)) : keys;
}

/** The text with each placeholder replaced by its value (`missing` words an empty one). */
export function fillTemplate(
  text: string,
  placeholders: readonly string[],
  values: readonly string[],
  missing: (key: string) => string = (key) => `{{${key}}}`,
): string {
  return text.replace(PLACEHOLDER, (whole, key: string) => {
    const i = placeholders.indexOf(key);
    if (i < 0) return whole;
    return values[i] || missing(key);
  });
}
