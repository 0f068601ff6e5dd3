export {
  UpstreamHttp,
  UPSTREAM_DEFAULTS,
  type UpstreamLimits,
  type UpstreamHttpOptions,
  type UpstreamRequest,
  type UpstreamListRequest,
  type UpstreamPageRequest,
  type UpstreamPage,
  type UpstreamLinesRequest,
  type UpstreamLines,
  type LineReadStop,
  type LineVerdict,
  type UpstreamItems,
} from './http.js';
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
