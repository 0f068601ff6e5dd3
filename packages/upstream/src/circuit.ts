import { FlotillaError } from '@flotilla/core';
import type { UpstreamOutcome } from '@flotilla/metrics';

export const CIRCUIT_STATES = ['closed', 'open', 'half_open'] as const;
export type CircuitState = (typeof CIRCUIT_STATES)[number];

export interface CircuitOptions {
  /** Consecutive failed attempts (5xx, timeouts, unreachable, garbage) that open the circuit. */
  readonly failureThreshold: number;
  /** How long the first opening lasts; each failed probe doubles it, up to maxOpenMs. */
  readonly openMs: number;
  readonly maxOpenMs: number;
}

export const CIRCUIT_DEFAULTS: CircuitOptions = { failureThreshold: 5, openMs: 10_000, maxOpenMs: 120_000 };

/** Outcomes that say the upstream itself is failing (an answer of any other kind says it is alive). */
const FAILING: ReadonlySet<UpstreamOutcome> = new Set<UpstreamOutcome>(['server_error', 'timeout', 'network_error', 'bad_response']);

/**
 * One circuit breaker per upstream: after `failureThreshold` failed attempts in a row it opens and requests fail at
 * once, saying when to try again, instead of hammering a dead system; after `openMs` one probe goes through
 * (half open): success closes it, failure opens it again for twice as long.
 */
export class CircuitBreaker {
  private current: CircuitState = 'closed';
  private failures = 0;
  private openFor: number;
  private openUntil = 0;
  private probing = false;

  constructor(
    private readonly displayName: string,
    private readonly options: CircuitOptions = CIRCUIT_DEFAULTS,
    private readonly now: () => number = Date.now,
    private readonly onChange?: (state: CircuitState) => void,
  ) {
    this.openFor = options.openMs;
  }

  get state(): CircuitState {
    return this.current;
  }

  /** Before an attempt: throws (fast) while open; lets one probe through once the opening has passed. */
  before(): void {
    if (this.current === 'closed') return;
    const waitMs = this.openUntil - this.now();
    if (this.current === 'open' && waitMs <= 0) {
      this.move('half_open');
      this.probing = false;
    }
    if (this.current === 'half_open' && !this.probing) {
      this.probing = true;
      return;
    }
    const seconds = Math.max(1, Math.ceil(Math.max(waitMs, 1_000) / 1000));
    throw new FlotillaError('upstream_unavailable', `${this.displayName} failed ${this.options.failureThreshold} times in a row; Flotilla stops calling it for ${seconds} s so it can recover`, {
      remedy: `Try again in ${seconds} s; if it keeps failing, ${this.displayName} needs attention.`,
      details: { circuit: this.current, retry_after_seconds: seconds },
    });
  }

  /** After an attempt, with how it ended. */
  record(outcome: UpstreamOutcome): void {
    const failed = FAILING.has(outcome);
    if (this.current === 'half_open') {
      this.probing = false;
      if (failed) {
        this.openFor = Math.min(this.options.maxOpenMs, this.openFor * 2);
        this.open();
      } else {
        this.close();
      }
      return;
    }
    if (!failed) {
      if (this.current === 'closed') this.failures = 0;
      return;
    }
    this.failures += 1;
    if (this.current === 'closed' && this.failures >= this.options.failureThreshold) this.open();
  }

  private open(): void {
    this.openUntil = this.now() + this.openFor;
    this.move('open');
  }

  private close(): void {
    this.failures = 0;
    this.openFor = this.options.openMs;
    this.move('closed');
  }

  private move(state: CircuitState): void {
    if (state === this.current) return;
    this.current = state;
    this.onChange?.(state);
  }
}
