// The progress message of one answer: the agent's status notes edited into it, throttled, until the answer
// replaces it.
import type { Logger } from '@flotilla/core';

/** Progress edits of one answer's message: at most one per this many milliseconds (the last note wins). */
export const PROGRESS_INTERVAL_MS = 1000;

/**
 * Edits one message with progress notes, at most once per `intervalMs`; the last note wins. stop() drops what
 * is pending and waits for an edit under way, so the answer that follows is never overwritten.
 */
export class ProgressEditor {
  private pending: string | undefined;
  private shown: string;
  private timer: NodeJS.Timeout | undefined;
  private lastSent = 0;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    initial: string,
    private readonly send: (text: string) => Promise<void>,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.shown = initial;
    this.lastSent = Date.now();
  }

  push(text: string): void {
    if (this.stopped || text === this.shown) return;
    this.pending = text;
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastSent + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  private flush(): void {
    const text = this.pending;
    this.pending = undefined;
    if (text === undefined || this.stopped) return;
    this.lastSent = Date.now();
    this.shown = text;
    this.chain = this.chain.then(() => this.send(text)).catch((error: unknown) => this.logger.warn({ err: error }, 'progress update failed'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
  }
}
