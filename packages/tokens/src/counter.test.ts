import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from './counter.js';

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
  });

  it('shares one loaded counter per encoding', async () => {
    expect(await loadTokenCounter('cl100k_base')).toBe(await loadTokenCounter('cl100k_base'));
  });
});

describe('frugal tiktoken construction', () => {
  it('counts and decodes exactly like the stock js-tiktoken encoder', async () => {
    const { Tiktoken } = await import('js-tiktoken/lite');
    const ranks = (await import('js-tiktoken/ranks/cl100k_base')).default;
    const stock = new Tiktoken(ranks);
    const counter = await loadTokenCounter('cl100k_base');
    const samples = [
      JSON.stringify({ name: 'payments-api-prod', sync: 'OutOfSync', labels: { 'app.kubernetes.io/part-of': 'payments' }, sha: 'f3a9c0de11b2' }),
      'Ünïcödé — 🚀 日本語 text with  double  spaces\n\ttabs',
      '1'.repeat(1000),
    ];
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(counter.count(text)).toBe(stock.encode(text, [], []).length);
      }),
      { numRuns: 300 },
    );
    for (const text of samples) {
      expect(counter.count(text)).toBe(stock.encode(text, [], []).length);
      const cut = counter.truncate(text, 7);
      expect(cut).toBe(stock.decode(stock.encode(text, [], []).slice(0, 7)).replace(/\uFFFD+$/, ''));
    }
  });
});

describe('caching counter', () => {
  it('counts exactly as the counter does, for short and long texts, and stays within its size', async () => {
    const { cachingCounter } = await import('./index.js');
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
