import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { FlotillaError, type Logger } from '@flotilla/core';
import { zeroUpstreamSeries, type FlotillaMetrics, type UpstreamOutcome, type UpstreamSystem } from '@flotilla/metrics';
import { DEFAULT_MAX_VALUE_BYTES, JsonBodyError, JsonItemsSplitter, JsonValueTooLarge, type OversizedItems } from './json-items.js';
import { LineSplitter, type OversizedLinePolicy, type SplitLine } from './lines.js';
import { parseRetryAfter, type TokenBucket } from './rate-limit.js';
import { CIRCUIT_DEFAULTS, CIRCUIT_STATES, CircuitBreaker, type CircuitOptions } from './circuit.js';

/** Limits of one upstream HTTP exchange; every one is enforced below. */
export interface UpstreamLimits {
  /** Largest response body read, in bytes; a longer body is abandoned mid-stream, never buffered whole. */
  readonly maxBodyBytes: number;
  /** Wall time of one attempt, headers and body included. */
  readonly timeoutMs: number;
  /** Extra attempts after a retryable failure (5xx, 429, network error, timeout). */
  readonly retries: number;
  /** First backoff; doubles per attempt, with full jitter, capped at 8x. */
  readonly backoffMs: number;
  /** Requests in flight to this upstream at once; more wait their turn (identical ones share one request). */
  readonly maxConcurrent: number;
  /** Items a streamed list may hold. */
  readonly maxItems: number;
  /**
   * Largest single value of a list body, in bytes: one item, or one other top-level member. A larger one is
   * refused as soon as it passes the cap, never held, with an `upstream_too_large` error naming its path.
   */
  readonly maxValueBytes: number;
  /** Extra attempts after a 429 (each waits for the upstream's Retry-After, or the backoff when it sends none). */
  readonly rateLimitRetries: number;
  /** Longest Retry-After honoured by waiting; a longer one fails at once, saying when to try again. */
  readonly retryAfterMaxMs: number;
}

export const UPSTREAM_DEFAULTS: UpstreamLimits = {
  // Lists are parsed item by item (each at most maxValueBytes), so this bounds transfer and time rather than
  // memory (10,000 applications projected are ~33 MiB, their Helm values included: Argo CD projects `spec` whole).
  maxBodyBytes: 128 * 1024 * 1024,
  timeoutMs: 15_000,
  retries: 2,
  backoffMs: 200,
  maxConcurrent: 4,
  maxItems: 200_000,
  // What a list parse holds at once: one item. Argo CD items carry their Helm values (tens of KiB when large).
  maxValueBytes: DEFAULT_MAX_VALUE_BYTES,
  rateLimitRetries: 4,
  retryAfterMaxMs: 10_000,
};

export interface UpstreamRequest<S extends z.ZodType> {
  /** Low-cardinality label for metrics: `list_applications`, `get_application`... */
  readonly operation: string;
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly schema: S;
  readonly signal?: AbortSignal | undefined;
}

/** How a body is consumed: buffered and parsed whole (objects), split item by item (lists), or line by line. */
interface BodyReader<T> {
  push(chunk: Buffer): void;
  finish(): T;
  /** True once the reader wants no more of the body: the response is abandoned there (its connection closed). */
  readonly done?: boolean;
  /** The reader stops by itself at a byte limit no larger than maxBodyBytes (a line read), instead of failing. */
  readonly stopsWithinBodyCap?: boolean;
}

export interface UpstreamHttpOptions {
  readonly system: UpstreamSystem;
  /** Human name for messages ("Argo CD"). */
  readonly displayName: string;
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly limits: UpstreamLimits;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  /** The upstream's shared rate limiter: every attempt takes a token; a 429's Retry-After pauses it. */
  readonly rateLimiter?: TokenBucket | undefined;
  /** The upstream's circuit breaker settings (CIRCUIT_DEFAULTS), or false for none. */
  readonly circuit?: CircuitOptions | false;
  /** Clock of the circuit breaker (tests). */
  readonly now?: () => number;
  /** Injected for tests of retry timing; defaults to a real timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
  /**
   * Every operation label the client uses: their request series are created at zero at start, so the first 429s or
   * errors after a start reach the alerts (`increase()` cannot count a series' first sample). An operation not
   * listed still works, and is logged once as a bug of the client.
   */
  readonly operations?: readonly string[];
}

/**
 * The error an upstream's own error body carries, when it has one: grpc-gateway's `{error, code, message}`,
 * Django REST framework's `{detail}`, or its per-field errors `{"site": ["Select a valid choice..."]}`.
 */
function upstreamMessage(text: string): { message: string | undefined; grpcCode: number | undefined } {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    // grpc-gateway's stream error chunk, also its answer to a stream that failed before its first message.
    const nested = streamErrorOf(body);
    if (nested !== undefined) return { message: nested.message.slice(0, 300), grpcCode: nested.grpcCode };
    let message = typeof body.message === 'string' ? body.message : typeof body.detail === 'string' ? body.detail : body.error;
    if (typeof message !== 'string') {
      const fields = Object.entries(body)
        .filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]))
        .map(([field, problems]) => `${field}: ${problems.filter((p) => typeof p === 'string').join(' ')}`);
      message = fields.length > 0 ? fields.join('; ') : undefined;
    }
    return {
      message: typeof message === 'string' && message.length > 0 ? message.slice(0, 300) : undefined,
      grpcCode: typeof body.code === 'number' ? body.code : undefined,
    };
  } catch {
    return { message: undefined, grpcCode: undefined };
  }
}

/**
 * gRPC codes (grpc-gateway puts them in error bodies) worth a retry: UNAVAILABLE, DEADLINE_EXCEEDED,
 * RESOURCE_EXHAUSTED, ABORTED, INTERNAL. Argo CD answers some caller mistakes (a bad label selector) as HTTP 500
 * with code 2 UNKNOWN: retrying those only repeats the mistake.
 */
const RETRYABLE_GRPC_CODES = new Set([4, 8, 10, 13, 14]);

class Attempt extends Error {
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

/** Items of a list body; `null` items (Argo CD's empty list) give []. */
export interface UpstreamListRequest<S extends z.ZodType> extends Omit<UpstreamRequest<S>, 'schema'> {
  readonly itemSchema: S;
  /** The top-level member holding the items (getList: `items` by default; Argo CD's resource tree: `nodes`). */
  readonly listKey?: string;
  /** An item over `maxValueBytes`: refused (the default), or skipped unread and reported (getItems). */
  readonly oversizedItems?: 'refuse' | 'skip';
}

/** A list read by getItems: its items, and the items skipped for their size. */
export interface UpstreamItems<T> {
  readonly items: T[];
  readonly oversized: OversizedItems;
}

/** Why a line read stopped. */
export type LineReadStop = 'end' | 'max_lines' | 'max_bytes' | 'selected';

/** What `select` says of one parsed line: keep it, skip it (not kept, not counted against maxLines), or stop reading there. */
export type LineVerdict = 'keep' | 'skip' | 'stop';

/**
 * A streamed body of one JSON value per line (grpc-gateway's server streams: `{"result": {...}}\n` per message).
 * Each line is parsed and validated with `lineSchema` as it arrives; the read stops early, abandoning the
 * response, once `maxLines` lines were kept and another keepable one arrived, or `maxBytes` were read.
 */
export interface UpstreamLinesRequest<S extends z.ZodType> extends Omit<UpstreamRequest<S>, 'schema'> {
  readonly lineSchema: S;
  /** Lines kept at most (1 to maxItems); a further keepable line stops the read with `max_lines`. */
  readonly maxLines: number;
  /** Bytes read at most (at most maxBodyBytes, the default); past them the read stops with `max_bytes`, the partial line dropped. */
  readonly maxBytes?: number | undefined;
  /** Lines over `maxValueBytes`: refused (the default: `upstream_too_large` naming `line N`) or skipped and counted. */
  readonly oversizedLines?: OversizedLinePolicy | undefined;
  /** Decides per parsed line (filters, an end marker); without it every line is kept. */
  readonly select?: ((line: z.output<NoInfer<S>>) => LineVerdict) | undefined;
}

/** The outcome of a line read: the kept lines, and how much was read and why it stopped. */
export interface UpstreamLines<T> {
  readonly items: T[];
  /** Lines parsed (kept, skipped by `select`, and the one that stopped the read). */
  readonly linesRead: number;
  readonly bytesRead: number;
  readonly stopped: LineReadStop;
  /** Lines over `maxValueBytes` skipped unread (oversizedLines 'skip'). */
  readonly oversizedSkipped: number;
}

/** One page of a paged list (NetBox's `{count, next, previous, results: [...]}`): its items and its small members. */
export interface UpstreamPageRequest<S extends z.ZodType, M extends z.ZodObject> extends UpstreamListRequest<S> {
  /** The top-level member holding the items (`results`); it must be there (`null` reads as no items). */
  readonly listKey: string;
  /** The top-level scalars read beside the list, by the names of this schema's keys, and validated by it. */
  readonly scalarsSchema: M;
  /**
   * The page size asked for (`limit`): a page with more items breaks the protocol and is refused as soon as it
   * passes it (a server ignoring `limit` cannot make the client read thousands of items for one page).
   */
  readonly pageSize?: number;
}

export interface UpstreamPage<T, M> {
  readonly items: T[];
  readonly scalars: M;
}

/**
 * A JSON-over-HTTP client for one upstream system that can never buffer an unbounded body, wait forever, retry
 * without end or open unbounded concurrent requests. Objects are validated whole; lists are parsed and validated
 * one item at a time as the body streams in. Identical concurrent requests share one upstream request.
 */
export class UpstreamHttp {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly inflight = new Map<string, Promise<unknown>>();

  private readonly breaker: CircuitBreaker | undefined;
  /** Operations whose series exist (declared, or already warned about). */
  private readonly knownOperations: Set<string> | undefined;

  constructor(private readonly options: UpstreamHttpOptions) {
    const { system, metrics } = options;
    if (options.operations !== undefined) {
      zeroUpstreamSeries(metrics, system, options.operations);
      this.knownOperations = new Set(options.operations);
    }
    const publish = (state: (typeof CIRCUIT_STATES)[number]): void => {
      for (const s of CIRCUIT_STATES) metrics.upstreamCircuitState.set({ system, state: s }, s === state ? 1 : 0);
    };
    if (options.circuit !== false) {
      publish('closed');
      this.breaker = new CircuitBreaker(options.displayName, options.circuit ?? CIRCUIT_DEFAULTS, options.now, (state) => {
        publish(state);
        options.logger.warn({ system, circuit: state }, state === 'open' ? 'upstream failing: circuit open, requests fail fast' : `upstream circuit ${state}`);
      });
    }
  }

  /** The circuit breaker's state (closed when there is none). */
  get circuitState(): (typeof CIRCUIT_STATES)[number] {
    return this.breaker?.state ?? 'closed';
  }

  /** GET one JSON document, validated with `schema`. */
  getJson<S extends z.ZodType>(request: UpstreamRequest<S>): Promise<z.output<S>> {
    const cap = this.options.limits.maxValueBytes;
    return this.shared(request, () => {
      const chunks: Buffer[] = [];
      let size = 0;
      // One object is one value: held whole to be parsed, so it is capped like one list item. The splitter (no list
      // to read) names the field when one member alone passes the cap; otherwise the document as a whole is named.
      // A document that is not an object (NetBox's available-ips is an array) is left to JSON.parse and the zod schema.
      let sizer: JsonItemsSplitter | undefined = new JsonItemsSplitter({ listKey: SINGLE_OBJECT_LIST_KEY, maxValueBytes: cap });
      return {
        push: (chunk) => {
          try {
            sizer?.push(chunk);
          } catch (error) {
            if (!(error instanceof JsonBodyError)) throw error;
            sizer = undefined;
          }
          size += chunk.length;
          if (size > cap) throw new JsonValueTooLarge('the whole response', cap);
          chunks.push(chunk);
        },
        finish: () => {
          const json: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          chunks.length = 0;
          const parsed = request.schema.safeParse(json);
          if (!parsed.success) throw new ShapeError(parsed.error);
          return parsed.data;
        },
      };
    });
  }

  /**
   * GET a list document (`{items: [...]}`), parsed item by item; each item validated with `itemSchema`. Other
   * top-level members are skipped unread; no item nor member may pass `maxValueBytes`.
   */
  async getList<S extends z.ZodType>(request: UpstreamListRequest<S>): Promise<z.output<S>[]> {
    return (await this.readList(request, request.listKey ?? 'items', undefined)).items;
  }

  /**
   * getList that also says which items it skipped: with `oversizedItems: 'skip'` an item over `maxValueBytes` is
   * passed over byte by byte, never held, and reported with its path and first bytes instead of failing the list.
   */
  async getItems<S extends z.ZodType>(request: UpstreamListRequest<S>): Promise<UpstreamItems<z.output<S>>> {
    const read = await this.readList(request, request.listKey ?? 'items', undefined);
    return { items: read.items, oversized: read.oversized };
  }

  /**
   * GET a stream of JSON lines, parsed and validated one line at a time, holding at most one partial line of at
   * most `maxValueBytes`. Stops early, closing the connection and releasing its slot, once `maxLines` lines were
   * kept and another keepable one arrived (`max_lines`), once `maxBytes` were read (`max_bytes`), or when `select`
   * says stop. A line `{"error": ...}` (grpc-gateway's stream error chunk) ends the read with that error, mapped
   * as an HTTP error with its code would be. A line that is not JSON or not of `lineSchema` is refused, naming its
   * number; a last line cut off without its newline is a cut-off stream (retried like one). Not shared with
   * identical requests (each caller selects its own lines); the caller's signal aborts the request itself.
   */
  getLines<S extends z.ZodType>(request: UpstreamLinesRequest<S>): Promise<UpstreamLines<z.output<S>>> {
    const { limits } = this.options;
    if (!Number.isInteger(request.maxLines) || request.maxLines < 1 || request.maxLines > limits.maxItems) {
      throw new RangeError(`maxLines must be a whole number from 1 to ${limits.maxItems}`);
    }
    const maxBytes = Math.min(request.maxBytes ?? limits.maxBodyBytes, limits.maxBodyBytes);
    const reader = (): BodyReader<UpstreamLines<z.output<S>>> => {
      const splitter = new LineSplitter({ maxLineBytes: limits.maxValueBytes, oversized: request.oversizedLines ?? 'refuse' });
      const items: z.output<S>[] = [];
      let linesRead = 0;
      let bytesRead = 0;
      let stopped: LineReadStop = 'end';
      let done = false;
      const take = (line: SplitLine, last: boolean): void => {
        let json: unknown;
        try {
          json = JSON.parse(line.text);
        } catch {
          // The last line without its newline, unparseable: the stream was cut off mid-line.
          if (last) throw new StreamCutOff(`the stream ended in the middle of line ${line.number}`);
          throw new ShapeError(undefined, `line ${line.number}`, 'not JSON');
        }
        const streamError = streamErrorOf(json);
        if (streamError !== undefined) throw new StreamErrorLine(streamError, line.number);
        const parsed = request.lineSchema.safeParse(json);
        if (!parsed.success) throw new ShapeError(parsed.error, `line ${line.number}`);
        linesRead += 1;
        const verdict = request.select?.(parsed.data) ?? 'keep';
        if (verdict === 'skip') return;
        if (verdict === 'stop' || items.length >= request.maxLines) {
          stopped = verdict === 'stop' ? 'selected' : 'max_lines';
          done = true;
          return;
        }
        items.push(parsed.data);
      };
      return {
        get done() {
          return done;
        },
        stopsWithinBodyCap: true,
        push: (chunk) => {
          if (done) return;
          const room = maxBytes - bytesRead;
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          bytesRead += part.length;
          for (const line of splitter.push(part)) {
            take(line, false);
            if (done) return;
          }
          if (part.length < chunk.length) {
            stopped = 'max_bytes';
            done = true;
          }
        },
        finish: () => {
          if (!done) {
            const rest = splitter.end();
            if (rest !== undefined) take(rest, true);
          }
          return { items, linesRead, bytesRead, stopped, oversizedSkipped: splitter.skipped };
        },
      };
    };
    return this.withSlot(() => this.withRetries(request, reader));
  }

  /**
   * GET one page of a paged list (`{count, next, results: [...]}`): the items under `listKey` parsed and validated
   * one at a time like getList, the top-level scalars named by `scalarsSchema` captured (each at most
   * JSON_SCALAR_CAP_BYTES) and validated with it.
   */
  getPage<S extends z.ZodType, M extends z.ZodObject>(request: UpstreamPageRequest<S, M>): Promise<UpstreamPage<z.output<S>, z.output<M>>> {
    return this.readList(request, request.listKey, request.scalarsSchema, request.pageSize);
  }

  private readList<S extends z.ZodType, M extends z.ZodObject>(
    request: UpstreamListRequest<S>,
    listKey: string,
    scalarsSchema: M | undefined,
    pageSize?: number,
  ): Promise<UpstreamPage<z.output<S>, z.output<M>> & { readonly oversized: OversizedItems }> {
    const { limits, logger } = this.options;
    const maxItems = Math.min(limits.maxItems, pageSize ?? limits.maxItems);
    // Whether oversized items are skipped changes the answer: only requests that agree on it share one.
    return this.shared(request, () => {
      const splitter = new JsonItemsSplitter({ listKey, capture: scalarsSchema === undefined ? [] : Object.keys(scalarsSchema.shape), maxValueBytes: limits.maxValueBytes, oversizedItems: request.oversizedItems });
      const items: z.output<S>[] = [];
      return {
        push: (chunk) => {
          for (const text of splitter.push(chunk)) {
            if (items.length >= maxItems) throw new TooManyItems(maxItems, pageSize !== undefined && pageSize < limits.maxItems);
            const parsed = request.itemSchema.safeParse(JSON.parse(text));
            if (!parsed.success) throw new ShapeError(parsed.error, `${listKey}[${items.length}]`);
            items.push(parsed.data);
          }
        },
        finish: () => {
          if (!splitter.complete) throw new JsonBodyError('the body ended before the JSON document did');
          let scalars = {} as z.output<M>;
          if (scalarsSchema !== undefined) {
            if (!splitter.sawList) throw new ShapeError(undefined, listKey, `no "${listKey}" list`);
            const parsed = scalarsSchema.safeParse(splitter.scalars);
            if (!parsed.success) throw new ShapeError(parsed.error);
            scalars = parsed.data;
          }
          logger.debug({ operation: request.operation, items: items.length, peakHeldBytes: splitter.peakHeldBytes, oversized: splitter.oversized.count }, 'list read item by item');
          return { items, scalars, oversized: splitter.oversized };
        },
      };
    }, request.oversizedItems === 'skip' ? ' skipping oversized' : '');
  }

  /**
   * One upstream request per distinct (operation, URL) at a time, at most `maxConcurrent` in flight. The shared
   * request is not tied to any caller's signal; a caller that aborts just stops waiting for it.
   */
  private shared<T>(request: Omit<UpstreamRequest<z.ZodType>, 'schema'>, reader: () => BodyReader<T>, variant = ''): Promise<T> {
    const key = `${request.operation}${variant} ${request.path}?${request.query?.toString() ?? ''}`;
    let shared = this.inflight.get(key) as Promise<T> | undefined;
    if (shared === undefined) {
      const created = this.withSlot(() => this.withRetries({ ...request, signal: undefined }, reader));
      this.inflight.set(key, created);
      const forget = (): void => {
        this.inflight.delete(key);
      };
      created.then(forget, forget);
      shared = created;
    }
    const promise: Promise<T> = shared;
    const signal = request.signal;
    if (signal === undefined) return promise;
    if (signal.aborted) return Promise.reject(cancelled(signal));
    return new Promise<T>((resolveCall, rejectCall) => {
      const onAbort = (): void => rejectCall(cancelled(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolveCall(value);
        },
        (error: Error) => {
          signal.removeEventListener('abort', onAbort);
          rejectCall(error);
        },
      );
    });
  }

  private async withSlot<T>(work: () => Promise<T>): Promise<T> {
    while (this.active >= this.options.limits.maxConcurrent) {
      await new Promise<void>((resolveTurn) => this.waiting.push(resolveTurn));
    }
    this.active += 1;
    try {
      return await work();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  private async withRetries<T>(request: Omit<UpstreamRequest<z.ZodType>, 'schema'>, reader: () => BodyReader<T>): Promise<T> {
    const { limits } = this.options;
    const pause = this.options.sleep ?? ((ms: number) => sleep(ms, undefined, { signal: request.signal }));
    const random = this.options.random ?? Math.random;
    let throttled = 0;
    for (let attempt = 0; ; attempt += 1) {
      try {
        this.beforeAttempt(request.operation);
        const result = await this.once(request, reader());
        this.breaker?.record('ok');
        return result;
      } catch (error) {
        if (!(error instanceof Attempt)) throw error;
        // A caller that went away (a turn's deadline, a read stopped early) says nothing about the upstream's health.
        const callerSignal: AbortSignal | undefined = request.signal;
        if (callerSignal !== undefined && aborted(callerSignal)) throw cancelled(callerSignal);
        this.breaker?.record(error.outcome);
        const rateLimited = error.outcome === 'rate_limited';
        if (rateLimited) throttled += 1;
        const used = rateLimited ? throttled - 1 : attempt - throttled;
        const allowed = rateLimited ? limits.rateLimitRetries : limits.retries;
        if (!error.retryable || used >= allowed || request.signal?.aborted === true) throw error.failure;
        const ceiling = limits.backoffMs * 2 ** Math.min(used, 3);
        const jittered = Math.round(ceiling / 2 + random() * (ceiling / 2));
        // A Retry-After already paused the shared limiter, which the next attempt waits on; without one, wait here.
        const wait = error.retryAfterMs === undefined ? jittered : this.options.rateLimiter === undefined ? error.retryAfterMs + jittered : 0;
        this.options.logger.warn({ operation: request.operation, attempt: attempt + 1, waitMs: wait, err: error.message }, 'retrying upstream request');
        try {
          await pause(wait);
        } catch (cause) {
          // A caller's signal (line reads pass theirs) ends the wait: the call is cancelled, not failed.
          const signal: AbortSignal | undefined = request.signal;
          if (signal !== undefined && aborted(signal)) throw cancelled(signal);
          throw cause;
        }
      }
    }
  }

  /** Fails fast while the circuit is open (counted as `circuit_open`). */
  private beforeAttempt(operation: string): void {
    if (this.knownOperations !== undefined && !this.knownOperations.has(operation)) {
      // Bounded: an operation is a label the code spells, never a user's value; each is warned about once.
      this.knownOperations.add(operation);
      this.options.logger.warn({ system: this.options.system, operation }, 'upstream operation not declared in the client\'s operations: its first errors may not alert');
    }
    try {
      this.breaker?.before();
    } catch (error) {
      this.options.metrics.upstreamRequests.inc({ system: this.options.system, operation, outcome: 'circuit_open' });
      throw error;
    }
  }

  private async once<T>(request: Omit<UpstreamRequest<z.ZodType>, 'schema'>, reader: BodyReader<T>): Promise<T> {
    const { system, displayName, metrics, limits } = this.options;
    const labels = { system, operation: request.operation };
    const url = new URL(request.path, this.options.baseUrl);
    if (request.query !== undefined) url.search = request.query.toString();
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = request.signal === undefined ? timeout : AbortSignal.any([timeout, request.signal]);
    let bytes = 0;
    let started = performance.now();
    const finish = (outcome: UpstreamOutcome): void => {
      metrics.upstreamRequests.inc({ ...labels, outcome });
      metrics.upstreamDuration.observe(labels, (performance.now() - started) / 1000);
      metrics.upstreamResponseBytes.observe(labels, bytes);
    };
    const fail = (outcome: UpstreamOutcome, retryable: boolean, failure: FlotillaError, retryAfterMs?: number): Attempt => {
      finish(outcome);
      return new Attempt(outcome, retryable, failure, retryAfterMs);
    };
    const timedOut = (cause: unknown): Attempt =>
      fail('timeout', true, new FlotillaError('upstream_timeout', `${displayName} did not answer within ${limits.timeoutMs} ms`, {
        remedy: `Try again in a moment; if it persists, ${displayName} is overloaded or unreachable.`,
        cause,
      }));
    const garbled = (cause: unknown): Attempt =>
      // Only the list reader's own reasons are quoted: JSON.parse's quote the body.
      fail('bad_response', true, new FlotillaError('upstream_bad_response', cause instanceof JsonBodyError
        ? `${displayName} sent a body that is not ${cause instanceof StreamCutOff ? 'a whole stream' : 'a list document'}: ${cause.message} (${bytes} bytes)`
        : `${displayName} sent a body that is not valid JSON (${bytes} bytes; cut off?)`, {
        remedy: 'Try again; if it keeps happening, check the proxy between Flotilla and the upstream.',
        cause,
      }));

    const limiter = this.options.rateLimiter;
    if (limiter !== undefined) {
      // Waiting for our turn is not the upstream's latency: it is measured on its own.
      const waited = await limiter.acquire(request.signal);
      metrics.upstreamThrottleWait.observe({ system }, waited / 1000);
    }
    started = performance.now();
    let response: Response;
    try {
      response = await fetch(url, { headers: { accept: 'application/json', ...this.options.headers }, signal });
    } catch (error) {
      if (request.signal?.aborted === true) throw fail('network_error', false, new FlotillaError('upstream_unavailable', 'request cancelled', { cause: error }));
      if (timeout.aborted) throw timedOut(error);
      throw fail('network_error', true, new FlotillaError('upstream_unavailable', `${displayName} is unreachable (${url.origin})`, {
        remedy: `Check that ${displayName} is running and its URL is right; then try again.`,
        cause: error,
      }));
    }

    // Refuse a declared oversized body before reading a byte of it.
    const declared = Number(response.headers.get('content-length') ?? 'NaN');
    if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
      await response.body?.cancel();
      throw fail('too_large', false, tooLarge(displayName, declared, limits.maxBodyBytes));
    }

    if (!response.ok) {
      const text = await readSmall(response, 64 * 1024);
      bytes = Buffer.byteLength(text);
      const parsed = upstreamMessage(text);
      if (response.status === 429) throw this.throttled(parseRetryAfter(response.headers.get('retry-after')), fail);
      throw this.statusFailure(response.status, parsed.message ?? `HTTP ${response.status}`, parsed.grpcCode, fail);
    }

    try {
      if (response.body !== null) {
        for await (const chunk of response.body) {
          const buffer = Buffer.from(chunk as Uint8Array);
          bytes += buffer.length;
          if (bytes > limits.maxBodyBytes && reader.stopsWithinBodyCap !== true) {
            await response.body.cancel().catch(() => undefined);
            throw fail('too_large', false, tooLarge(displayName, bytes, limits.maxBodyBytes));
          }
          reader.push(buffer);
          // Leaving the loop cancels the body: the connection is closed, the rest never sent or read.
          if (reader.done === true) break;
        }
      }
      const value = reader.finish();
      finish('ok');
      return value;
    } catch (error) {
      if (error instanceof Attempt) throw error;
      if (error instanceof StreamErrorLine) {
        await response.body?.cancel().catch(() => undefined);
        throw this.statusFailure(error.status, `${error.message} (line ${error.line} of the stream)`, error.grpcCode, fail);
      }
      if (request.signal?.aborted === true) {
        throw fail('network_error', false, new FlotillaError('upstream_unavailable', 'request cancelled', { cause: error }));
      }
      if (error instanceof ShapeError) {
        throw fail('bad_response', false, new FlotillaError('upstream_bad_response', `${displayName} answered ${request.operation} with an unexpected shape: ${error.message}`, {
          remedy: `Check that the ${displayName} version is supported.`,
          cause: error.zod,
        }));
      }
      if (error instanceof JsonValueTooLarge) {
        await response.body?.cancel().catch(() => undefined);
        const setting = error.limit === limits.maxValueBytes;
        const cap = error.limit % 1024 === 0 ? `${error.limit / 1024} KiB` : `${error.limit}-byte`;
        throw fail('too_large', false, new FlotillaError('upstream_too_large', `${displayName} answered ${request.operation} with a value over the ${cap} cap of one value at ${error.path}; the answer was abandoned there and none of it is used`, {
          remedy: setting
            ? 'Narrow the request so that object is left out (a filter, a name); if values this large are legitimate, the operator can raise --upstream-max-value-kib.'
            : `${displayName} sent something unexpected there; check the proxy or the ${displayName} version.`,
          details: { path: error.path, max_bytes: error.limit },
        }));
      }
      if (error instanceof TooManyItems) {
        await response.body?.cancel().catch(() => undefined);
        throw error.pageSize
          ? fail('bad_response', false, new FlotillaError('upstream_bad_response', `${displayName} sent more than the ${error.max} items asked for in one page of ${request.operation}: it does not honour the page size, so the page was abandoned there`, {
              remedy: `Check the ${displayName} version and any proxy in front of it (the limit parameter must reach it).`,
              details: { page_size: error.max },
            }))
          : fail('too_large', false, new FlotillaError('payload_too_large', `${displayName} returned more than ${error.max} items for ${request.operation}`, {
              remedy: 'Narrow the request with filters (project, label selector, name).',
              details: { max_items: error.max },
            }));
      }
      if (timeout.aborted) throw timedOut(error);
      if (error instanceof SyntaxError) throw garbled(error);
      throw fail('bad_response', true, new FlotillaError('upstream_bad_response', `${displayName} closed the connection mid-response after ${bytes} bytes`, {
        remedy: 'Try again; if it keeps happening, narrow the request so the response is smaller.',
        cause: error,
      }));
    }
  }

  /** A 429: pause the shared limiter for Retry-After and retry, unless the upstream asks for a longer wait than we allow. */
  private throttled(retryAfterMs: number | undefined, fail: (outcome: UpstreamOutcome, retryable: boolean, failure: FlotillaError, retryAfterMs?: number) => Attempt): Attempt {
    const { displayName, limits } = this.options;
    const seconds = retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(retryAfterMs / 1000));
    const failure = new FlotillaError('rate_limited', `${displayName} is rate limiting us${seconds === undefined ? '' : ` (retry after ${seconds} s)`}`, {
      remedy: `Wait ${seconds === undefined ? 'a little' : `${seconds} s`} and try again, or ask for less (a filter, a smaller scope).`,
      details: seconds === undefined ? { status: 429 } : { status: 429, retry_after_seconds: seconds },
    });
    if (retryAfterMs !== undefined && retryAfterMs > limits.retryAfterMaxMs) return fail('rate_limited', false, failure, retryAfterMs);
    if (retryAfterMs !== undefined) this.options.rateLimiter?.pauseFor(retryAfterMs);
    return fail('rate_limited', true, failure, retryAfterMs);
  }

  private statusFailure(
    status: number,
    detail: string,
    grpcCode: number | undefined,
    fail: (outcome: UpstreamOutcome, retryable: boolean, failure: FlotillaError) => Attempt,
  ): Attempt {
    const { displayName } = this.options;
    if (status === 401 || status === 403) {
      return fail('auth_error', false, new FlotillaError('upstream_auth', `${displayName} refused our credentials (${status}: ${detail})`, {
        remedy: `Check the ${displayName} token configured for Flotilla and its permissions.`,
        details: { status },
      }));
    }
    if (status === 404) {
      return fail('not_found', false, new FlotillaError('not_found', `${displayName}: ${detail}`, {
        remedy: 'Check the name: the list and search tools show exact names.',
        details: { status },
      }));
    }
    if (status >= 500 && (grpcCode === 2 || grpcCode === 3)) {
      return fail('client_error', false, new FlotillaError('upstream_rejected', `${displayName} rejected the request (${detail})`, {
        remedy: 'Correct the argument the message names (a label selector, a name) and call again.',
        details: { status, grpc_code: grpcCode },
      }));
    }
    if (status >= 500) {
      const retryable = status !== 501 && (grpcCode === undefined || RETRYABLE_GRPC_CODES.has(grpcCode));
      return fail('server_error', retryable, new FlotillaError('upstream_unavailable', `${displayName} failed (${status}: ${detail})`, {
        remedy: `Try again shortly; if it persists, ${displayName} needs attention.`,
        details: { status },
      }));
    }
    return fail('client_error', false, new FlotillaError('upstream_rejected', `${displayName} rejected the request (${status}: ${detail})`, {
      remedy: 'Correct the argument the message names and call again.',
      details: { status },
    }));
  }
}

/** Read through a call: TypeScript keeps a property narrowed across an await that may change it. */
const aborted = (signal: AbortSignal): boolean => signal.aborted;

function cancelled(signal: AbortSignal): FlotillaError {
  return new FlotillaError('upstream_unavailable', 'the request was cancelled', { remedy: 'Ask again if you still need the answer.', cause: signal.reason });
}

/** A body of the wrong shape; the message says what and where (`results[12].name`). */
/** A list key no object has: reading one object, the splitter only measures its members. */
const SINGLE_OBJECT_LIST_KEY = '\u0000';

class ShapeError extends Error {
  constructor(
    readonly zod: z.ZodError | undefined,
    at = '',
    problem?: string,
  ) {
    const issue = zod?.issues[0];
    const where = [at, ...(issue?.path.map(String) ?? [])].filter((part) => part !== '').join('.');
    super(`${problem ?? issue?.message ?? 'invalid'} at ${where}`);
  }
}

/** A line stream that ended in the middle of a line (cut off on the way: worth another try). */
class StreamCutOff extends JsonBodyError {}

/** grpc-gateway's error chunk in a stream (`{"error": {grpc_code, http_code, message}}`), or a unary error body. */
interface StreamError {
  readonly message: string;
  readonly grpcCode: number | undefined;
  readonly httpStatus: number | undefined;
}

/** HTTP statuses grpc-gateway gives gRPC codes, for a stream error that carries only its gRPC code. */
const GRPC_HTTP_STATUS: Readonly<Record<number, number>> = { 1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 10: 409, 11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401 };

/** The error a value carries as grpc-gateway writes one in a stream: `{"error": {...}}` with no `result`. */
function streamErrorOf(value: unknown): StreamError | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const body = value as Record<string, unknown>;
  const error = body.error;
  if ('result' in body || error === null || typeof error !== 'object' || Array.isArray(error)) return undefined;
  const inner = error as Record<string, unknown>;
  const grpcCode = typeof inner.grpc_code === 'number' ? inner.grpc_code : typeof inner.code === 'number' ? inner.code : undefined;
  const httpStatus = typeof inner.http_code === 'number' ? inner.http_code : undefined;
  const message = typeof inner.message === 'string' && inner.message !== '' ? inner.message : `gRPC code ${grpcCode ?? 'unknown'}`;
  return { message, grpcCode, httpStatus };
}

/** A stream that reported an error in one of its lines. */
class StreamErrorLine extends Error {
  readonly status: number;
  readonly grpcCode: number | undefined;
  constructor(
    error: StreamError,
    readonly line: number,
  ) {
    super(error.message.slice(0, 300));
    this.grpcCode = error.grpcCode;
    this.status = error.httpStatus ?? (error.grpcCode === undefined ? 500 : (GRPC_HTTP_STATUS[error.grpcCode] ?? 500));
  }
}

class TooManyItems extends Error {
  constructor(
    readonly max: number,
    /** The cap was the page size asked for, not the item cap. */
    readonly pageSize: boolean,
  ) {
    super(`more than ${max} items`);
  }
}

/** An error body, read up to `max` bytes (error bodies are small; a huge one is cut, not buffered). */
async function readSmall(response: Response, max: number): Promise<string> {
  if (response.body === null) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      const buffer = Buffer.from(chunk as Uint8Array);
      chunks.push(buffer);
      size += buffer.length;
      if (size >= max) {
        await response.body.cancel().catch(() => undefined);
        break;
      }
    }
  } catch {
    // A broken error body still leaves the status to report.
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, max);
}

function tooLarge(displayName: string, bytes: number, cap: number): FlotillaError {
  return new FlotillaError('payload_too_large', `${displayName} response exceeds the ${cap}-byte cap (at least ${bytes} bytes)`, {
    remedy: 'Narrow the request with filters (project, label selector, name) so the upstream sends less.',
    details: { max_bytes: cap },
  });
}
