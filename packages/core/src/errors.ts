/**
 * The closed catalogue of Flotilla errors. Every failure that crosses a package boundary is one of these codes;
 * each wire (MCP tool result, A2A, Slack text, metric label) maps codes in one table of its own.
 */
export const ERROR_CODES = [
  'invalid_argument',
  'not_found',
  'result_expired',
  'payload_too_large',
  'upstream_auth',
  'upstream_unavailable',
  'upstream_timeout',
  'upstream_bad_response',
  'upstream_rejected',
  'upstream_too_large',
  'rate_limited',
  'config_invalid',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Who has to act: the user (fix the request), the system (us), or a third party (the upstream). */
export type ErrorCategory = 'user' | 'system' | 'third_party';

export const ERROR_CATEGORY: Readonly<Record<ErrorCode, ErrorCategory>> = {
  invalid_argument: 'user',
  not_found: 'user',
  result_expired: 'user',
  payload_too_large: 'user',
  upstream_auth: 'third_party',
  upstream_unavailable: 'third_party',
  upstream_timeout: 'third_party',
  upstream_bad_response: 'third_party',
  upstream_rejected: 'third_party',
  upstream_too_large: 'third_party',
  rate_limited: 'third_party',
  config_invalid: 'system',
  internal: 'system',
};

export interface FlotillaErrorOptions {
  /** What the caller (a person or a model) can do next. Always a sentence. */
  readonly remedy?: string;
  readonly cause?: unknown;
  /** Small, serialisable facts that help (valid range, upstream status...). Never secrets. */
  readonly details?: Readonly<Record<string, string | number | boolean>>;
}

export class FlotillaError extends Error {
  readonly code: ErrorCode;
  readonly remedy: string | undefined;
  readonly details: Readonly<Record<string, string | number | boolean>>;

  constructor(code: ErrorCode, message: string, options: FlotillaErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FlotillaError';
    this.code = code;
    this.remedy = options.remedy;
    this.details = options.details ?? {};
  }

  get category(): ErrorCategory {
    return ERROR_CATEGORY[this.code];
  }
}

export function isFlotillaError(value: unknown): value is FlotillaError {
  return value instanceof FlotillaError;
}

/** The message of anything thrown, without a stack trace. */
export function describeError(value: unknown): string {
  if (value instanceof Error) return value.message;
  return typeof value === 'string' ? value : 'unknown error';
}
