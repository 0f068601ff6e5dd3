import { describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { compileMatcher, searchItems } from './search.js';

describe('search matcher', () => {
  it('matches substrings case-insensitively by default and regexes when asked', () => {
    expect(compileMatcher({ query: 'PAY', mode: 'substring', case_sensitive: false })('payments-api')).toBe(true);
    expect(compileMatcher({ query: 'PAY', mode: 'substring', case_sensitive: true })('payments-api')).toBe(false);
    expect(compileMatcher({ query: '^pay.*-api$', mode: 'regex', case_sensitive: false })('payments-api')).toBe(true);
  });

  it('refuses patterns that backtrack exponentially, with a way forward', () => {
    for (const query of ['(a+)+$', '(x*y*)*z', '(\\w+\\s?)+!', '(ab{2,})*c']) {
      try {
        compileMatcher({ query, mode: 'regex', case_sensitive: false });
        throw new Error(`accepted ${query}`);
      } catch (error) {
        if (!isFlotillaError(error)) throw error;
        expect(error.code).toBe('invalid_argument');
        expect(error.remedy).toMatch(/substring/);
      }
    }
    // Quantified groups without inner quantifiers, and inner quantifiers without an outer one, are fine.
    for (const query of ['(ab)+', '(a+b)', 'payments-(api|web)+', '^\\(a+\\)+']) {
      expect(() => compileMatcher({ query, mode: 'regex', case_sensitive: false })).not.toThrow();
    }
  });

  it('counts the search for a start of an unanchored expression as a repetition', () => {
    // "a*a+!" unanchored is cubic on a run of "a"; anchored, it is quadratic.
    for (const query of ['a*a+!', '.*prod.*', '^a*b|a*b+c']) {
      expect(() => compileMatcher({ query, mode: 'regex', case_sensitive: false }), query).toThrow(/counting the search for a start/);
    }
    for (const query of ['^a*a+!', 'payments-.*-prod', '^[a-z]+-[a-z]+$', '^a|b.*c']) {
      expect(() => compileMatcher({ query, mode: 'regex', case_sensitive: false }), query).not.toThrow();
    }
  });

  it('stops at the cap and reports how far it scanned', () => {
    const items = Array.from({ length: 50 }, (_, i) => `item-${i}`);
    const outcome = searchItems(items, (item) => [['name', item]], { query: 'item', mode: 'substring', case_sensitive: false, cap: 10 });
    expect(outcome).toMatchObject({ capped: true, cap: 10, scanned: 10 });
    expect(outcome.matches).toHaveLength(10);
  });
});
