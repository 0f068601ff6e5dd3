import { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import { LIMITS } from './limits.js';

export const SEARCH_MODES = ['substring', 'regex'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

const queryMessage = `query must be 1 to ${LIMITS.queryMaxLength} characters`;

/** Search arguments every search-first tool takes. */
export const SEARCH_SHAPE = {
  query: z
    .string({ message: queryMessage })
    .min(1, queryMessage)
    .max(LIMITS.queryMaxLength, queryMessage)
    .describe('Text to look for. Substring by default; a regular expression when mode is "regex".'),
  mode: z
    .enum(SEARCH_MODES, { message: 'mode must be "substring" or "regex"' })
    .default('substring')
    .describe('substring (default) or regex (JavaScript syntax).'),
  case_sensitive: z.boolean({ message: 'case_sensitive must be true or false' }).default(false),
} as const;

export interface SearchOptions {
  readonly query: string;
  readonly mode: SearchMode;
  readonly case_sensitive: boolean;
  /** Stop after this many matches (default LIMITS.searchMatchCap). */
  readonly cap?: number;
}

export type Matcher = (text: string) => boolean;

/** Compile a query into a matcher; a bad regex is the caller's fault and says how to fix it. */
export function compileMatcher(options: Pick<SearchOptions, 'query' | 'mode' | 'case_sensitive'>): Matcher {
  if (options.query.length === 0 || options.query.length > LIMITS.queryMaxLength) {
    throw new FlotillaError('invalid_argument', queryMessage, { remedy: 'Shorten the query.' });
  }
  if (options.mode === 'substring') {
    if (options.case_sensitive) return (text) => text.includes(options.query);
    const needle = options.query.toLowerCase();
    return (text) => text.toLowerCase().includes(needle);
  }
  if (NESTED_QUANTIFIER.test(options.query)) {
    throw new FlotillaError('invalid_argument', 'query has a quantified group that itself contains a quantifier (like "(a+)+"), which can take exponential time', {
      remedy: 'Drop the outer or the inner repetition (e.g. "a+" instead of "(a+)+"), or use mode "substring".',
    });
  }
  let regex: RegExp;
  try {
    regex = new RegExp(options.query, options.case_sensitive ? 'u' : 'iu');
  } catch (error) {
    throw new FlotillaError('invalid_argument', `query is not a valid regular expression: ${(error as Error).message}`, {
      remedy: 'Fix the expression (JavaScript syntax, e.g. "^payments-.*-prod$"), or use mode "substring" for plain text.',
      cause: error,
    });
  }
  // Only the first LIMITS.regexTextMax characters of a value are matched: backtracking cost grows with length.
  return (text) => regex.test(text.length > LIMITS.regexTextMax ? text.slice(0, LIMITS.regexTextMax) : text);
}

/**
 * A group with a quantifier inside that is itself quantified: the shape behind catastrophic backtracking
 * ("(a+)+", "(x*y*)*", "(\\w+\\s?)+"). Rejected before compiling, so no search can pin a CPU.
 */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,?\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,?\d*\})/;

/** The searchable text fields of an item: name → value(s). */
export type SearchFields<T> = (item: T) => Iterable<readonly [field: string, value: string | undefined]>;

export interface SearchMatch<T> {
  readonly item: T;
  /** Fields that matched, so the answer can say why an item is here. */
  readonly matched: readonly string[];
}

export interface SearchOutcome<T> {
  readonly matches: readonly SearchMatch<T>[];
  /** Items looked at before the scan ended. */
  readonly scanned: number;
  /** True when scanning stopped at the cap: there may be more matches than `matches`. */
  readonly capped: boolean;
  readonly cap: number;
}

/** Scan items (any iterable, so a caller can stream) for matches in the given fields, stopping at the cap. */
export function searchItems<T>(items: Iterable<T>, fields: SearchFields<T>, options: SearchOptions): SearchOutcome<T> {
  const matcher = compileMatcher(options);
  const cap = Math.min(options.cap ?? LIMITS.searchMatchCap, LIMITS.searchMatchCap);
  const matches: SearchMatch<T>[] = [];
  let scanned = 0;
  for (const item of items) {
    if (matches.length >= cap) return { matches, scanned, capped: true, cap };
    scanned += 1;
    const matched: string[] = [];
    for (const [field, value] of fields(item)) {
      if (value !== undefined && !matched.includes(field) && matcher(value)) matched.push(field);
    }
    if (matched.length > 0) matches.push({ item, matched });
  }
  return { matches, scanned, capped: false, cap };
}
