import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { compileMatcher } from './search.js';
import { LIMITS } from './limits.js';

/**
 * Regex search takes the caller's expression (a model's, or whoever reaches the MCP server), so a regex it accepts
 * must match any value in bounded time. Expressions are generated from atoms, groups, alternatives and quantifiers;
 * every one compileMatcher accepts is run on values that make backtracking explode (long runs of one character,
 * real-looking names), on a ladder of lengths that stops at the first slow match, before the cost runs away.
 */
const atom = fc.constantFrom('a', 'b', '-', '.', '\\w', '\\d', '\\s', '[a-z]', '[^-]', '[a-z-]', 'ab', 'aa', 'api', 'web', '\\.');
const quantifier = fc.oneof(
  { arbitrary: fc.constant(''), weight: 5 },
  { arbitrary: fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '{2,}', '*?', '+?', '{0,40}'), weight: 2 },
);
const { alternatives } = fc.letrec<{ term: string; sequence: string; alternatives: string }>((tie) => ({
  term: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'group', withCrossShrink: true },
    fc.tuple(atom, quantifier).map(([a, q]) => `${a}${q}`),
    fc.tuple(tie('alternatives'), quantifier).map(([g, q]) => `(${g})${q}`),
    fc.tuple(tie('alternatives'), quantifier).map(([g, q]) => `(?:${g})${q}`),
  ),
  sequence: fc.array(tie('term'), { minLength: 1, maxLength: 4, depthIdentifier: 'group' }).map((terms) => terms.join('')),
  alternatives: fc.array(tie('sequence'), { minLength: 1, maxLength: 3, depthIdentifier: 'group' }).map((branches) => branches.join('|')),
}));
/** Known catastrophic shapes, some of which a simple "nested quantifier" check lets through. */
const known = fc.constantFrom('(a+)+', '((a+))+', '(.|.)+', '(a|aa)+', '(\\w|\\d)+', '(?:.|.)*', '(a|a?)+', '(.*a){12}', '.*.*.*.*', '\\w*\\w*\\w*\\w*', '(a|b|ab)*', '(x+x+)+');
const expression = fc
  .tuple(fc.constantFrom('', '^'), fc.oneof({ arbitrary: alternatives, weight: 4 }, { arbitrary: known, weight: 1 }), fc.constantFrom('!', 'X$', '$', ''))
  .map(([start, body, end]) => `${start}${body}${end}`);

const VALUES = [
  (n: number) => 'a'.repeat(n),
  (n: number) => 'ab'.repeat(n).slice(0, n),
  (n: number) => 'payments-api-prod-'.repeat(Math.ceil(n / 18)).slice(0, n),
  (n: number) => 'a1 b2-'.repeat(n).slice(0, n),
];
const LENGTHS = [8, 12, 16, 20, 24, 28, 32, 40, 48, 64, 128, 256, 512, LIMITS.regexTextMax, LIMITS.regexTextMax * 4];
/**
 * Far below a runaway match (exponential or cubic backtracking takes seconds at 30 to 500 characters and hours at
 * 1,024), above the worst allowed one: two repetitions are quadratic, a few hundred ms on 1,024 characters of "a".
 * The ladder stops at the first value slower than this (CPU milliseconds of the process).
 */
const SLOW_MS = 2_000;

describe('regex search (fuzz)', () => {
  it('matches any value in bounded time with every expression it accepts, and refuses the others with a remedy', () => {
    let accepted = 0;
    fc.assert(
      fc.property(expression, fc.boolean(), (query, caseSensitive) => {
        let matcher: (text: string) => boolean;
        try {
          matcher = compileMatcher({ query, mode: 'regex', case_sensitive: caseSensitive });
        } catch (error) {
          if (!isFlotillaError(error)) throw error;
          expect(error.code).toBe('invalid_argument');
          expect(error.remedy).toMatch(/substring|Fix the expression|Shorten/);
          return;
        }
        accepted += 1;
        for (const value of VALUES) {
          for (const length of LENGTHS) {
            const text = value(length);
            // CPU time, not wall time: what a match costs, however loaded the machine running the test.
            const started = process.cpuUsage();
            matcher(text);
            const spent = process.cpuUsage(started);
            const ms = (spent.user + spent.system) / 1_000;
            if (ms > SLOW_MS) throw new Error(`"${query}" took ${Math.round(ms)} ms of CPU on ${length} characters of ${JSON.stringify(text.slice(0, 12))}…`);
          }
        }
      }),
      { numRuns: 1000 },
    );
    // The generator is not all refusals: plenty of expressions are accepted and exercised.
    expect(accepted).toBeGreaterThan(40);
  });

  it('still accepts the everyday expressions', () => {
    for (const query of ['^payments-.*-prod$', 'payments-(api|web)+', '(ab)+', '^app-00[0-4]$', '\\d{4}-\\d{2}-\\d{2}', 'team=(core|payments)', '^[a-z]+-[a-z]+$']) {
      expect(() => compileMatcher({ query, mode: 'regex', case_sensitive: false }), query).not.toThrow();
    }
  });
});
