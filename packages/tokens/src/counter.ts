import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
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

const require = createRequire(import.meta.url);
/** js-tiktoken's rank modules. Their CommonJS builds are one JSON object: `module.exports = {...};`. */
const RANK_MODULES: Readonly<Record<TokenEncoding, string>> = { cl100k_base: 'js-tiktoken/ranks/cl100k_base', o200k_base: 'js-tiktoken/ranks/o200k_base' };
const RANK_MODULE_PREFIX = 'module.exports = ';

/**
 * js-tiktoken's rank data for an encoding, read as JSON and not kept: once the caller has packed the ranks (typed
 * arrays), the rank text (1.1 MiB for cl100k, 2.3 MiB for o200k) can be collected. Importing the module would hold
 * it, and the module's source as much again, for the life of the process.
 */
async function loadRanks(encoding: TokenEncoding): Promise<TiktokenBPE> {
  const path = require.resolve(RANK_MODULES[encoding]);
  const text = (await readFile(path, 'utf8')).trim();
  if (!text.startsWith(RANK_MODULE_PREFIX) || !text.endsWith(';')) {
    // Only another js-tiktoken than the lockfile's can get here (this package depends on nothing that has FlotillaError).
    throw new Error(`${RANK_MODULES[encoding]} is not the one JSON object js-tiktoken 1.0 ships: install the version in the lockfile`);
  }
  return JSON.parse(text.slice(RANK_MODULE_PREFIX.length, -1)) as TiktokenBPE;
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
 * The token counter for an encoding. Loading takes ~35 ms and adds ~9 MiB of RSS (cl100k; o200k ~70 ms and
 * ~11 MiB): the packed table stays (2.4 / 4.5 MiB of typed arrays), the rank text it was read from does not. Each is
 * loaded once per process and shared, and only when asked for (an MCP server set to o200k never loads cl100k).
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
