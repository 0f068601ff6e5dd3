import { z } from 'zod';

/**
 * A simulator's sense of time: the NetBox rate limiter reads `now`, injected latency waits with `delay`. Real time
 * by default; a test injects its own clock to step time instead of sleeping (and to stay exact on a loaded machine).
 */
export interface SimulatorClock {
  /** Milliseconds from any origin; never goes back. */
  now(): number;
  /** Calls `callback` once `ms` milliseconds have passed. */
  delay(ms: number, callback: () => void): void;
}

/** Real time: `performance.now()` and `setTimeout`. */
export const REAL_CLOCK: SimulatorClock = {
  now: () => performance.now(),
  delay: (ms, callback) => {
    setTimeout(callback, ms);
  },
};

/** The `clock` option of both simulators: an object with `now()` and `delay(ms, callback)`, or real time. */
export const ClockSchema = z
  .custom<SimulatorClock>(
    (value) => typeof value === 'object' && value !== null && typeof (value as SimulatorClock).now === 'function' && typeof (value as SimulatorClock).delay === 'function',
    'must have now() and delay(ms, callback)',
  )
  .default(REAL_CLOCK);
