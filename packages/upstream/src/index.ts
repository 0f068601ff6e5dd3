export { UpstreamHttp, type UpstreamHttpOptions } from './http.js';
export { UPSTREAM_DEFAULTS, type UpstreamLimits } from './policy.js';
export type {
  UpstreamRequest,
  UpstreamListRequest,
  UpstreamPageRequest,
  UpstreamPage,
  UpstreamLinesRequest,
  UpstreamLines,
  LineReadStop,
  LineVerdict,
  UpstreamItems,
} from './requests.js';
export {
  ERROR_BODY_MAX_BYTES,
  ERROR_MESSAGE_MAX_CHARS,
  errorExcerpt,
  type UpstreamErrorReading,
  type ErrorBodyParser,
  type UpstreamStreamError,
  type StreamErrorParser,
} from './classify.js';
export {
  JsonItemsSplitter,
  JsonValueTooLarge,
  JsonBodyError,
  DEFAULT_MAX_VALUE_BYTES,
  JSON_KEY_CAP_BYTES,
  JSON_SCALAR_CAP_BYTES,
  JSON_MAX_DEPTH,
  OVERSIZED_HEAD_BYTES,
  OVERSIZED_SAMPLES,
  type OversizedItems,
  type JsonItemsOptions,
} from './json-items.js';
export { TokenBucket, RATE_LIMIT_DEFAULTS, parseRetryAfter, type RateLimitSettings, type RateLimiterOptions } from './rate-limit.js';
export { CircuitBreaker, CIRCUIT_DEFAULTS, CIRCUIT_STATES, type CircuitOptions, type CircuitState } from './circuit.js';
export { LineSplitter, type LineSplitterOptions, type OversizedLinePolicy, type SplitLine } from './lines.js';
