import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonItemsSplitter } from './json-items.js';

function split(text: string, sizes: number[]): { items: unknown[]; complete: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  const splitter = new JsonItemsSplitter();
  const items: unknown[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i += 1) {
    const size = Math.max(1, sizes[i % sizes.length] ?? 7);
    for (const item of splitter.push(bytes.subarray(at, at + size))) items.push(JSON.parse(item));
    at += size;
  }
  return { items, complete: splitter.complete };
}

describe('JsonItemsSplitter', () => {
  it('yields exactly the items of any list, whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 20 }),
        fc.jsonValue(),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 5 }),
        (items, metadata, sizes) => {
          const text = JSON.stringify({ metadata, items, after: { items: [1, 2] } });
          const got = split(text, sizes);
          expect(got.items).toEqual(JSON.parse(JSON.stringify(items)));
          expect(got.complete).toBe(true);
        },
      ),
    );
  });

  it('handles null items, escaped quotes and multi-byte characters split across chunks', () => {
    expect(split('{"metadata":{},"items":null}', [3]).items).toEqual([]);
    const tricky = { items: [{ name: 'a"}]\\', label: 'é—🚀' }, { nested: { items: [{ x: 1 }] } }] };
    expect(split(JSON.stringify(tricky), [1]).items).toEqual(tricky.items);
  });

  it('reports a body cut off midway as incomplete', () => {
    const text = JSON.stringify({ items: [{ a: 1 }, { b: 2 }] });
    expect(split(text.slice(0, -5), [4]).complete).toBe(false);
  });
});
