import { describe, expect, it } from 'vitest';
import { preparedShapes } from './client.ts';

describe('preparedShapes', () => {
  it('admits a text from the second time it comes, and from then on', () => {
    const shapes = preparedShapes(1_000);
    expect(shapes.admits('WITH a AS (…) SELECT 1')).toBe(false);
    expect(shapes.admits('WITH a AS (…) SELECT 1')).toBe(true);
    expect(shapes.admits('WITH a AS (…) SELECT 1')).toBe(true);
    expect(shapes.admits('WITH b AS (…) SELECT 1')).toBe(false);
  });

  it('keeps no more text prepared than its budget: past it a text is never admitted, the ones kept still are', () => {
    const shapes = preparedShapes(25);
    const ten = (c: string) => c.repeat(10);
    for (const text of [ten('a'), ten('a'), ten('b'), ten('b')]) shapes.admits(text);
    expect(shapes.admits(ten('c'))).toBe(false);
    expect(shapes.admits(ten('c'))).toBe(false);
    expect(shapes.admits(ten('a'))).toBe(true);
    expect(shapes.admits(ten('b'))).toBe(true);
    // A shorter text still fits in what is left.
    expect(shapes.admits('dddd')).toBe(false);
    expect(shapes.admits('dddd')).toBe(true);
  });

  it('forgets texts seen once when too many come (a flood of one-off texts)', () => {
    const shapes = preparedShapes(1_000_000);
    shapes.admits('first');
    for (let n = 0; n < 100; n++) shapes.admits(`one-off ${n}`);
    expect(shapes.admits('first')).toBe(false);
    expect(shapes.admits('first')).toBe(true);
  });
});
