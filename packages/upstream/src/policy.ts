import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@flotilla/core';
import { zeroUpstreamSeries, type FlotillaMetrics, type UpstreamSystem } from '@flotilla/metrics';
import { CIRCUIT_DEFAULTS, CIRCUIT_STATES, CircuitBreaker, type CircuitOptions } from './circuit.js';
import { Attempt, cancelledError } from './classify.js';
import { DEFAULT_MAX_VALUE_BYTES } from './json-items.js';
import type { TokenBucket } from './rate-limit.js';
import type { UpstreamTarget } from './requests.js';

/** Limits of one upstream HTTP exchange; every one is enforced by `UpstreamHttp`. */
export interface UpstreamLimits {
  /** Largest response body read, in bytes; a longer body is abandoned mid-stream, never buffered whole. */
  readonly maxBodyBytes: number;
  /** Wall time of one attempt, headers and body included (a wait for the rate limiter is not part of it). */
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
  // memory (10,000 large list items are tens of MiB when an upstream sends whole specs).
  maxBodyBytes: 128 * 1024 * 1024,
  timeoutMs: 15_000,
  retries: 2,
  backoffMs: 200,
  maxConcurrent: 4,
  maxItems: 200_000,
  // What a list parse holds at once: one item (tens of KiB when large).
  maxValueBytes: DEFAULT_MAX_VALUE_BYTES,
  rateLimitRetries: 4,
  retryAfterMaxMs: 10_000,
};

/** Retry backoff ceilings double per attempt up to 2^BACKOFF_MAX_DOUBLINGS (8x) the first. */
const BACKOFF_MAX_DOUBLINGS = 3;

export interface PolicyOptions {
  readonly system: UpstreamSystem;
  /** Human name for messages ("Inventory API"). */
  readonly displayName: string;
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

/** One attempt at a request: a value, or a thrown classified `Attempt` (anything else is a bug, passed on). */
export type AttemptFn<T> = (request: UpstreamTarget) => Promise<T>;

/**
 * How requests to one upstream are run, whatever they read: at most `maxConcurrent` in flight, identical ones
 * sharing one request (single-flight), each attempt taking a token of the shared rate limiter and passing the
 * circuit breaker, retryable failures retried a bounded number of times with jittered, doubling backoff (429s
 * by their own budget, waiting for Retry-After).
 */
export class RequestPolicy {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly breaker: CircuitBreaker | undefined;
  /** Operations whose series exist (declared, or already warned about). */
  private readonly knownOperations: Set<string> | undefined;

  constructor(private readonly options: PolicyOptions) {
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

  /** A request of its own caller: a slot, then attempts until one succeeds or no retry is left. */
  run<T>(request: UpstreamTarget, attempt: AttemptFn<T>): Promise<T> {
    return this.withSlot(() => this.withRetries(request, attempt));
  }

  /**
   * One upstream request per distinct (operation, `variant`, URL) at a time. The shared request is not tied to any
   * caller's signal; a caller that aborts just stops waiting for it.
   */
  shared<T>(request: UpstreamTarget, attempt: AttemptFn<T>, variant = ''): Promise<T> {
    const key = `${request.operation}${variant} ${request.path}?${request.query?.toString() ?? ''}`;
    let shared = this.inflight.get(key) as Promise<T> | undefined;
    if (shared === undefined) {
      const created = this.run({ ...request, signal: undefined }, attempt);
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
    if (signal.aborted) return Promise.reject(cancelledError(signal));
    return new Promise<T>((resolveCall, rejectCall) => {
      const onAbort = (): void => rejectCall(cancelledError(signal));
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

  private async withRetries<T>(request: UpstreamTarget, attempt: AttemptFn<T>): Promise<T> {
    const { limits, rateLimiter } = this.options;
    const pause = this.options.sleep ?? ((ms: number) => sleep(ms, undefined, { signal: request.signal }));
    const random = this.options.random ?? Math.random;
    let throttled = 0;
    for (let tried = 0; ; tried += 1) {
      try {
        this.beforeAttempt(request.operation);
        if (rateLimiter !== undefined) {
          // Waiting for our turn is not the upstream's latency: it is measured on its own.
          const waited = await rateLimiter.acquire(request.signal);
          this.options.metrics.upstreamThrottleWait.observe({ system: this.options.system }, waited / 1000);
        }
        const result = await attempt(request);
        this.breaker?.record('ok');
        return result;
      } catch (error) {
        if (!(error instanceof Attempt)) throw error;
        // A Retry-After we are willing to wait for pauses every request to this upstream, not just this one.
        if (error.outcome === 'rate_limited' && error.retryable && error.retryAfterMs !== undefined) rateLimiter?.pauseFor(error.retryAfterMs);
        // A caller that went away (a turn's deadline, a read stopped early) says nothing about the upstream's health.
        const callerSignal: AbortSignal | undefined = request.signal;
        if (callerSignal !== undefined && aborted(callerSignal)) throw cancelledError(callerSignal);
        this.breaker?.record(error.outcome);
        const rateLimited = error.outcome === 'rate_limited';
        if (rateLimited) throttled += 1;
        const used = rateLimited ? throttled - 1 : tried - throttled;
        const allowed = rateLimited ? limits.rateLimitRetries : limits.retries;
        if (!error.retryable || used >= allowed) throw error.failure;
        const ceiling = limits.backoffMs * 2 ** Math.min(used, BACKOFF_MAX_DOUBLINGS);
        const jittered = Math.round(ceiling / 2 + random() * (ceiling / 2));
        // A Retry-After already paused the shared limiter, which the next attempt waits on; without one, wait here.
        const wait = error.retryAfterMs === undefined ? jittered : rateLimiter === undefined ? error.retryAfterMs + jittered : 0;
        this.options.logger.warn({ operation: request.operation, attempt: tried + 1, waitMs: wait, err: error.message }, 'retrying upstream request');
        try {
          await pause(wait);
        } catch (cause) {
          // A caller's signal (line reads pass theirs) ends the wait: the call is cancelled, not failed.
          const signal: AbortSignal | undefined = request.signal;
          if (signal !== undefined && aborted(signal)) throw cancelledError(signal);
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
}

/** Read through a call: TypeScript keeps a property narrowed across an await that may change it. */
const aborted = (signal: AbortSignal): boolean => signal.aborted;
