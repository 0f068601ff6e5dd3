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
  const risk = backtrackingRisk(options.query);
  if (risk === 'repeated_group') {
    throw new FlotillaError(
      'invalid_argument',
      'query repeats a group holding more than plain text (a quantifier, a class, a wildcard, a group, or alternatives that start alike, like "(a+)+" or "(.|.)+"), which can take exponential time',
      { remedy: 'Drop the outer or the inner repetition (e.g. "a+" instead of "(a+)+"), repeat a class instead (e.g. "[a-z-]+"), or use mode "substring".' },
    );
  }
  if (risk === 'repeats') {
    throw new FlotillaError(
      'invalid_argument',
      `query has more than ${LIMITS.regexRepeatsMax} repetitions (*, + or {n,m}), counting the search for a start when it does not begin with "^", which can take polynomial time on long values`,
      {
        remedy: `Anchor it with "^" and use at most ${LIMITS.regexRepeatsMax} repetitions (e.g. "^payments-.*-prod$"), drop a leading or trailing ".*" (a search matches anywhere), or use mode "substring".`,
      },
    );
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

const QUANTIFIER = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})\??/;
const GROUP_PREFIX = /^\?(?::|=|!|<=|<!|<[^>]*>)/;

/**
 * The shapes behind catastrophic backtracking, found before compiling so no search can pin a CPU:
 * - 'repeated_group': a group repeated more than once holding anything but plain text or alternatives of plain text
 *   that start with different characters ("(a+)+", "(x*y*)*", "(.|.)+", "(a|aa)+", "((a+))+": exponential time);
 *   "(ab)+" and "(api|web)+" match one way only and are fine;
 * - 'repeats': more than LIMITS.regexRepeatsMax repetitions in all (".*.*.*.*x": polynomial time of a high degree),
 *   where a pattern that does not begin with "^" (or has alternatives at the top) counts one more: the engine tries
 *   every start, so "a*a+!" is cubic on a run of "a" (seconds on LIMITS.regexTextMax characters) and "^a*a+!" quadratic.
 */
function backtrackingRisk(pattern: string): 'repeated_group' | 'repeats' | undefined {
  interface Group {
    /** Holds a quantifier, a group or an atom other than a plain character. */
    notPlain: boolean;
    /** First character of each alternative ('' for an empty one), lower-cased. */
    readonly firsts: string[];
    atBranchStart: boolean;
  }
  const groups: Group[] = [];
  const top = (): Group | undefined => groups[groups.length - 1];
  const atom = (plain: string | undefined): void => {
    const group = top();
    if (group === undefined) return;
    if (plain === undefined) group.notPlain = true;
    if (group.atBranchStart) group.firsts.push((plain ?? '').toLowerCase());
    group.atBranchStart = false;
  };
  // An unanchored pattern is tried at every start: one repetition more. Top-level alternatives are checked at the end.
  let repeats = pattern.startsWith('^') ? 0 : 1;
  let topAlternatives = false;
  /** The group that ended just before the current position, if the last atom was one. */
  let closed: Group | undefined;
  for (let i = 0; i < pattern.length; ) {
    const quantifier = i > 0 ? QUANTIFIER.exec(pattern.slice(i, i + 32)) : null;
    if (quantifier !== null) {
      const [text, symbol, min = '0', comma, max] = quantifier;
      const most = symbol === '?' ? 1 : symbol !== undefined || (comma !== undefined && max === '') ? Infinity : Number(comma === undefined ? min : max);
      const least = symbol === '+' ? 1 : symbol !== undefined ? 0 : Number(min);
      if (closed !== undefined && most > 1) {
        const alike = new Set(closed.firsts).size < closed.firsts.length || closed.firsts.includes('');
        if (closed.notPlain || (closed.firsts.length > 1 && alike)) return 'repeated_group';
      }
      if (most > least && most > 1 && ++repeats > LIMITS.regexRepeatsMax) return 'repeats';
      const group = top();
      if (group !== undefined) group.notPlain = true;
      closed = undefined;
      i += text.length;
      continue;
    }
    closed = undefined;
    const c = pattern[i] ?? '';
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      atom(/[A-Za-z0-9]/.test(next) ? undefined : next);
      i += 2;
    } else if (c === '[') {
      for (i += 1; i < pattern.length && pattern[i] !== ']'; i += pattern[i] === '\\' ? 2 : 1);
      atom(undefined);
      i += 1;
    } else if (c === '(') {
      atom(undefined);
      groups.push({ notPlain: false, firsts: [], atBranchStart: true });
      i += 1 + (GROUP_PREFIX.exec(pattern.slice(i + 1, i + 64))?.[0].length ?? 0);
    } else if (c === ')') {
      const group = groups.pop();
      if (group !== undefined && group.atBranchStart) group.firsts.push('');
      closed = group;
      i += 1;
    } else if (c === '|') {
      const group = top();
      if (group !== undefined) {
        if (group.atBranchStart) group.firsts.push('');
        group.atBranchStart = true;
      } else if (!topAlternatives && pattern.startsWith('^')) {
        // "^a|b.*c": only the first alternative is anchored.
        topAlternatives = true;
        if (++repeats > LIMITS.regexRepeatsMax) return 'repeats';
      }
      i += 1;
    } else {
      atom(c === '.' || c === '^' || c === '$' ? undefined : c);
      i += 1;
    }
  }
  return undefined;
}

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
