export {
  loadTokenCounter,
  TOKEN_ENCODINGS,
  DEFAULT_TOKEN_ENCODING,
  type TokenCounter,
  type TokenEncoding,
} from './counter.js';
export { cachingCounter } from './cache.js';
