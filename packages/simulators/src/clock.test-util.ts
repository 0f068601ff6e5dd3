import type { SimulatorClock } from './clock.js';

/** A clock that moves only when the test says so: time-dependent behaviour is exact, however loaded the machine. */
export interface ManualClock extends SimulatorClock {
  /** Moves time on by `ms`, running every delay that falls due, earliest first. */
  advance(ms: number): void;
  /** The milliseconds left of each delay still waiting, earliest first. */
  waiting(): number[];
  /** Resolves with the length of every delay asked for so far, once there are at least `count` (a request got that far). */
  delays(count: number): Promise<number[]>;
}

export function manualClock(start = 1_000_000): ManualClock {
  let now = start;
  const timers: { at: number; callback: () => void }[] = [];
  const asked: number[] = [];
  const watchers: { count: number; resolve: (asked: number[]) => void }[] = [];
  return {
    now: () => now,
    delay(ms, callback) {
      timers.push({ at: now + ms, callback });
      timers.sort((a, b) => a.at - b.at);
      asked.push(ms);
      for (const w of watchers.filter((x) => asked.length >= x.count)) {
        watchers.splice(watchers.indexOf(w), 1);
        w.resolve([...asked]);
      }
    },
    advance(ms) {
      now += ms;
      while (timers[0] !== undefined && timers[0].at <= now) timers.shift()?.callback();
    },
    waiting: () => timers.map((t) => t.at - now),
    delays: (count) => (asked.length >= count ? Promise.resolve([...asked]) : new Promise((resolve) => watchers.push({ count, resolve }))),
  };
}
