export {
  loadTokenCounter,
  loadReferenceTokenCounter,
  TOKEN_ENCODINGS,
  DEFAULT_TOKEN_ENCODING,
  type TokenCounter,
  type TokenEncoding,
} from './counter.js';
export { PIECE_CHUNK_CHARS, CHUNK_BOUNDARY_MARGIN, REGEX_WINDOW_CHARS } from './bpe.js';
export { cachingCounter, CACHING_COUNTER_MAX_ENTRIES } from './cache.js';
