export {
  UpstreamHttp,
  UPSTREAM_DEFAULTS,
  type UpstreamLimits,
  type UpstreamHttpOptions,
  type UpstreamRequest,
  type UpstreamListRequest,
} from './http.js';
export { JsonItemsSplitter } from './json-items.js';
export { TokenBucket, RATE_LIMIT_DEFAULTS, parseRetryAfter, type RateLimitSettings, type RateLimiterOptions } from './rate-limit.js';
export { CircuitBreaker, CIRCUIT_DEFAULTS, CIRCUIT_STATES, type CircuitOptions, type CircuitState } from './circuit.js';
