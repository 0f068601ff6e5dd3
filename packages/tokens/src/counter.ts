import type { TiktokenBPE } from 'js-tiktoken/lite';
import { BytePairEncoder, buildRankTable } from './bpe.js';

/** Encodings we ship (js-tiktoken carries the ranks; nothing is downloaded). */
export const TOKEN_ENCODINGS = ['cl100k_base', 'o200k_base'] as const;
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];
export const DEFAULT_TOKEN_ENCODING: TokenEncoding = 'cl100k_base';

/**
 * Counts tokens the way the model's tokenizer does, in time linear in the text. Special-token text is counted as
 * ordinary text. Exact for every pre-tokenized piece up to PIECE_CHUNK_CHARS (all of real prose, code and JSON);
 * a longer piece (a base64 blob, a run of one character) is counted in chunks, never below its true count.
 */
export interface TokenCounter {
  readonly encoding: TokenEncoding;
  count(text: string): number;
  /** The longest prefix of `text` that is at most `maxTokens` tokens. */
  truncate(text: string, maxTokens: number): string;
}

const loaded = new Map<TokenEncoding, Promise<TokenCounter>>();

async function loadRanks(encoding: TokenEncoding): Promise<TiktokenBPE> {
  switch (encoding) {
    case 'cl100k_base':
      return (await import('js-tiktoken/ranks/cl100k_base')).default;
    case 'o200k_base':
      return (await import('js-tiktoken/ranks/o200k_base')).default;
  }
}

/** A counter over `encoder`, which counts and cuts; truncation checks its cut with a count. Exported for tests. */
export function counterOf(encoding: TokenEncoding, encoder: BytePairEncoder): TokenCounter {
  return {
    encoding,
    count: (text) => encoder.count(text),
    truncate(text, maxTokens) {
      // NaN, zero and negative budgets keep nothing; a fractional one rounds down.
      if (!(maxTokens >= 1)) return '';
      const max = Math.floor(maxTokens);
      let budget = max;
      for (let attempt = 0; budget > 0; attempt += 1) {
        const length = encoder.prefixLength(text, budget);
        if (length === text.length) return text;
        const cut = text.slice(0, length);
        const tokens = encoder.count(cut);
        if (tokens <= max) return cut;
        // Rarely a prefix is more tokens than it held inside the text (its last piece ends elsewhere, or merges
        // differently once cut): cut earlier, by twice as much each time, so this ends within a few tries.
        budget -= (tokens - max) * 2 ** attempt;
      }
      return '';
    },
  };
}

/**
 * The token counter for an encoding. Loading takes ~50 ms and adds ~13 MiB of RSS (cl100k; o200k ~80 ms and
 * ~20 MiB: the rank data, its packed table, the module's source), so each is loaded once per process and shared.
 */
export function loadTokenCounter(encoding: TokenEncoding = DEFAULT_TOKEN_ENCODING): Promise<TokenCounter> {
  let counter = loaded.get(encoding);
  if (counter === undefined) {
    counter = loadRanks(encoding).then((ranks) => counterOf(encoding, new BytePairEncoder(buildRankTable(ranks.bpe_ranks), ranks.pat_str)));
    loaded.set(encoding, counter);
  }
  return counter;
}

/**
 * js-tiktoken's own encoder behind the same interface: the reference that tests and benchmarks compare with.
 * Never for serving: its merge is quadratic in a piece (16k characters of one letter take ~18 s) and it holds
 * ~80 MiB more than `loadTokenCounter`. Not cached: each call builds a new one.
 */
export async function loadReferenceTokenCounter(encoding: TokenEncoding = DEFAULT_TOKEN_ENCODING): Promise<TokenCounter> {
  const { Tiktoken } = await import('js-tiktoken/lite');
  const tiktoken = new Tiktoken(await loadRanks(encoding));
  // allowedSpecial [] and disallowedSpecial []: "<|endoftext|>" in user data is text, never a throw.
  const encode = (text: string): number[] => tiktoken.encode(text, [], []);
  return {
    encoding,
    count: (text) => encode(text).length,
    truncate(text, maxTokens) {
      if (!(maxTokens >= 1)) return '';
      const tokens = encode(text);
      if (tokens.length <= maxTokens) return text;
      // A cut inside a multi-byte character decodes to U+FFFD; drop it rather than emit garbage.
      return tiktoken.decode(tokens.slice(0, Math.floor(maxTokens))).replace(/\uFFFD+$/, '');
    },
  };
}
