interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const [type, subtype] = range.trim().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split('=');
      if (key === 'q' && value !== undefined) q = Math.min(1, Math.max(0, Number(value) || 0));
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality a header gives a media type, and how specifically (2 exact, 1 type/*, 0 any, -1 not at all). */
function quality(ranges: MediaRange[], mediaType: string): { q: number; specificity: number } {
  const [type, subtype] = mediaType.split('/');
  let best = { q: 0, specificity: -1 };
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*'
            ? 0
            : -1;
    if (specificity > best.specificity) best = { q: range.q, specificity };
  }
  return best;
}

/**
 * True when the client prefers markdown (text/markdown, or text/plain as agents send it) to HTML:
 * a higher quality, or the same quality named more specifically. No Accept header means HTML.
 */
export function prefersMarkdown(accept: string | undefined): boolean {
  const ranges = parseAccept(accept);
  const html = quality(ranges, 'text/html');
  const markdown = [quality(ranges, 'text/markdown'), quality(ranges, 'text/plain')].reduce((a, b) =>
    b.q > a.q || (b.q === a.q && b.specificity > a.specificity) ? b : a,
  );
  if (markdown.q <= 0 || markdown.specificity < 0) return false;
  return markdown.q > html.q || (markdown.q === html.q && markdown.specificity > html.specificity);
}

/** True when the client names HTML explicitly (a browser): error pages are then HTML, not JSON. */
export function asksForHtml(accept: string | undefined): boolean {
  const html = quality(parseAccept(accept), 'text/html');
  return html.specificity >= 1 && html.q > 0;
}
