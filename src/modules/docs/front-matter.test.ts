import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from './front-matter.ts';

describe('parseFrontMatter', () => {
  it('reads flat key: value pairs, quoted or not, and returns the body after the fence', () => {
    const source = '---\ntitle: "Escáner: precios"\ndescription: Una línea.\norder: 20\n---\n\nTexto.\n';
    expect(parseFrontMatter(source)).toEqual({
      fields: { title: 'Escáner: precios', description: 'Una línea.', order: '20' },
      body: '\nTexto.\n',
    });
  });

  it('accepts CRLF, a BOM and single quotes', () => {
    expect(parseFrontMatter("\uFEFF---\r\ntitle: 'Don''t'\r\n---\r\nBody")).toEqual({ fields: { title: "Don't" }, body: 'Body' });
  });

  it('leaves a file without front matter alone', () => {
    expect(parseFrontMatter('# Title\n')).toEqual({ fields: {}, body: '# Title\n' });
  });

  it('refuses a line that is not key: value', () => {
    expect(() => parseFrontMatter('---\ntitle: a\n- list\n---\n')).toThrow('line 3');
  });
});
