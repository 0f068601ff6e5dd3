/**
 * The embedded, deterministic model's classifier: per-agent intent rules (weighted patterns) plus entity
 * extractors, giving an intent, its entities and a confidence score. No network, no key, same answer every time.
 * The workflow routes on the confidence with the design note's 0.8 threshold.
 */
import { LRUCache } from 'lru-cache';
import { editDistance } from '@flotilla/query';
export const CONFIDENCE_THRESHOLD = 0.8;

export type Complexity = 'simple' | 'complex';
export type EntityValue = string | readonly string[];
export type Entities = Readonly<Record<string, EntityValue>>;

export interface WeightedPattern {
  readonly pattern: RegExp;
  /** Confidence this pattern alone gives (0..1). */
  readonly weight: number;
}

export interface IntentRule<I extends string> {
  readonly intent: I;
  readonly complexity: Complexity;
  readonly patterns: readonly WeightedPattern[];
  /** Any of these in the question rules the intent out (e.g. "project" for an application list). */
  readonly unless?: readonly RegExp[];
  /** Entities the intent needs; without them the confidence is scaled down by `missingPenalty`. */
  readonly requires?: readonly string[];
  /** Entities that make the intent more likely when present (+0.05 each). */
  readonly boostedBy?: readonly string[];
}

/** Where in the normalised question something was read: [start, end) character offsets. */
export type Span = readonly [start: number, end: number];

/** An entity with the parts of the question it was read from (so those words count as used). */
export interface Extracted {
  readonly value: EntityValue;
  readonly spans: readonly Span[];
}

export interface EntityExtractor {
  readonly name: string;
  /**
   * True when what it reads depends on the time of asking ("in the last hour" is a window ending now): a
   * classification in which it found something is never remembered (`CLASSIFICATION_MEMO`).
   */
  readonly clock?: boolean;
  /** `normalised` is the question as classified (lower case, typos corrected); spans refer to it. */
  extract(question: string, normalised: string): EntityValue | Extracted | undefined;
}

/** A typo read as a word the rules know. */
export interface Correction {
  readonly from: string;
  readonly to: string;
}

/**
 * Words that change what a question asks ("not", "or", "except"…): one the rules did not understand means the
 * question cannot be answered as asked (without it, the answer would be its opposite or a part of it).
 */
export const MEANING_CHANGERS: ReadonlySet<string> = new Set([
  'not', 'no', 'nor', 'neither', 'never', 'none', 'except', 'excluding', 'exclude', 'without', 'or', 'but', 'vs', 'versus', 'unless', "isn't", "aren't",
  "wasn't", "weren't", "don't", "doesn't", "didn't", "haven't", "hasn't", 'non', 'other', 'than', 'instead',
]);

export interface Classification<I extends string> {
  readonly intent: I;
  readonly entities: Entities;
  /** 0..1; >= CONFIDENCE_THRESHOLD means the rules are sure enough to act directly. */
  readonly confidence: number;
  readonly complexity: Complexity;
  /** The runner-up, for "did you mean" answers when the question is ambiguous. */
  readonly alternatives: readonly { readonly intent: I; readonly confidence: number }[];
  /**
   * Words of the question the rules did not use (neither an entity, nor a word the agent understands), in order.
   * Present when the classifier accounts for words (`understood` given): an answer must not pretend they were
   * applied.
   */
  readonly unused?: readonly string[];
  /** Typos read as known words ("snyc" as "sync"). */
  readonly corrected?: readonly Correction[];
}

export interface RulesClassifierOptions<I extends string> {
  readonly rules: readonly IntentRule<I>[];
  readonly entities: readonly EntityExtractor[];
  /** The intent returned when nothing matches (confidence 0). */
  readonly fallback: I;
  readonly missingPenalty?: number;
  /**
   * Words and phrases the agent understands beyond its entities (list verbs, nouns, filler), as whole-word
   * patterns. Given, the classifier accounts for every word: what neither these nor an entity's spans cover is
   * returned as `unused`.
   */
  readonly understood?: readonly RegExp[];
  /**
   * Words a typo may be corrected to: only words that carry meaning, never filler (a "helm" read as "help" would drop
   * a word silently). At most one edit for 5-7 letters (two swapped for 4), two from 8; a unique nearest word only.
   */
  readonly vocabulary?: readonly string[];
  /** Words after which a name follows (never corrected as a typo): "project", "cluster", "namespace"... */
  readonly namePrefixes?: readonly string[];
  /** Words spelt right that are not typo targets (filler, units): never corrected. */
  readonly known?: readonly string[];
}

/** Longest question classified; longer input is cut (bounded regex work). */
export const QUESTION_MAX_CHARS = 2_000;

/** Lower case, typographic quotes and dashes made plain, whitespace collapsed. */
export function normalise(question: string): string {
  return question
    .slice(0, QUESTION_MAX_CHARS)
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface RulesClassifier<I extends string> {
  classify(question: string): Classification<I>;
}

/**
 * Classifications remembered per classifier, by the question's exact text: the same question (the many askers of a
 * cached answer) is read once, not once per request. At most `entries` questions of at most `maxChars` characters
 * each, least recently asked forgotten first; a classification that read the clock (`EntityExtractor.clock`) is
 * never kept, so a time window always ends at the time of asking. A remembered classification is frozen: callers
 * share it.
 */
export const CLASSIFICATION_MEMO = { entries: 256, maxChars: 512 } as const;

/** Freezes a classification and what it holds (entities' arrays, alternatives, accounting): it is shared. */
function frozen<I extends string>(c: Classification<I>): Classification<I> {
  for (const value of Object.values(c.entities)) if (Array.isArray(value)) Object.freeze(value);
  Object.freeze(c.entities);
  for (const a of c.alternatives) Object.freeze(a);
  Object.freeze(c.alternatives);
  if (c.unused !== undefined) Object.freeze(c.unused);
  if (c.corrected !== undefined) {
    for (const k of c.corrected) Object.freeze(k);
    Object.freeze(c.corrected);
  }
  return Object.freeze(c);
}

const isExtracted = (value: EntityValue | Extracted): value is Extracted => typeof value === 'object' && !Array.isArray(value);

/** Words of a question, with their offsets: letters and digits, joined by . _ : / @ = + - (names, URLs, k=v). */
const WORD = /[\p{L}\p{N}](?:[\p{L}\p{N}._:/@=+'-]*[\p{L}\p{N}/])?/gu;

/** Longest word considered for typo correction, and most words corrected (bounded work on long questions). */
export const TYPO_LIMITS = { maxWordChars: 24, maxWords: 200 } as const;

/** Optimal string alignment distance, stopping early past `max` (returns max + 1): the typed query's own. */
export { editDistance };

/** Corrects typos towards `vocabulary`: a plain word (not part of a name, URL or k=v) with one nearest known word. */
function correctTypos(
  text: string,
  vocabulary: ReadonlySet<string>,
  namePrefixes: ReadonlySet<string>,
  known: ReadonlySet<string>,
): { text: string; corrected: (Correction & { readonly at: Span })[] } {
  const corrected: (Correction & { readonly at: Span })[] = [];
  let out = '';
  let last = 0;
  let previous = '';
  let seen = 0;
  for (const match of text.matchAll(/[a-z]+(?:'[a-z]+)?/g)) {
    const token = match[0];
    const start = match.index;
    const end = start + token.length;
    const before = previous;
    previous = token;
    seen += 1;
    const inName = /[\w./=@:-]/.test(text[start - 1] ?? ' ') || /^(?:[\w/=@-]|\.\w)/.test(text.slice(end, end + 2));
    if (inName || seen > TYPO_LIMITS.maxWords || token.length < 4 || token.length > TYPO_LIMITS.maxWordChars || vocabulary.has(token) || known.has(token) || namePrefixes.has(before)) continue;
    const max = token.length >= 8 ? 2 : 1;
    let best: string | undefined;
    let bestDistance = max + 1;
    let ties = 0;
    const sorted = [...token].sort().join('');
    for (const word of vocabulary) {
      if (word.length < 3) continue;
      // A four-letter word is only read as another with two letters swapped ("lsit"): one other edit makes too many words.
      if (token.length === 4 && (word.length !== 4 || [...word].sort().join('') !== sorted)) continue;
      const d = editDistance(token, word, max);
      if (d < bestDistance) {
        best = word;
        bestDistance = d;
        ties = 0;
      } else if (d === bestDistance && word !== best) ties += 1;
    }
    if (best === undefined || ties > 0) continue;
    out += text.slice(last, start);
    corrected.push({ from: token, to: best, at: [out.length, out.length + best.length] });
    previous = best;
    out += best;
    last = end;
  }
  return { text: corrected.length === 0 ? text : out + text.slice(last), corrected };
}

/**
 * One whole-word pattern of `words` for a classifier's `understood` list, longest first; a word's possessive is the
 * word ("the app's status": "app's" is "app", understood).
 */
export function understoodWords(words: readonly string[]): RegExp {
  const alternatives = [...new Set(words)].sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![\\w'-])(?:${alternatives.join('|')})(?:'s)?(?![\\w'-])`, 'g');
}

/** Marks `[start, end)` as used. */
function cover(used: Uint8Array, start: number, end: number): void {
  used.fill(1, Math.max(0, start), Math.min(used.length, end));
}

/** The words of `text` no span covers entirely, in order, without repeats. */
function unusedWords(text: string, used: Uint8Array): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const start = match.index;
    const end = start + match[0].length;
    // A possessive ("checkout-web-dev's") is its name.
    const bare = match[0].endsWith("'s") ? end - 2 : end;
    if (used.subarray(start, bare).every((u) => u === 1)) continue;
    if (!out.includes(match[0])) out.push(match[0]);
  }
  return out;
}

export function createRulesClassifier<I extends string>(options: RulesClassifierOptions<I>): RulesClassifier<I> {
  const penalty = options.missingPenalty ?? 0.7;
  const vocabulary = new Set(options.vocabulary ?? []);
  const namePrefixes = new Set(options.namePrefixes ?? []);
  const known = new Set(options.known ?? []);
  const understood = (options.understood ?? []).map((re) => new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`));
  const memo = new LRUCache<string, Classification<I>>({ max: CLASSIFICATION_MEMO.entries });
  return {
    classify(question) {
      const remembered = question.length <= CLASSIFICATION_MEMO.maxChars ? memo.get(question) : undefined;
      if (remembered !== undefined) return remembered;
      const { classification, clocked } = classifyNow(question);
      if (clocked || question.length > CLASSIFICATION_MEMO.maxChars) return classification;
      const kept = frozen(classification);
      memo.set(question, kept);
      return kept;
    },
  };

  function classifyNow(question: string): { readonly classification: Classification<I>; readonly clocked: boolean } {
    const normalised = normalise(question);
    const { text, corrected } = vocabulary.size > 0 ? correctTypos(normalised, vocabulary, namePrefixes, known) : { text: normalised, corrected: [] };
    const used = new Uint8Array(text.length);
    const entities: Record<string, EntityValue> = {};
    let clocked = false;
    for (const extractor of options.entities) {
      const found = extractor.extract(question.slice(0, QUESTION_MAX_CHARS), text);
      if (found === undefined) continue;
      const value = isExtracted(found) ? found.value : found;
      if (value.length === 0) continue;
      entities[extractor.name] = value;
      if (extractor.clock === true) clocked = true;
      if (isExtracted(found)) {
        for (const [start, end] of found.spans) cover(used, start, end);
      }
    }
    for (const re of understood) for (const match of text.matchAll(re)) cover(used, match.index, match.index + match[0].length);
    // A typo read as a word nothing used (neither an entity nor an understood word) stays a word not understood.
    const applied = corrected.filter((c) => used.subarray(c.at[0], c.at[1]).every((u) => u === 1));
    const dropped = corrected.filter((c) => !applied.includes(c));
    // The word typed is the one reported, not the word it was misread as.
    for (const c of dropped) cover(used, c.at[0], c.at[1]);
    const accounting =
      options.understood === undefined
        ? {}
        : { unused: [...new Set([...dropped.map((c) => c.from), ...unusedWords(text, used)])], corrected: applied.map(({ from, to }) => ({ from, to })) };
    const scored = options.rules
      .map((rule) => {
        if (rule.unless?.some((re) => re.test(text)) === true) return { rule, confidence: 0 };
        const weights = rule.patterns.filter((p) => p.pattern.test(text)).map((p) => p.weight);
        if (weights.length === 0) return { rule, confidence: 0 };
        let confidence = Math.max(...weights) + 0.03 * (weights.length - 1);
        for (const name of rule.boostedBy ?? []) if (entities[name] !== undefined) confidence += 0.05;
        if ((rule.requires ?? []).some((name) => entities[name] === undefined)) confidence *= penalty;
        return { rule, confidence: Math.min(0.99, confidence) };
      })
      .filter((s) => s.confidence > 0)
      .sort((a, b) => b.confidence - a.confidence);
    const best = scored[0];
    if (best === undefined) {
      return { classification: { intent: options.fallback, entities, confidence: 0, complexity: 'simple', alternatives: [], ...accounting }, clocked };
    }
    const classification: Classification<I> = {
      intent: best.rule.intent,
      entities,
      confidence: Math.round(best.confidence * 100) / 100,
      complexity: best.rule.complexity,
      alternatives: scored.slice(1, 3).map((s) => ({ intent: s.rule.intent, confidence: Math.round(s.confidence * 100) / 100 })),
      ...accounting,
    };
    return { classification, clocked };
  }
}
