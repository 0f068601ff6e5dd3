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
