/**
 * Typo correction against a lexicon: the nearest known word within a small edit distance, and only when it is the
 * only one that near. An index of deletions (the symmetric-delete method) finds candidates without scanning the
 * lexicon, so a correction costs microseconds at any lexicon size the agent holds.
 */

/** Optimal string alignment distance (a swap of two neighbours is one edit), stopping past `max` (returns max + 1). */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  let prev2: number[] = [];
  let prev: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (prev2[j - 2] ?? 0) + 1);
      row.push(d);
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length] ?? max + 1;
}

/** Edits allowed for a word of this many characters: none under 4, one up to 7, two from 8. */
export function allowedEdits(length: number): number {
  if (length < 4) return 0;
  return length >= 8 ? 2 : 1;
}

/** Bounds of the index: the words it holds and the longest word it corrects. */
export const FUZZY_LIMITS = { maxWords: 5_000, maxWordChars: 32 } as const;

function deletes(word: string, depth: number, out: Set<string>): void {
  if (depth === 0) return;
  for (let i = 0; i < word.length; i += 1) {
    const d = word.slice(0, i) + word.slice(i + 1);
    if (!out.has(d)) {
      out.add(d);
      deletes(d, depth - 1, out);
    }
  }
}

/**
 * FNV-1a (32 bits) of `word` without its character at `skip` (-1: all of it), made without building that string: the
 * index keys deletions by their hash, so it holds numbers, not a string per deletion. A collision only adds a
 * candidate, which the edit distance then rules out.
 */
function hashWithout(word: string, skip: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i += 1) {
    if (i === skip) continue;
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface Correction {
  readonly word: string;
  readonly distance: number;
}

/** The digit runs of a word, in order ("prod-eu-1" → "1", "100base-tx" → "100"). */
const numbersOf = (word: string): string => (word.match(/[0-9]+/g) ?? []).join(' ');

export class FuzzyIndex {
  /** Hash of a word or of one of its single deletions → the index of the word in #list (several: an array). */
  readonly #byDelete = new Map<number, number | number[]>();
  readonly #words = new Set<string>();
  readonly #list: string[] = [];

  add(word: string): void {
    if (this.#words.has(word) || this.#words.size >= FUZZY_LIMITS.maxWords || word.length > FUZZY_LIMITS.maxWordChars || word.length < 4) return;
    this.#words.add(word);
    const index = this.#list.push(word) - 1;
    // The index holds single deletions only; a lookup deletes up to two from the word asked: cheap to build, and it
    // still finds a swap, a substitution, a letter missing or one too many, and two letters too many.
    for (let skip = -1; skip < word.length; skip += 1) {
      const key = hashWithout(word, skip);
      const at = this.#byDelete.get(key);
      if (at === undefined) this.#byDelete.set(key, index);
      else if (typeof at === 'number') {
        if (at !== index) this.#byDelete.set(key, [at, index]);
      } else if (at[at.length - 1] !== index) at.push(index);
    }
  }

  /** The words whose own or single-deletion hash is `key`'s. */
  *#candidates(key: string): Iterable<string> {
    const at = this.#byDelete.get(hashWithout(key, -1));
    if (at === undefined) return;
    for (const i of typeof at === 'number' ? [at] : at) {
      const word = this.#list[i];
      if (word !== undefined) yield word;
    }
  }

  get size(): number {
    return this.#words.size;
  }

  has(word: string): boolean {
    return this.#words.has(word);
  }

  /**
   * The one known word nearest to `word` within its allowed edits, or undefined when none is or several are (unless
   * `sameMeaning` says they mean the same: "switchs" is as near "switch" as "switches"). A
   * four-letter word is corrected only by a swap of two letters ("prdo"): one other edit reaches too many words.
   */
  correct(word: string, sameMeaning?: (a: string, b: string) => boolean): Correction | undefined {
    const max = allowedEdits(word.length);
    if (max === 0 || word.length > FUZZY_LIMITS.maxWordChars || this.#words.has(word)) return undefined;
    const keys = new Set<string>([word]);
    deletes(word, max, keys);
    let best: string | undefined;
    let bestDistance = max + 1;
    let tie = false;
    // Of candidates as near, the one with the word's very letters (two swapped: "devicse" → devices, not device):
    // a swap is the commonest slip, and a letter added or dropped another word.
    let swapped: string | undefined;
    let swaps = 0;
    const seen = new Set<string>();
    const sorted = (w: string): string => [...w].sort().join('');
    const letters = sorted(word);
    for (const k of keys) {
      for (const candidate of this.#candidates(k)) {
        if (seen.has(candidate)) continue;
        seen.add(candidate);
        const limit = Math.min(max, allowedEdits(candidate.length));
        const sameLetters = candidate.length === word.length && sorted(candidate) === letters;
        if (word.length === 4 && !sameLetters) continue;
        // A typo is in the letters: a word whose numbers differ ("100base-tx", "1000base-t"; "sw-01", "sw-001") is
        // another thing, not a misspelling of it.
        if (numbersOf(word) !== numbersOf(candidate)) continue;
        const d = editDistance(word, candidate, limit);
        if (d > limit) continue;
        if (d < bestDistance) {
          best = candidate;
          bestDistance = d;
          tie = false;
          swapped = sameLetters ? candidate : undefined;
          swaps = sameLetters ? 1 : 0;
        } else if (d === bestDistance && candidate !== best && !(best !== undefined && sameMeaning?.(candidate, best) === true)) {
          tie = true;
          if (sameLetters) {
            swapped = candidate;
            swaps += 1;
          }
        }
      }
    }
    if (tie && swaps === 1 && swapped !== undefined) return { word: swapped, distance: bestDistance };
    return best === undefined || tie ? undefined : { word: best, distance: bestDistance };
  }
}
