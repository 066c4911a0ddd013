import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import http from 'highlight.js/lib/languages/http';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import markdownIt, { type MarkdownIt, type StateCore } from 'markdown-it';
import { escapeHtml } from '../../lib/html.ts';

for (const [name, language] of Object.entries({ bash, http, javascript, json, python, shell, sql, typescript })) {
  hljs.registerLanguage(name, language);
}
hljs.registerAliases(['sh', 'curl'], { languageName: 'bash' });
hljs.registerAliases(['ts'], { languageName: 'typescript' });
hljs.registerAliases(['js'], { languageName: 'javascript' });

/** "Cómo empezar" → "como-empezar": anchors for headings. */
export function slugify(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * Markdown to HTML for the docs. Raw HTML in the markdown is not passed through (escaped), links
 * with unsafe schemes are dropped by markdown-it, code blocks are highlighted on the server.
 */
function createRenderer(): MarkdownIt {
  const md: MarkdownIt = markdownIt({
    html: false,
    linkify: true,
    typographer: false,
    highlight(code, language) {
      const name = language.trim().toLowerCase();
      const body =
        name && hljs.getLanguage(name) ? hljs.highlight(code, { language: name, ignoreIllegals: true }).value : escapeHtml(code);
      return `<pre class="hljs"><code${name ? ` class="language-${escapeHtml(name)}"` : ''}>${body}</code></pre>`;
    },
  });
  md.core.ruler.push('heading_ids', (state: StateCore) => {
    const seen = new Map<string, number>();
    state.tokens.forEach((token, index) => {
      if (token.type !== 'heading_open') return;
      const base = slugify(state.tokens[index + 1]?.content ?? '') || 'seccion';
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      token.attrSet('id', count === 0 ? base : `${base}-${count}`);
    });
  });
  return md;
}

const renderer = createRenderer();

export function renderMarkdown(markdown: string): string {
  return renderer.render(markdown);
}
