import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHUNK_BOUNDARY_MARGIN, PIECE_CHUNK_CHARS } from './bpe.js';
import { cachingCounter } from './cache.js';
import { loadReferenceTokenCounter, loadTokenCounter, TOKEN_ENCODINGS, type TokenCounter } from './counter.js';
import { LONE_SURROGATE, LONG_WORD_SHAPES, longWord, realisticText } from './texts.test-util.js';

describe('token counter', () => {
  it('counts cl100k tokens exactly', async () => {
    const counter = await loadTokenCounter('cl100k_base');
    expect(counter.count('')).toBe(0);
    expect(counter.count('hello world')).toBe(2);
    // Characters are not tokens: a long run of one digit compresses, JSON punctuation does not.
    expect(counter.count('1'.repeat(300))).toBeLessThan(300);
    expect(counter.count('{"a":1}')).toBeGreaterThan(1);
  });

  it('treats special-token text as plain text instead of throwing', async () => {
    const counter = await loadTokenCounter();
    expect(counter.count('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('truncates to at most the given number of tokens', async () => {
    const counter = await loadTokenCounter('o200k_base');
    const text = 'Flotilla keeps every answer inside its budget. '.repeat(50);
    const cut = counter.truncate(text, 25);
    expect(counter.count(cut)).toBeLessThanOrEqual(25);
    expect(text.startsWith(cut)).toBe(true);
    expect(counter.truncate('short', 25)).toBe('short');
    expect(counter.truncate('anything', 0)).toBe('');
    expect(counter.truncate('anything', -3)).toBe('');
    expect(counter.truncate('anything', Number.NaN)).toBe('');
    expect(counter.truncate('hello world', 1.9)).toBe('hello');
    expect(counter.truncate('hello world', Number.POSITIVE_INFINITY)).toBe('hello world');
  });

  it('never cuts a character in two', async () => {
    const counter = await loadTokenCounter('cl100k_base');
    // Rare CJK characters and emoji are several tokens each: a cut between them drops the partial character.
    const text = '𠀀𠀁𠀂😀👍🏽'.repeat(5);
    for (let max = 1; max <= counter.count(text); max += 1) {
      const cut = counter.truncate(text, max);
      expect(text.startsWith(cut)).toBe(true);
      expect(LONE_SURROGATE.test(cut)).toBe(false);
      expect(counter.count(cut)).toBeLessThanOrEqual(max);
    }
  });

  it('shares one loaded counter per encoding', async () => {
    expect(await loadTokenCounter('cl100k_base')).toBe(await loadTokenCounter('cl100k_base'));
  });
});

describe.each(TOKEN_ENCODINGS)('%s against js-tiktoken, the reference', (encoding) => {
  let counter: TokenCounter;
  let reference: TokenCounter;
  beforeAll(async () => {
    counter = await loadTokenCounter(encoding);
    reference = await loadReferenceTokenCounter(encoding);
  });

  it('counts realistic text exactly: prose, API JSON, code, URLs, CJK, emoji, whitespace, special-token text', () => {
    fc.assert(
      fc.property(realisticText, (text) => {
        expect(counter.count(text)).toBe(reference.count(text));
      }),
      { numRuns: 500 },
    );
  });

  it('truncates realistic text to the reference cut, and never over the budget', () => {
    fc.assert(
      fc.property(realisticText, fc.nat(), (text, seed) => {
        const total = reference.count(text);
        const max = seed % (total + 2);
        const cut = counter.truncate(text, max);
        expect(text.startsWith(cut)).toBe(true);
        expect(counter.count(cut)).toBeLessThanOrEqual(max);
        if (max >= total) expect(cut).toBe(text);
        // The reference decodes its first `max` tokens; where that prefix really is at most `max` tokens (and
        // no lone surrogate or U+FFFD makes decoding lossy) ours is the same prefix.
        const theirs = reference.truncate(text, max);
        if (!LONE_SURROGATE.test(text) && !text.includes('\uFFFD') && reference.count(theirs) <= max) expect(cut).toBe(theirs);
      }),
      { numRuns: 300 },
    );
  });

  it('counts a piece longer than a chunk never below the reference, and close to it', () => {
    // The reference is quadratic: a few thousand characters per piece keep this to seconds.
    fc.assert(
      fc.property(
        fc.integer({ min: PIECE_CHUNK_CHARS + 1, max: 2_600 }).chain((length) => longWord(length)),
        ({ text }) => {
          const exact = reference.count(text);
          const ours = counter.count(text);
          expect(ours).toBeGreaterThanOrEqual(exact);
          // At most one margin and a few tokens lost to the boundary per chunk boundary.
          expect(ours).toBeLessThanOrEqual(exact + 2 * CHUNK_BOUNDARY_MARGIN * Math.ceil(text.length / PIECE_CHUNK_CHARS));
        },
      ),
      { numRuns: 16, seed: 20_260_114 },
    );
  }, 120_000);

  it('counts and truncates 1 MB of one letter: an upper bound, close to the true count', () => {
    const text = 'a'.repeat(1 << 20);
    // One letter tokenizes periodically: the reference gives the same tokens per character at every length it can
    // still reach (2,048 letters: 256 tokens), so the true count of the megabyte is that ratio times its length.
    const exact = (reference.count('a'.repeat(2_048)) * text.length) / 2_048;
    const ours = counter.count(text);
    expect(ours).toBeGreaterThanOrEqual(exact);
    expect(ours).toBeLessThanOrEqual(exact + CHUNK_BOUNDARY_MARGIN * (text.length / PIECE_CHUNK_CHARS));
    for (const max of [1, 1_000, Math.floor(ours / 2)]) {
      const cut = counter.truncate(text, max);
      const kept = counter.count(cut);
      expect(kept).toBeLessThanOrEqual(max);
      // The longest prefix: short of the budget by at most the margin of the chunk boundary it stopped at.
      expect(kept).toBeGreaterThanOrEqual(max - CHUNK_BOUNDARY_MARGIN);
      expect(cut).toBe('a'.repeat(cut.length));
    }
    expect(counter.truncate(text, ours)).toBe(text);
  }, 60_000);

  it('counts and truncates 1 MB of random base64 exactly (its pieces are short)', () => {
    const text = randomBytes(786_432).toString('base64');
    expect(text.length).toBe(1 << 20);
    const exact = reference.count(text);
    expect(counter.count(text)).toBe(exact);
    const cut = counter.truncate(text, 5_000);
    expect(text.startsWith(cut)).toBe(true);
    expect(counter.count(cut)).toBeLessThanOrEqual(5_000);
    const theirs = reference.truncate(text, 5_000);
    if (reference.count(theirs) <= 5_000) expect(cut).toBe(theirs);
    expect(counter.truncate(text, exact)).toBe(text);
    const short = counter.truncate(text, exact - 1);
    expect(counter.count(short)).toBeLessThanOrEqual(exact - 1);
    expect(short.length).toBeGreaterThan(text.length - 64);
  }, 60_000);

  it('counts runs of millions of characters that overflow the regex stack when matched whole', () => {
    // One match of ~4M CJK characters or combining marks throws RangeError in V8's regex engine.
    for (const unit of ['日', '\u0301', '😀']) {
      const text = unit.repeat((4 << 20) / unit.length);
      const ours = counter.count(text);
      // Sane: no more tokens than UTF-8 bytes plus margins, at least one per longest token's worth.
      expect(ours).toBeGreaterThan(Buffer.byteLength(text) / 128);
      expect(ours).toBeLessThanOrEqual(Buffer.byteLength(text) + CHUNK_BOUNDARY_MARGIN * (text.length / PIECE_CHUNK_CHARS + 64));
      const cut = counter.truncate(text, 100);
      expect(counter.count(cut)).toBeLessThanOrEqual(100);
      expect(text.startsWith(cut)).toBe(true);
      expect(LONE_SURROGATE.test(cut)).toBe(false);
    }
  }, 60_000);
});

describe('long-piece shapes', () => {
  it('are all generated (the property above sees every shape)', () => {
    const shapes = new Set(fc.sample(longWord(1_100), { numRuns: 300, seed: 1 }).map(({ shape }) => shape));
    expect([...shapes].sort()).toEqual([...LONG_WORD_SHAPES].sort());
  });
});

describe('caching counter', () => {
  it('counts exactly as the counter does, for short and long texts, and stays within its size', async () => {
    const counter = await loadTokenCounter();
    const cached = cachingCounter(counter, 16);
    fc.assert(
      fc.property(fc.string({ maxLength: 2_000 }), (text) => {
        expect(cached.count(text)).toBe(counter.count(text));
        expect(cached.count(text)).toBe(counter.count(text));
        expect(cached.size).toBeLessThanOrEqual(16);
      }),
      { numRuns: 200 },
    );
    const long = 'x'.repeat(300);
    expect(cached.count(long)).toBe(counter.count(long));
    expect(cached.count(`${long}y`)).toBe(counter.count(`${long}y`));
    expect(cached.truncate('hello world', 1)).toBe(counter.truncate('hello world', 1));
  });
});
