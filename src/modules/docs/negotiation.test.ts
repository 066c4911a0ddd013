import { describe, expect, it } from 'vitest';
import { asksForHtml, prefersMarkdown } from './negotiation.ts';

describe('prefersMarkdown', () => {
  it.each([
    [undefined, false],
    ['*/*', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['text/markdown', true],
    ['text/plain', true],
    ['text/markdown, text/html;q=0.9, */*;q=0.8', true],
    ['text/html, text/markdown', false],
    ['text/markdown, text/html', false],
    ['text/markdown, */*', true],
    ['text/*', false],
    ['text/markdown;q=0', false],
    ['text/html;q=0.5, text/markdown;q=0.6', true],
    ['TEXT/MARKDOWN; charset=utf-8', true],
    ['garbage', false],
  ])('%s → %s', (accept, expected) => {
    expect(prefersMarkdown(accept)).toBe(expected);
  });
});

describe('asksForHtml', () => {
  it.each([
    [undefined, false],
    ['*/*', false],
    ['application/json', false],
    ['text/html,application/xhtml+xml,*/*;q=0.8', true],
    ['text/*', true],
    ['text/html;q=0', false],
  ])('%s → %s', (accept, expected) => {
    expect(asksForHtml(accept)).toBe(expected);
  });
});
