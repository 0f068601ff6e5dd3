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

function wrap(encoding: TokenEncoding, tiktoken: Tiktoken): TokenCounter {
  // allowedSpecial [] and disallowedSpecial []: "<|endoftext|>" in user data is text, never a throw.
  const encode = (text: string): number[] => tiktoken.encode(text, [], []);
  return {
    encoding,
    count: (text) => (text.length === 0 ? 0 : encode(text).length),
    truncate(text, maxTokens) {
      if (maxTokens <= 0) return '';
      const tokens = encode(text);
      if (tokens.length <= maxTokens) return text;
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
    counter = loadRanks(encoding).then((ranks) => wrap(encoding, new Tiktoken(ranks)));
    loaded.set(encoding, counter);
  }
  return counter;
}
