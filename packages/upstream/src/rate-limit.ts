import { setTimeout as sleep } from 'node:timers/promises';
import { FlotillaError } from '@flotilla/core';

/** A token bucket's settings; every one is enforced below. */
export interface RateLimitSettings {
  /** Tokens added per second (the sustained request rate). */
  readonly ratePerSecond: number;
  /** Bucket capacity: requests that may go at once after a quiet spell. */
  readonly burst: number;
  /** Longest a request waits for its turn; past it the request fails with `rate_limited` instead of queueing. */
  readonly maxWaitMs: number;
  /** Requests waiting at once; more fail at once (bounded queue). */
  readonly maxWaiting: number;
}

export const RATE_LIMIT_DEFAULTS: RateLimitSettings = {
  ratePerSecond: 20,
  burst: 40,
  maxWaitMs: 30_000,
  maxWaiting: 1_000,
};

export interface RateLimiterOptions extends RateLimitSettings {
  /** Human name of the upstream, for messages. */
  readonly displayName: string;
  /** Injected for tests; `performance.now()`-like milliseconds. */
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * One upstream's shared rate limiter: a token bucket every request of the process takes a token from, and a
 * pause that a 429's `Retry-After` imposes on all of them at once (so one throttled request does not leave the
 * others hammering). A request reserves its token when it asks (the bucket may go negative: that is the queue),
 * so waiters are served in order and the rate never exceeds `ratePerSecond` after the first `burst`.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private pausedUntil = 0;
  private waiting = 0;
  private readonly now: () => number;
  private readonly pause: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: RateLimiterOptions) {
    if (!(options.ratePerSecond > 0) || !(options.burst >= 1)) {
      throw new FlotillaError('config_invalid', 'a rate limit needs a rate above 0 and a burst of at least 1');
    }
    this.now = options.now ?? (() => performance.now());
    this.pause = options.sleep ?? ((ms, signal) => sleep(ms, undefined, { signal }));
    this.tokens = options.burst;
    this.last = this.now();
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.options.burst, this.tokens + ((now - this.last) / 1000) * this.options.ratePerSecond);
    this.last = now;
  }

  /** Tokens available now (negative: requests already queued). Cheap: for limitation detection. */
  available(): number {
    this.refill();
    return this.now() < this.pausedUntil ? Math.min(0, this.tokens) : this.tokens;
  }

  get settings(): RateLimitSettings {
    return this.options;
  }

  /** Milliseconds until `calls` more requests could all have been sent, at the current fill. */
  estimateWaitMs(calls: number): number {
    const deficit = calls - Math.max(0, this.available());
    const paused = Math.max(0, this.pausedUntil - this.now());
    return paused + (deficit <= 0 ? 0 : (deficit / this.options.ratePerSecond) * 1000);
  }

  /** The upstream said "Retry-After": no request goes before then. */
  pauseFor(ms: number): void {
    this.refill();
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
    this.tokens = Math.min(this.tokens, 0);
  }

  /** Waits for a token; returns the milliseconds waited. Fails rather than wait past `maxWaitMs`. */
  async acquire(signal?: AbortSignal): Promise<number> {
    this.refill();
    const started = this.now();
    const tokenWait = this.tokens >= 1 ? 0 : ((1 - this.tokens) / this.options.ratePerSecond) * 1000;
    const wait = Math.max(tokenWait, this.pausedUntil - started);
    if (wait > this.options.maxWaitMs) throw this.tooLong(wait);
    if (wait > 0 && this.waiting >= this.options.maxWaiting) {
      throw new FlotillaError('rate_limited', `${this.options.displayName}: ${this.waiting} requests are already waiting for the rate limit`, {
        remedy: 'Ask for less at once (filters), or try again in a moment.',
      });
    }
    this.tokens -= 1;
    if (wait <= 0) return 0;
    this.waiting += 1;
    try {
      await this.pause(wait, signal);
      // A Retry-After may have arrived while we waited: honour it too, within the same bound.
      for (let guard = 0; guard < 8 && this.now() < this.pausedUntil; guard += 1) {
        const more = this.pausedUntil - this.now();
        if (this.now() - started + more > this.options.maxWaitMs) throw this.tooLong(this.now() - started + more);
        await this.pause(more, signal);
      }
    } catch (error) {
      this.tokens += 1;
      throw error;
    } finally {
      this.waiting -= 1;
    }
    return this.now() - started;
  }

  private tooLong(waitMs: number): FlotillaError {
    const seconds = Math.ceil(waitMs / 1000);
    return new FlotillaError('rate_limited', `${this.options.displayName} is rate limited: the next request could go in about ${seconds} s`, {
      remedy: `Try again in ${seconds} s, or ask for less (a filter, a smaller scope).`,
      details: { retry_after_seconds: seconds },
    });
  }
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
