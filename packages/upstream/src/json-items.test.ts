import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JSON_KEY_CAP_BYTES, JSON_MAX_DEPTH, JSON_SCALAR_CAP_BYTES, JsonItemsSplitter, JsonValueTooLarge, type JsonItemsOptions } from './json-items.js';

const MiB = 1024 * 1024;

interface Split {
  items: unknown[];
  scalars: Record<string, unknown>;
  complete: boolean;
  sawList: boolean;
  peakHeldBytes: number;
}

/** Feeds `body` in chunks of the given sizes (cycled) and parses each item the splitter yields. */
function split(body: string | Buffer, sizes: readonly number[], options?: JsonItemsOptions): Split {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const splitter = new JsonItemsSplitter(options);
  const items: unknown[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i += 1) {
    const size = Math.max(1, sizes[i % sizes.length] ?? 7);
    for (const item of splitter.push(bytes.subarray(at, at + size))) items.push(JSON.parse(item));
    at += size;
  }
  return { items, scalars: splitter.scalars, complete: splitter.complete, sawList: splitter.sawList, peakHeldBytes: splitter.peakHeldBytes };
}

/** The error `split` throws, or a failure when it throws nothing. */
function refusal(body: string | Buffer, sizes: readonly number[], options?: JsonItemsOptions): unknown {
  try {
    const got = split(body, sizes, options);
    if (!got.complete) return new SyntaxError('incomplete');
  } catch (error) {
    return error;
  }
  throw new Error('expected the body to be refused');
}

const tricky = {
  'it"ems': [{ no: 1 }],
  'it\\ems': [{ no: 2 }],
  metadata: { items: [{ nested: true }], note: 'a "quoted" \\ back\\slash }]' },
  items: [
    { 'a"}]\\': 'x"}]\\', label: 'é—🚀', 'é—🚀': ['\u0000', '\u2028'] },
    'a string item',
    42,
    -1.5e-7,
    null,
    true,
    [],
    {},
    [[{ deep: [1, [2, [3]]] }]],
  ],
  count: 9,
  next: 'https://netbox/api/dcim/interfaces/?limit=2&offset=2&q=é',
  previous: null,
};

describe('JsonItemsSplitter', () => {
  it('yields exactly the items and captured scalars JSON.parse sees, whatever the chunking', () => {
    const key = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom('it"ems', 'items\\', 'x'.repeat(JSON_KEY_CAP_BYTES + 3), 'items'.padEnd(200, 's'))).filter((k) => !['items', 'count', 'next'].includes(k));
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 4 }), { maxLength: 12 }),
        fc.dictionary(key, fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 3 }), { maxKeys: 4 }),
        fc.nat(),
        fc.option(fc.string({ unit: 'grapheme' })),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 2 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }),
        (items, others, count, next, listAt, indent, sizes) => {
          const members = Object.entries(others);
          members.splice(Math.min(listAt, members.length), 0, ['items', items], ['count', count], ['next', next], ['after', { items: [1, 2] }]);
          const body = JSON.stringify(Object.fromEntries(members), null, indent);
          const got = split(body, sizes, { capture: ['count', 'next'] });
          const parsed = JSON.parse(body) as { items: unknown[] };
          expect(got.items).toEqual(parsed.items);
          expect(got.scalars).toEqual({ count, next });
          expect(got.complete).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads escaped quotes and backslashes in keys and values, and UTF-8 cut at every byte', () => {
    const body = JSON.stringify(tricky, null, 1);
    const bytes = Buffer.from(body, 'utf8');
    const options = { capture: ['count', 'next', 'previous'] };
    for (let cut = 1; cut < bytes.length; cut += 1) {
      const got = split(bytes, [cut, bytes.length], options);
      expect(got.items).toEqual(tricky.items);
      expect(got.scalars).toEqual({ count: 9, next: tricky.next, previous: null });
    }
    expect(split(bytes, [1], options).items).toEqual(tricky.items);
    expect(split(bytes, [3, 1, 2], options).scalars.next).toBe(tricky.next);
  });

  it('matches the list key as JSON spells it, and never a key longer than the key cap', () => {
    expect(split('{"\\u0069tems":[1,2]}', [1]).items).toEqual([1, 2]);
    const long = `items${'s'.repeat(10_000)}`;
    expect(split(`{"${long}":[1],"items":[2]}`, [5]).items).toEqual([2]);
    // The first bytes of a cut key are "items", whose list is still not read.
    expect(split(`{"${'items'.padEnd(JSON_KEY_CAP_BYTES + 1, 'x')}":[1]}`, [7]).items).toEqual([]);
    // Inside an item a long key is kept whole: the item is JSON.parse'd as sent.
    expect(split(JSON.stringify({ items: [{ [long]: 'v' }] }), [64]).items).toEqual([{ [long]: 'v' }]);
    expect(() => new JsonItemsSplitter({ listKey: 'a'.repeat(11) })).toThrow(RangeError);
  });

  it('reads NetBox pages: results under another key, count, next and previous captured', () => {
    const page = { count: 3, next: null, previous: 'https://netbox/api/dcim/sites/?limit=1', results: [{ id: 1 }, { id: 2 }] };
    const got = split(JSON.stringify(page), [2], { listKey: 'results', capture: ['count', 'next', 'previous'] });
    expect(got.items).toEqual(page.results);
    expect(got.scalars).toEqual({ count: 3, next: null, previous: page.previous });
    // A captured name holding a container is skipped, not captured.
    expect(split('{"count":{"a":1},"results":[]}', [3], { listKey: 'results', capture: ['count'] }).scalars).toEqual({});
  });

  it('reads a null or missing list as no items, and tells them apart', () => {
    expect(split('{"metadata":{},"items":null}', [3])).toMatchObject({ items: [], sawList: true, complete: true });
    expect(split('{"metadata":{}}', [3])).toMatchObject({ items: [], sawList: false, complete: true });
  });

  it('skips a 40 MB top-level string without holding any of it (heap and held bytes stay flat)', () => {
    const blob = Buffer.alloc(40 * 1000 * 1000, 'x');
    const body = Buffer.concat([Buffer.from('{"metadata":{"note":"'), blob, Buffer.from('"},"blob":"'), blob, Buffer.from('","items":[{"a":1},{"a":2}]}')]);
    const splitter = new JsonItemsSplitter({ maxValueBytes: 64 * MiB });
    const baseline = process.memoryUsage().heapUsed;
    let peakHeap = baseline;
    let peakHeld = 0;
    const items: string[] = [];
    for (let at = 0; at < body.length; at += 64 * 1024) {
      items.push(...splitter.push(body.subarray(at, at + 64 * 1024)));
      peakHeld = Math.max(peakHeld, splitter.heldBytes);
      if ((at / (64 * 1024)) % 16 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }
    expect(items.map((text) => JSON.parse(text) as unknown)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(splitter.complete).toBe(true);
    expect(peakHeld).toBe(0);
    expect(splitter.peakHeldBytes).toBeLessThanOrEqual(16);
    // Collecting the string (as the splitter once did, a number per byte) takes hundreds of MiB.
    expect(peakHeap - baseline).toBeLessThan(32 * MiB);
  });

  it('refuses a 40 MB top-level string once it passes the value cap, naming the member', () => {
    const body = Buffer.concat([Buffer.from('{"blob":"'), Buffer.alloc(40 * 1000 * 1000, 'x'), Buffer.from('","items":[]}')]);
    const splitter = new JsonItemsSplitter({ maxValueBytes: MiB });
    let fed = 0;
    const error = (() => {
      try {
        for (; fed < body.length; fed += 64 * 1024) splitter.push(body.subarray(fed, fed + 64 * 1024));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(JsonValueTooLarge);
    expect(error).toMatchObject({ path: 'blob', limit: MiB });
    expect(fed).toBeLessThanOrEqual(MiB + 64 * 1024);
  });

  it('refuses an item with a 2 MiB field mid-item, naming the field, before the item is read whole', () => {
    const values = 'v'.repeat(2 * MiB);
    const body = JSON.stringify({ items: [{ metadata: { name: 'small' } }, { metadata: { name: 'big' }, spec: { source: { helm: { values } } } }, { metadata: { name: 'after' } }] });
    const splitter = new JsonItemsSplitter({ maxValueBytes: MiB });
    const seen: string[] = [];
    let fed = 0;
    let error: unknown;
    try {
      for (; fed < body.length; fed += 16 * 1024) seen.push(...splitter.push(Buffer.from(body.slice(fed, fed + 16 * 1024))));
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ path: 'items[1].spec.source.helm.values', limit: MiB });
    expect(seen).toHaveLength(1);
    expect(fed).toBeLessThan(MiB + 64 * 1024);
    expect(splitter.heldBytes).toBeLessThanOrEqual(MiB);
  });

  it('names the deepest field that took most of the cap, or the item itself', () => {
    const cap = 64 * 1024;
    const many = { items: [{ status: { resources: Array.from({ length: 5_000 }, (_, i) => ({ kind: 'Pod', name: `pod-${i}` })) } }] };
    expect(refusal(JSON.stringify(many), [4096], { maxValueBytes: cap })).toMatchObject({ path: 'items[0].status.resources' });
    const spread = { items: [Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`field${i}`, 'x'.repeat(1_000)]))] };
    expect(refusal(JSON.stringify(spread), [4096], { maxValueBytes: cap })).toMatchObject({ path: 'items[0]' });
    const annotated = { items: [{ metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'y'.repeat(cap) } } }] };
    expect(refusal(JSON.stringify(annotated), [1000], { maxValueBytes: cap })).toMatchObject({ path: 'items[0].metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]' });
    const scalar = { items: ['s'.repeat(cap + 1)] };
    expect(refusal(JSON.stringify(scalar), [cap * 4], { maxValueBytes: cap })).toMatchObject({ path: 'items[0]' });
    const member = { metadata: { continue: 'c'.repeat(cap) }, items: [] };
    expect(refusal(JSON.stringify(member), [cap * 4], { maxValueBytes: cap })).toMatchObject({ path: 'metadata.continue' });
    const cut = { items: [{ [`${'k'.repeat(100)}`]: 'z'.repeat(cap) }] };
    expect(refusal(JSON.stringify(cut), [512], { maxValueBytes: cap })).toMatchObject({ path: `items[0]["${'k'.repeat(JSON_KEY_CAP_BYTES)}…"]` });
  });

  it('captures scalars up to the scalar cap and refuses a bigger one', () => {
    const next = `https://netbox/api/?${'q'.repeat(JSON_SCALAR_CAP_BYTES)}`;
    expect(refusal(JSON.stringify({ count: 1, next, results: [] }), [100], { listKey: 'results', capture: ['next'] })).toMatchObject({ path: 'next', limit: JSON_SCALAR_CAP_BYTES });
    // Uncaptured, the same member is skipped under the value cap.
    expect(split(JSON.stringify({ count: 1, next, results: [] }), [100], { listKey: 'results' }).complete).toBe(true);
  });

  it('holds at most one item at a time', () => {
    const items = Array.from({ length: 2_000 }, (_, i) => ({ id: i, name: `eth${i}`, description: 'd'.repeat(i % 300) }));
    const got = split(JSON.stringify({ count: 2_000, results: items }), [7_000, 13, 65_536], { listKey: 'results' });
    expect(got.items).toHaveLength(2_000);
    const largest = Math.max(...items.map((item) => Buffer.byteLength(JSON.stringify(item))));
    expect(got.peakHeldBytes).toBeGreaterThan(0);
    expect(got.peakHeldBytes).toBeLessThanOrEqual(largest);
  });

  it('refuses malformed bodies with a SyntaxError, and reports a body cut off midway as incomplete', () => {
    const bad = [
      '[{"a":1}]',
      '"items"',
      '{"items":{"a":1}}',
      '{"items":42}',
      '{"items":[1,]}',
      '{"items":[1 2]}',
      '{"items":[{"a":1]}',
      '{"items":[{"a" 1}]}',
      '{"items":[{1:2}]}',
      '{"items":[]} trailing',
      '{"items":[],"items":[]}',
      '{"meta":@,"items":[]}',
      '{"meta":[}],"items":[]}',
      '{"items":[tru]}',
      '{"count":nul,"items":[]}',
      `{"deep":${'['.repeat(JSON_MAX_DEPTH)}${']'.repeat(JSON_MAX_DEPTH)},"items":[]}`,
    ];
    for (const body of bad) {
      for (const sizes of [[1], [body.length]]) {
        const error = refusal(body, sizes, { capture: ['count'] });
        expect(error, body).toBeInstanceOf(SyntaxError);
      }
    }
    const whole = JSON.stringify({ items: [{ a: 1 }, { b: 2 }] });
    expect(split(whole.slice(0, -5), [4]).complete).toBe(false);
    expect(split(whole.slice(0, -1), [4]).complete).toBe(false);
    expect(split('', [1]).complete).toBe(false);
    // Just under the depth limit is read.
    const depth = JSON_MAX_DEPTH - 2;
    expect(split(`{"items":[${'['.repeat(depth)}${']'.repeat(depth)}]}`, [5]).items).toHaveLength(1);
  });
});

describe('JsonItemsSplitter skipping oversized items', () => {
  it('skips an item past the cap in any chunking, holding none of it, and keeps the items around it', () => {
    const big = { kind: 'ConfigMap', name: 'huge', data: { blob: 'é'.repeat(3_000), list: [1, [2, { x: '}]' }]] } };
    const body = Buffer.from(JSON.stringify({ items: [{ name: 'a' }, big, { name: 'c' }, big], other: 1 }), 'utf8');
    for (const sizes of [[1], [3, 17], [4_096], [body.length]]) {
      const splitter = new JsonItemsSplitter({ maxValueBytes: 1_024, oversizedItems: 'skip' });
      const items: unknown[] = [];
      let peak = 0;
      let at = 0;
      for (let i = 0; at < body.length; i += 1) {
        const size = sizes[i % sizes.length] ?? 1;
        for (const item of splitter.push(body.subarray(at, at + size))) items.push(JSON.parse(item));
        peak = Math.max(peak, splitter.heldBytes);
        at += size;
      }
      expect(items).toEqual([{ name: 'a' }, { name: 'c' }]);
      expect(splitter.complete).toBe(true);
      expect(peak).toBeLessThanOrEqual(1_024 + 4_096);
      expect(splitter.oversized.count).toBe(2);
      expect(splitter.oversized.samples.map((s) => s.path)).toEqual(['items[1]', 'items[3]']);
      expect(splitter.oversized.samples[0]?.head.startsWith('{"kind":"ConfigMap","name":"huge"')).toBe(true);
    }
    // Other members over the cap are still refused.
    expect(() => new JsonItemsSplitter({ maxValueBytes: 16, oversizedItems: 'skip' }).push(Buffer.from('{"blob":"' + 'x'.repeat(100) + '","items":[]}'))).toThrow(JsonValueTooLarge);
  });
});
