import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';

/** Encodings we ship (js-tiktoken carries the ranks; nothing is downloaded). */
export const TOKEN_ENCODINGS = ['cl100k_base', 'o200k_base'] as const;
export type TokenEncoding = (typeof TOKEN_ENCODINGS)[number];
export const DEFAULT_TOKEN_ENCODING: TokenEncoding = 'cl100k_base';

/** Counts tokens the way the model's tokenizer does. Special-token text is counted as ordinary text. */
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

/** The maps js-tiktoken's `Tiktoken` encodes and decodes with (public fields of the class, marked internal). */
interface TiktokenMaps {
  rankMap: Map<string, number>;
  textMap: Map<number, Uint8Array>;
}

/**
 * A `Tiktoken` for `ranks`, built frugally. The stock constructor first expands every rank into one large
 * temporary object and keeps a byte array per token for decoding: a transient of tens of MiB that sets the
 * process's peak RSS. Here the rank map is filled line by line with the same keys, and the decode map is
 * built only when something is first truncated. Encoding is js-tiktoken's own, unchanged; a test checks that
 * counts equal the stock encoder's.
 */
export function buildTiktoken(ranks: TiktokenBPE): { tiktoken: Tiktoken; ensureDecoder: () => void } {
  const tiktoken = new Tiktoken({ pat_str: ranks.pat_str, special_tokens: ranks.special_tokens, bpe_ranks: '' });
  const maps = tiktoken as unknown as TiktokenMaps;
  let start = 0;
  const text = ranks.bpe_ranks;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end > start) {
      // A line is "! <offset> <token> <token> ...": consecutive ranks from offset, tokens in base64.
      const fields = text.slice(start, end).split(' ');
      const offset = Number.parseInt(fields[1] ?? '', 10);
      for (let i = 2; i < fields.length; i += 1) maps.rankMap.set(Buffer.from(fields[i] ?? '', 'base64').join(','), offset + i - 2);
    }
    start = end + 1;
  }
  let decoder = false;
  return {
    tiktoken,
    ensureDecoder: () => {
      if (decoder) return;
      for (const [key, rank] of maps.rankMap) maps.textMap.set(rank, Uint8Array.from(key.split(','), Number));
      decoder = true;
    },
  };
}

function wrap(encoding: TokenEncoding, tiktoken: Tiktoken, ensureDecoder: () => void): TokenCounter {
  // allowedSpecial [] and disallowedSpecial []: "<|endoftext|>" in user data is text, never a throw.
  const encode = (text: string): number[] => tiktoken.encode(text, [], []);
  return {
    encoding,
    count: (text) => (text.length === 0 ? 0 : encode(text).length),
    truncate(text, maxTokens) {
      if (maxTokens <= 0) return '';
      const tokens = encode(text);
      if (tokens.length <= maxTokens) return text;
      ensureDecoder();
      let cut = tiktoken.decode(tokens.slice(0, maxTokens));
      // A cut inside a multi-byte character decodes to U+FFFD; drop it rather than emit garbage.
      while (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
      return cut;
    },
  };
}

/**
 * The token counter for an encoding. Loading the ranks costs ~0.25 s (cl100k) to ~0.6 s (o200k), so each is
 * loaded once per process and shared.
 */
export function loadTokenCounter(encoding: TokenEncoding = DEFAULT_TOKEN_ENCODING): Promise<TokenCounter> {
  let counter = loaded.get(encoding);
  if (counter === undefined) {
    counter = loadRanks(encoding).then((ranks) => {
      const built = buildTiktoken(ranks);
      return wrap(encoding, built.tiktoken, built.ensureDecoder);
    });
    loaded.set(encoding, counter);
  }
  return counter;
}
