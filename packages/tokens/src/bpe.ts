/**
 * Byte-pair encoding in time linear in the text, over js-tiktoken's rank data and pre-tokenization regex.
 *
 * js-tiktoken (and gpt-tokenizer) merge a piece by rescanning every pair after each merge: quadratic in the
 * piece, so one long unbroken piece (a base64 certificate, 16k of one letter) takes seconds to minutes. Here a
 * piece is merged with a heap of candidate pairs over a linked list of parts, in O(n log n), and a piece longer
 * than PIECE_CHUNK_CHARS is merged in chunks of that size, so the log stays bounded and the whole text costs
 * O(length). The merge order is tiktoken's (lowest rank first, the leftmost of equal ranks), so any piece up to
 * the chunk size gets exactly tiktoken's tokens.
 *
 * Ranks live in typed arrays (every token's bytes, an offset per rank, an open-addressing hash table of ranks
 * keyed by bytes, the ranks of all two-byte tokens): 2.4 MiB for cl100k and 4.5 MiB for o200k, where a Map of
 * 100k-200k string keys took tens of MiB. Truncation needs no decoder: it cuts the text itself at the character
 * where the budget's last token ends.
 */

/**
 * The longest pre-tokenized piece, in UTF-16 code units, merged as one. A longer piece (only long unbroken runs
 * reach it: letters of base64 between digits, one repeated character, long punctuation or whitespace runs) is
 * merged in chunks of this size (one unit less where a surrogate pair would be split). Measured on 1 MiB (cl100k):
 * one letter counts in 59 ms at 256, 66 ms at 1,024, 71 ms at 2,048, and is counted 12.5%, 3.1% and 1.6% over its
 * true count (CHUNK_BOUNDARY_MARGIN per boundary); random letters 0.7% over at 1,024. Scratch arrays: ~80 KiB.
 */
export const PIECE_CHUNK_CHARS = 1_024;

/**
 * Tokens charged for each chunk boundary of a long piece (and each cut at a regex window's end), so that the count
 * stays an upper bound. The chunks of a piece merged apart can be FEWER tokens than the piece merged whole (a merge
 * across the boundary that the whole piece makes early can leave both sides worse off), so their plain sum could
 * be too low. Measured against the reference (js-tiktoken; bpe.test.ts keeps checking it): of 67,000 random long
 * words with one boundary (12 shapes, both encodings, 64-character chunks) the chunks came to as many tokens as
 * the whole or more 97.6% of the time, 1 fewer 2.4%, 2 fewer 0.01%, never 3; ~8,000 boundaries at chunks of 256 to
 * 2,048 were never more than 1 short per boundary; a hill-climbing search for the worst boundary (letters, whitespace,
 * punctuation, CJK, emoji; ~17 million words, chunks of 64 and 256) found 3 short, never 4. Hence 4: a piece is
 * counted at least at its true count, and at most ~4 + 3 tokens per boundary above it.
 */
export const CHUNK_BOUNDARY_MARGIN = 4;

/**
 * The pre-tokenization regex sees the text in windows of this many UTF-16 code units (see `scan`): far below
 * the few million characters of one match at which V8's regex stack overflows, far above any piece of real text.
 */
export const REGEX_WINDOW_CHARS = 65_536;
/** A match ending this close to a window's end is matched again in the next window (it looks ≤ 3 characters ahead). */
const REGEX_WINDOW_GUARD = 64;

/**
 * Entries of the cache of merges by the ranks of the two parts (direct-mapped, 16 bytes each: 256 KiB). Runs
 * of similar text ask for the same merges again; a hit costs one probe instead of hashing and comparing bytes.
 */
const PAIR_CACHE_BITS = 14;

/** Every token's bytes, by rank, and a hash table from bytes to rank. */
export interface RankTable {
  /** The number of ranks (the largest + 1). */
  readonly ranks: number;
  /** The bytes of every token, concatenated in rank order. */
  readonly bytes: Uint8Array;
  /** Rank r's bytes are bytes[offsets[r], offsets[r + 1]); a rank no token has is empty. */
  readonly offsets: Uint32Array;
  /** Open addressing, linear probing: rank + 1, 0 for an empty slot. Size a power of two. */
  readonly slots: Int32Array;
  /** The length of the longest token, in bytes: longer byte strings are no token without a lookup. */
  readonly maxTokenBytes: number;
  /** The rank of each single byte. */
  readonly byteRanks: Int32Array;
  /** The rank of each two-byte token by its bytes (first << 8 | second), -1 for none: the first merges. */
  readonly bytePairs: Int32Array;
}

function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  // FNV-1a, then murmur3's finaliser so the low bits (the slot index) depend on every byte.
  let h = 0x811c9dc5;
  for (let i = start; i < end; i += 1) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const BASE64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i += 1) BASE64_VALUE['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

function base64Length(text: string, start: number, end: number): number {
  let length = end - start;
  while (length > 0 && text.charCodeAt(start + length - 1) === 61 /* = */) length -= 1;
  return Math.floor((length * 3) / 4);
}

function decodeBase64(text: string, start: number, end: number, out: Uint8Array, at: number): void {
  let bits = 0;
  let count = 0;
  for (let i = start; i < end; i += 1) {
    const value = BASE64_VALUE[text.charCodeAt(i)] ?? -1;
    if (value < 0) continue;
    bits = (bits << 6) | value;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out[at] = (bits >>> count) & 0xff;
      at += 1;
    }
  }
}

/** Calls `each(rank, start, end)` for every token of js-tiktoken's rank text ("! <offset> <base64> <base64> ..."). */
function eachToken(text: string, each: (rank: number, start: number, end: number) => void): void {
  let lineStart = 0;
  while (lineStart < text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    const offsetStart = text.indexOf(' ', lineStart) + 1;
    let at = text.indexOf(' ', offsetStart);
    if (offsetStart > 0 && at !== -1 && at < lineEnd) {
      let rank = Number.parseInt(text.slice(offsetStart, at), 10);
      while (at < lineEnd) {
        let next = text.indexOf(' ', at + 1);
        if (next === -1 || next > lineEnd) next = lineEnd;
        if (next > at + 1) {
          each(rank, at + 1, next);
          rank += 1;
        }
        at = next;
      }
    }
    lineStart = lineEnd + 1;
  }
}

/** Packs js-tiktoken's rank text into a RankTable. */
export function buildRankTable(bpeRanks: string): RankTable {
  let ranks = 0;
  let tokens = 0;
  eachToken(bpeRanks, (rank) => {
    ranks = Math.max(ranks, rank + 1);
    tokens += 1;
  });
  const lengths = new Uint32Array(ranks + 1);
  eachToken(bpeRanks, (rank, start, end) => {
    lengths[rank] = base64Length(bpeRanks, start, end);
  });
  const offsets = new Uint32Array(ranks + 1);
  for (let rank = 0; rank < ranks; rank += 1) offsets[rank + 1] = offsets[rank]! + lengths[rank]!;
  const bytes = new Uint8Array(offsets[ranks]!);
  eachToken(bpeRanks, (rank, start, end) => decodeBase64(bpeRanks, start, end, bytes, offsets[rank]!));

  // Load factor at most 1/2: a lookup that misses (most candidate pairs) probes ~2.5 slots.
  let size = 1;
  while (size < tokens * 2) size *= 2;
  const slots = new Int32Array(size);
  const mask = size - 1;
  let maxTokenBytes = 0;
  for (let rank = 0; rank < ranks; rank += 1) {
    const start = offsets[rank]!;
    const end = offsets[rank + 1]!;
    if (end === start) continue;
    maxTokenBytes = Math.max(maxTokenBytes, end - start);
    let slot = hashBytes(bytes, start, end) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = rank + 1;
  }
  const byteRanks = new Int32Array(256).fill(-1);
  const bytePairs = new Int32Array(65_536).fill(-1);
  for (let rank = 0; rank < ranks; rank += 1) {
    const start = offsets[rank]!;
    const length = offsets[rank + 1]! - start;
    if (length === 1) byteRanks[bytes[start]!] = rank;
    else if (length === 2) bytePairs[(bytes[start]! << 8) | bytes[start + 1]!] = rank;
  }
  return { ranks, bytes, offsets, slots, maxTokenBytes, byteRanks, bytePairs };
}

/**
 * A byte-pair encoder for one encoding. Not reentrant (it merges in preallocated scratch arrays), which a
 * synchronous call in one thread never is.
 */
export class BytePairEncoder {
  private readonly pattern: RegExp;
  private readonly bytes: Uint8Array;
  private readonly offsets: Uint32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly maxTokenBytes: number;
  private readonly byteRanks: Int32Array;
  private readonly bytePairs: Int32Array;
  private readonly chunkChars: number;
  private readonly windowChars: number;
  /** Heap keys are rank << positionBits | start of the pair: one int32, ordered by rank, then leftmost. */
  private readonly positionBits: number;
  /** Left rank, right rank, merged rank (-1: none), unused; -2 marks an empty entry. */
  private readonly pairCache = new Int32Array(4 << PAIR_CACHE_BITS).fill(-2);
  // Scratch for one chunk: its bytes, the parts as a linked list (next/prev by start byte) with the rank of
  // each part, the rank of the pair starting at each part (-1: none, or not a part any more), and the heap of
  // candidate pairs.
  private readonly buffer: Uint8Array;
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  private readonly partRank: Int32Array;
  private readonly pairRank: Int32Array;
  private readonly heap: Int32Array;

  /**
   * `patStr` is the encoding's pre-tokenization regex (js-tiktoken's `pat_str`); `chunkChars` the longest
   * piece merged as one and `windowChars` the regex window (the defaults but in tests).
   */
  constructor(table: RankTable, patStr: string, chunkChars = PIECE_CHUNK_CHARS, windowChars = REGEX_WINDOW_CHARS) {
    if (windowChars <= 2 * REGEX_WINDOW_GUARD) throw new RangeError(`a regex window of ${windowChars} characters is too small`);
    this.windowChars = windowChars;
    // UTF-8 needs at most 3 bytes per UTF-16 code unit (4 for a surrogate pair of 2 units).
    const chunkBytes = 3 * chunkChars;
    this.chunkChars = chunkChars;
    this.positionBits = 32 - Math.clz32(chunkBytes);
    // Ranks fill the rest of a non-negative int32. Only a programming error can trip this (cl100k has 100k
    // ranks, o200k 200k, 262k fit beside the 13 bits of a chunk of 2,048).
    if (table.ranks > 2 ** (31 - this.positionBits)) throw new RangeError(`chunks of ${chunkChars} characters leave too few bits for ${table.ranks} ranks`);
    this.buffer = new Uint8Array(chunkBytes);
    this.next = new Int32Array(chunkBytes + 1);
    this.prev = new Int32Array(chunkBytes + 1);
    this.partRank = new Int32Array(chunkBytes + 1);
    this.pairRank = new Int32Array(chunkBytes + 1);
    // Each merge adds at most two candidates to the chunk's first ones.
    this.heap = new Int32Array(3 * chunkBytes);
    this.pattern = new RegExp(patStr, 'gu');
    this.bytes = table.bytes;
    this.offsets = table.offsets;
    this.slots = table.slots;
    this.mask = table.slots.length - 1;
    this.maxTokenBytes = table.maxTokenBytes;
    this.byteRanks = table.byteRanks;
    this.bytePairs = table.bytePairs;
  }

  /**
   * The number of tokens of `text`, special-token text counted as ordinary text. Exact for every piece up to
   * PIECE_CHUNK_CHARS; a longer piece is counted in chunks plus CHUNK_BOUNDARY_MARGIN per boundary: never below
   * its true count.
   */
  count(text: string): number {
    let total = 0;
    this.scan(text, (start, end, first) => {
      total += this.merge(this.fill(text, start, end)) + (first ? 0 : CHUNK_BOUNDARY_MARGIN);
      return true;
    });
    return total;
  }

  /** The token ids of `text` (chunked like `count`; boundary margins are not tokens). */
  encode(text: string): number[] {
    const ids: number[] = [];
    this.scan(text, (start, end) => {
      const length = this.fill(text, start, end);
      this.merge(length);
      for (let part = 0; part < length; part = this.next[part]!) ids.push(this.partRank[part]!);
      return true;
    });
    return ids;
  }

  /**
   * The length of the prefix of `text` that holds its first `budget` tokens, margins included: the end of the
   * last whole token within the budget, moved back to a character boundary where a token ends inside a
   * character. `text.length` when the whole text fits.
   */
  prefixLength(text: string, budget: number): number {
    let used = 0;
    let cut = text.length;
    this.scan(text, (start, end, first) => {
      const margin = first ? 0 : CHUNK_BOUNDARY_MARGIN;
      const length = this.fill(text, start, end);
      const tokens = this.merge(length);
      if (used + margin + tokens <= budget) {
        used += margin + tokens;
        return true;
      }
      let byte = 0;
      for (let left = budget - used - margin; left > 0; left -= 1) byte = this.next[byte]!;
      cut = start + charsWithin(text, start, end, byte);
      return false;
    });
    return cut;
  }

  /**
   * Calls `chunk(start, end, first)` for every chunk of every piece of `text`, until it returns false; `first`
   * is false for a chunk that continues a piece (a chunk boundary or a cut at a window's end).
   *
   * The regex runs on windows of REGEX_WINDOW_CHARS: V8's backtracking stack overflows (RangeError) on one
   * match of a few million characters of some classes (CJK, combining marks), so no match may be that long. A
   * match ending in the last REGEX_WINDOW_GUARD characters of a window might go on past it (or be decided by
   * what follows: a contraction, a newline after spaces), so the next window starts at that match; only a match
   * that fills a window from its start is cut at the window's end, and counted like a chunk boundary.
   */
  private scan(text: string, chunk: (start: number, end: number, first: boolean) => boolean): void {
    const pattern = this.pattern;
    let windowStart = 0;
    let continued = false;
    while (windowStart < text.length) {
      let windowEnd = Math.min(windowStart + this.windowChars, text.length);
      if (splitsPair(text, windowEnd)) windowEnd -= 1;
      const last = windowEnd === text.length;
      const source = last && windowStart === 0 ? text : text.slice(windowStart, windowEnd);
      const settled = last ? source.length : source.length - REGEX_WINDOW_GUARD;
      let next = windowStart + source.length;
      pattern.lastIndex = 0;
      for (let match = pattern.exec(source); match !== null; match = pattern.exec(source)) {
        const matchEnd = match.index + match[0].length;
        if (matchEnd > settled && match.index > 0) {
          next = windowStart + match.index;
          break;
        }
        const pieceEnd = windowStart + matchEnd;
        let start = windowStart + match.index;
        let first = !continued;
        while (start < pieceEnd) {
          let end = Math.min(start + this.chunkChars, pieceEnd);
          // Never split a surrogate pair: its halves would become two replacement characters.
          if (end < pieceEnd && splitsPair(text, end)) end -= 1;
          if (!chunk(start, end, first)) return;
          first = false;
          start = end;
        }
        continued = matchEnd > settled;
        if (continued) {
          next = pieceEnd;
          break;
        }
      }
      windowStart = next;
    }
  }

  /** Writes text[start, end) as UTF-8 (a lone surrogate as U+FFFD, as TextEncoder does) into the buffer. */
  private fill(text: string, start: number, end: number): number {
    const out = this.buffer;
    let n = 0;
    for (let i = start; i < end; i += 1) {
      let code = text.charCodeAt(i);
      if (code < 0x80) {
        out[n++] = code;
      } else if (code < 0x800) {
        out[n++] = 0xc0 | (code >> 6);
        out[n++] = 0x80 | (code & 0x3f);
      } else {
        if (code >= 0xd800 && code <= 0xdfff) {
          const low = i + 1 < end ? text.charCodeAt(i + 1) : 0;
          if (isHighSurrogate(code) && isLowSurrogate(low)) {
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            out[n++] = 0xf0 | (code >> 18);
            out[n++] = 0x80 | ((code >> 12) & 0x3f);
            out[n++] = 0x80 | ((code >> 6) & 0x3f);
            out[n++] = 0x80 | (code & 0x3f);
            i += 1;
            continue;
          }
          code = 0xfffd;
        }
        out[n++] = 0xe0 | (code >> 12);
        out[n++] = 0x80 | ((code >> 6) & 0x3f);
        out[n++] = 0x80 | (code & 0x3f);
      }
    }
    return n;
  }

  /** The rank of buffer[start, end), or -1 when no token has these bytes. */
  private rank(start: number, end: number): number {
    const { buffer, bytes, offsets, slots, mask } = this;
    const length = end - start;
    if (length > this.maxTokenBytes) return -1;
    for (let slot = hashBytes(buffer, start, end) & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]!;
      if (entry === 0) return -1;
      const rank = entry - 1;
      const at = offsets[rank]!;
      if (offsets[rank + 1]! - at !== length) continue;
      let i = 0;
      while (i < length && bytes[at + i] === buffer[start + i]) i += 1;
      if (i === length) return rank;
    }
  }

  /**
   * Merges buffer[0, length) as tiktoken does (the pair of lowest rank first, the leftmost of equals) and
   * returns the number of tokens; the parts are left in `next` (part start → next part start).
   */
  private merge(length: number): number {
    const { buffer, next, prev, partRank, pairRank, heap, byteRanks, bytePairs, positionBits } = this;
    const positionMask = (1 << positionBits) - 1;
    const whole = length === 1 ? byteRanks[buffer[0]!]! : this.rank(0, length);
    if (length === 0 || whole >= 0) {
      next[0] = length;
      partRank[0] = whole;
      return length === 0 ? 0 : 1;
    }
    let size = 0;
    for (let i = 0; i < length; i += 1) {
      next[i] = i + 1;
      prev[i] = i - 1;
      partRank[i] = byteRanks[buffer[i]!]!;
      const rank = i + 1 < length ? bytePairs[(buffer[i]! << 8) | buffer[i + 1]!]! : -1;
      pairRank[i] = rank;
      if (rank >= 0) heap[size++] = (rank << positionBits) | i;
    }
    // Floyd's heapify: O(n), where n pushes would be O(n log n).
    for (let at = (size >> 1) - 1; at >= 0; at -= 1) siftDown(heap, size, at, heap[at]!);
    let parts = length;
    while (size > 0) {
      const top = heap[0]!;
      size -= 1;
      siftDown(heap, size, 0, heap[size]!);
      const rank = top >> positionBits;
      const start = top & positionMask;
      // A stale candidate: its left part was merged away or has grown since (a rank names one byte range).
      if (pairRank[start] !== rank) continue;
      const right = next[start]!;
      const end = next[right]!;
      next[start] = end;
      if (end < length) prev[end] = start;
      partRank[start] = rank;
      pairRank[right] = -1;
      parts -= 1;
      const after = end < length ? this.pair(start, end) : -1;
      pairRank[start] = after;
      if (after >= 0) size = siftUp(heap, size, (after << positionBits) | start);
      const before = prev[start]!;
      if (before >= 0) {
        const merged = this.pair(before, start);
        pairRank[before] = merged;
        if (merged >= 0) size = siftUp(heap, size, (merged << positionBits) | before);
      }
    }
    return parts;
  }

  /** The rank of the merge of the adjacent parts at `left` and `right`, or -1, through the pair cache. */
  private pair(left: number, right: number): number {
    const cache = this.pairCache;
    const leftRank = this.partRank[left]!;
    const rightRank = this.partRank[right]!;
    const at = (Math.imul(leftRank ^ Math.imul(rightRank, 0x85ebca6b), 0x9e3779b1) >>> (32 - PAIR_CACHE_BITS)) << 2;
    if (cache[at] === leftRank && cache[at + 1] === rightRank) return cache[at + 2]!;
    const rank = this.rank(left, this.next[right]!);
    cache[at] = leftRank;
    cache[at + 1] = rightRank;
    cache[at + 2] = rank;
    return rank;
  }
}

/** Adds `key` to the binary min-heap heap[0, size); returns the new size. */
function siftUp(heap: Int32Array, size: number, key: number): number {
  let at = size;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (heap[parent]! <= key) break;
    heap[at] = heap[parent]!;
    at = parent;
  }
  heap[at] = key;
  return size + 1;
}

/** Puts `key` at `at` of the binary min-heap heap[0, size) and moves it down to its place. */
function siftDown(heap: Int32Array, size: number, at: number, key: number): void {
  for (;;) {
    let child = 2 * at + 1;
    if (child >= size) break;
    let least = heap[child]!;
    if (child + 1 < size && heap[child + 1]! < least) {
      child += 1;
      least = heap[child]!;
    }
    if (least >= key) break;
    heap[at] = least;
    at = child;
  }
  heap[at] = key;
}

/** Whether a cut of `text` at `at` would fall between the two halves of a surrogate pair. */
function splitsPair(text: string, at: number): boolean {
  return isHighSurrogate(text.charCodeAt(at - 1)) && isLowSurrogate(text.charCodeAt(at));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The most UTF-16 units of text[start, end) whose UTF-8 (as `fill` writes it) fits in `bytes` bytes. */
function charsWithin(text: string, start: number, end: number, bytes: number): number {
  let used = 0;
  let i = start;
  while (i < end) {
    const code = text.charCodeAt(i);
    let units = 1;
    let size = code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (isHighSurrogate(code) && i + 1 < end && isLowSurrogate(text.charCodeAt(i + 1))) {
      units = 2;
      size = 4;
    }
    if (used + size > bytes) break;
    used += size;
    i += units;
  }
  return i - start;
}
