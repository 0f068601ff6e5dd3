import { FlotillaError } from '@flotilla/core';
import type { UpstreamOutcome } from '@flotilla/metrics';
import { JsonBodyError, JsonValueTooLarge } from './json-items.js';
import { ShapeError, StreamCutOff, StreamErrorLine, TooManyItems } from './readers.js';

/** Bytes of an error response read for its message: error bodies are small; a huge one is cut, never buffered. */
export const ERROR_BODY_MAX_BYTES = 64 * 1024;
/** Characters of an upstream's own words kept in an error message (its parsed message, or an excerpt of the body). */
export const ERROR_MESSAGE_MAX_CHARS = 300;

/**
 * What an upstream's error body says, as its client reads it (`UpstreamHttpOptions.errorBody`). The shared client
 * knows no upstream's error format: without a reading it quotes a short, sanitized excerpt of the body.
 */
export interface UpstreamErrorReading {
  /** The upstream's own words; cut to ERROR_MESSAGE_MAX_CHARS. */
  readonly message?: string | undefined;
  /**
   * What a 5xx answer means, when the body says more than its status: the caller's mistake (`rejected`: reported as
   * `upstream_rejected`, not retried), a failure another try cannot fix (`permanent`), or one it may (`transient`,
   * the default).
   */
  readonly failure?: 'rejected' | 'permanent' | 'transient' | undefined;
  /** Added to the error's details (small scalars: an upstream's own error code). */
  readonly details?: Readonly<Record<string, string | number>> | undefined;
}

/** Reads an error response's body, parsed as JSON; undefined when it is not in the upstream's error format. */
export type ErrorBodyParser = (body: unknown) => UpstreamErrorReading | undefined;

/** An error a streamed line carries instead of a message, with the HTTP status it stands for. */
export interface UpstreamStreamError extends UpstreamErrorReading {
  readonly status: number;
}

/** Reads one parsed line of a line stream: the error it reports, or undefined for an ordinary line. */
export type StreamErrorParser = (line: unknown) => UpstreamStreamError | undefined;

/** One failed attempt, classified: its metric outcome, whether another attempt may succeed, and the error to report. */
export class Attempt extends Error {
  constructor(
    readonly outcome: UpstreamOutcome,
    readonly retryable: boolean,
    readonly failure: FlotillaError,
    /** What a 429 asked us to wait. */
    readonly retryAfterMs?: number,
  ) {
    super(failure.message);
  }
}

/**
 * A short, sanitized excerpt of an error body: markup, control characters and runs of white space removed, cut
 * to ERROR_MESSAGE_MAX_CHARS. Empty when nothing readable is left.
 */
export function errorExcerpt(text: string): string {
  const plain = text
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > ERROR_MESSAGE_MAX_CHARS ? `${plain.slice(0, ERROR_MESSAGE_MAX_CHARS - 1)}…` : plain;
}

/** What an error body says: the client's reading of it when it has one, otherwise an excerpt of the text. */
export function readErrorBody(text: string, parse: ErrorBodyParser | undefined): UpstreamErrorReading {
  let reading: UpstreamErrorReading | undefined;
  if (parse !== undefined) {
    try {
      reading = parse(JSON.parse(text));
    } catch {
      // Not JSON (a proxy's page): the excerpt below says what it was.
    }
  }
  const message = reading?.message?.trim().slice(0, ERROR_MESSAGE_MAX_CHARS);
  if (message !== undefined && message !== '') return { ...reading, message };
  const excerpt = errorExcerpt(text);
  return { ...reading, message: excerpt === '' ? undefined : excerpt };
}

/** Limits the messages quote. */
interface ClassifyLimits {
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly maxValueBytes: number;
  readonly retryAfterMaxMs: number;
}

/**
 * Turns what went wrong with one exchange (an HTTP status and what its body says, a network error, a body that
 * could not be read) into an `Attempt`: a FlotillaError code with a remedy, a metric outcome, and whether to retry.
 */
export class Classifier {
  constructor(
    private readonly displayName: string,
    private readonly limits: ClassifyLimits,
  ) {}

  /** A status other than 2xx and 429, with what its body said. */
  status(status: number, reading: UpstreamErrorReading): Attempt {
    const { displayName } = this;
    const detail = reading.message ?? `HTTP ${status}`;
    const details = { status, ...reading.details };
    if (status === 401 || status === 403) {
      return new Attempt('auth_error', false, new FlotillaError('upstream_auth', `${displayName} refused our credentials (${status}: ${detail})`, {
        remedy: `Check the ${displayName} token configured for Flotilla and its permissions.`,
        details,
      }));
    }
    if (status === 404) {
      return new Attempt('not_found', false, new FlotillaError('not_found', `${displayName}: ${detail}`, {
        remedy: 'Check the name: the list and search tools show exact names.',
        details,
      }));
    }
    if (status >= 500 && reading.failure === 'rejected') {
      return new Attempt('client_error', false, new FlotillaError('upstream_rejected', `${displayName} rejected the request (${detail})`, {
        remedy: 'Correct the argument the message names (a label selector, a name) and call again.',
        details,
      }));
    }
    if (status >= 500) {
      const retryable = status !== 501 && reading.failure !== 'permanent';
      return new Attempt('server_error', retryable, new FlotillaError('upstream_unavailable', `${displayName} failed (${status}: ${detail})`, {
        remedy: `Try again shortly; if it persists, ${displayName} needs attention.`,
        details,
      }));
    }
    return new Attempt('client_error', false, new FlotillaError('upstream_rejected', `${displayName} rejected the request (${status}: ${detail})`, {
      remedy: 'Correct the argument the message names and call again.',
      details,
    }));
  }

  /** A 429: retryable, unless the upstream asks for a longer wait than `retryAfterMaxMs`. */
  throttled(retryAfterMs: number | undefined): Attempt {
    const { displayName } = this;
    const seconds = retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(retryAfterMs / 1000));
    const failure = new FlotillaError('rate_limited', `${displayName} is rate limiting us${seconds === undefined ? '' : ` (retry after ${seconds} s)`}`, {
      remedy: `Wait ${seconds === undefined ? 'a little' : `${seconds} s`} and try again, or ask for less (a filter, a smaller scope).`,
      details: seconds === undefined ? { status: 429 } : { status: 429, retry_after_seconds: seconds },
    });
    const retryable = retryAfterMs === undefined || retryAfterMs <= this.limits.retryAfterMaxMs;
    return new Attempt('rate_limited', retryable, failure, retryAfterMs);
  }

  /** The request never got an answer: cancelled by its caller, timed out, or the upstream unreachable. */
  network(cause: unknown, how: { cancelled: boolean; timedOut: boolean; origin: string }): Attempt {
    const { displayName } = this;
    if (how.cancelled) return this.cancelled(cause);
    if (how.timedOut) return this.timedOut(cause);
    return new Attempt('network_error', true, new FlotillaError('upstream_unavailable', `${displayName} is unreachable (${how.origin})`, {
      remedy: `Check that ${displayName} is running and its URL is right; then try again.`,
      cause,
    }));
  }

  /** A body larger than `maxBodyBytes`, declared or counted. */
  bodyTooLarge(bytes: number): Attempt {
    const cap = this.limits.maxBodyBytes;
    return new Attempt('too_large', false, new FlotillaError('payload_too_large', `${this.displayName} response exceeds the ${cap}-byte cap (at least ${bytes} bytes)`, {
      remedy: 'Narrow the request with filters (project, label selector, name) so the upstream sends less.',
      details: { max_bytes: cap },
    }));
  }

  /** What went wrong while a 2xx body was read (`bytes` of it by then). */
  reading(error: unknown, context: { operation: string; bytes: number; cancelled: boolean; timedOut: boolean }): Attempt {
    const { displayName, limits } = this;
    const { operation, bytes } = context;
    if (error instanceof Attempt) return error;
    if (error instanceof StreamErrorLine) {
      return this.status(error.error.status, { ...error.error, message: `${error.error.message?.slice(0, ERROR_MESSAGE_MAX_CHARS) ?? `HTTP ${error.error.status}`} (line ${error.line} of the stream)` });
    }
    if (context.cancelled) return this.cancelled(error);
    if (error instanceof ShapeError) {
      return new Attempt('bad_response', false, new FlotillaError('upstream_bad_response', `${displayName} answered ${operation} with an unexpected shape: ${error.message}`, {
        remedy: `Check that the ${displayName} version is supported.`,
        cause: error.zod,
      }));
    }
    if (error instanceof JsonValueTooLarge) {
      const setting = error.limit === limits.maxValueBytes;
      const cap = error.limit % 1024 === 0 ? `${error.limit / 1024} KiB` : `${error.limit}-byte`;
      return new Attempt('too_large', false, new FlotillaError('upstream_too_large', `${displayName} answered ${operation} with a value over the ${cap} cap of one value at ${error.path}; the answer was abandoned there and none of it is used`, {
        remedy: setting
          ? 'Narrow the request so that object is left out (a filter, a name); if values this large are legitimate, the operator can raise --upstream-max-value-kib.'
          : `${displayName} sent something unexpected there; check the proxy or the ${displayName} version.`,
        details: { path: error.path, max_bytes: error.limit },
      }));
    }
    if (error instanceof TooManyItems) {
      return error.pageSize
        ? new Attempt('bad_response', false, new FlotillaError('upstream_bad_response', `${displayName} sent more than the ${error.max} items asked for in one page of ${operation}: it does not honour the page size, so the page was abandoned there`, {
            remedy: `Check the ${displayName} version and any proxy in front of it (the limit parameter must reach it).`,
            details: { page_size: error.max },
          }))
        : new Attempt('too_large', false, new FlotillaError('payload_too_large', `${displayName} returned more than ${error.max} items for ${operation}`, {
            remedy: 'Narrow the request with filters (project, label selector, name).',
            details: { max_items: error.max },
          }));
    }
    if (context.timedOut) return this.timedOut(error);
    if (error instanceof SyntaxError) {
      // Only the readers' own reasons are quoted: JSON.parse's quote the body.
      return new Attempt('bad_response', true, new FlotillaError('upstream_bad_response', error instanceof JsonBodyError
        ? `${displayName} sent a body that is not ${error instanceof StreamCutOff ? 'a whole stream' : 'a list document'}: ${error.message} (${bytes} bytes)`
        : `${displayName} sent a body that is not valid JSON (${bytes} bytes; cut off?)`, {
        remedy: 'Try again; if it keeps happening, check the proxy between Flotilla and the upstream.',
        cause: error,
      }));
    }
    return new Attempt('bad_response', true, new FlotillaError('upstream_bad_response', `${displayName} closed the connection mid-response after ${bytes} bytes`, {
      remedy: 'Try again; if it keeps happening, narrow the request so the response is smaller.',
      cause: error,
    }));
  }

  private timedOut(cause: unknown): Attempt {
    const { displayName } = this;
    return new Attempt('timeout', true, new FlotillaError('upstream_timeout', `${displayName} did not answer within ${this.limits.timeoutMs} ms`, {
      remedy: `Try again in a moment; if it persists, ${displayName} is overloaded or unreachable.`,
      cause,
    }));
  }

  private cancelled(cause: unknown): Attempt {
    return new Attempt('network_error', false, new FlotillaError('upstream_unavailable', 'request cancelled', { cause }));
  }
}

/** The error of a call whose caller went away (its signal aborted) while it waited. */
export function cancelledError(signal: AbortSignal): FlotillaError {
  return new FlotillaError('upstream_unavailable', 'the request was cancelled', { remedy: 'Ask again if you still need the answer.', cause: signal.reason });
}
