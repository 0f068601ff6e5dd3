import { describe, expect, it } from 'vitest';
import { SizedLru } from './lru.js';

describe('SizedLru', () => {
  it('expires entries on an injected clock that starts at 0 (lru-cache reads a start of 0 as no time at all)', () => {
    let now = 0;
    const removed: (string | undefined)[] = [];
    const lru = new SizedLru<string>({ maxEntries: 10, maxBytes: 1_000, ttlMs: 1_000, now: () => now, removed: (_entry, reason) => removed.push(reason) });
    lru.set('a', { value: 'x', bytes: 1 });
    now = 1_000;
    expect(lru.get('a')?.value).toBe('x');
    now = 1_001;
    expect(lru.get('a')).toBeUndefined();
    expect(removed).toEqual(['ttl']);
  });
});
