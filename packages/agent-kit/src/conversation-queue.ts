import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '@flotilla/core';
import { luaScript, memberOf, REDIS_DEFAULTS, type RedisClient } from '@flotilla/state';

/**
 * Bounds of the per-conversation turn queue. A conversation's turns run one at a time (a turn loads the
 * conversation's memory, runs and saves it; two at once lose an update); a few may wait their turn, more are
 * refused at once ("busy") rather than piling up behind a slow one.
 */
export const CONVERSATION_QUEUE_LIMITS = {
  /** Turns of one conversation waiting behind its running turn; the next one is refused. */
  maxWaitingPerConversation: 3,
  /** Turns waiting across every conversation of the process; past it new waiters are refused the same way. */
  maxWaitingTotal: 500,
} as const;

export interface ConversationQueueOptions {
  readonly maxWaitingPerConversation?: number;
  readonly maxWaitingTotal?: number;
  /** Told the number of turns waiting whenever it changes (the conversation-queue gauge). */
  readonly onDepth?: ((waiting: number) => void) | undefined;
}

/** A conversation's turn slot, held while its turn runs; `release` passes it to the next waiting turn (idempotent). */
export interface ConversationSlot {
  release(): void;
}

/** A turn let into its conversation's queue: `ready` resolves with the slot when the turns ahead of it are done. */
export interface ConversationTicket {
  readonly ready: Promise<ConversationSlot>;
  /** True when the turn has to wait (another turn of the conversation runs). */
  readonly queued: boolean;
}

/**
 * Turns of one conversation in order, one at a time, within this process. The map holds an entry only for a
 * conversation with a turn running (so it is bounded by the turns in flight), with the turns waiting behind it.
 */
export class ConversationQueue {
  private readonly conversations = new Map<string, (() => void)[]>();
  private waitingTotal = 0;
  private readonly maxPerConversation: number;
  private readonly maxTotal: number;

  constructor(private readonly options: ConversationQueueOptions = {}) {
    this.maxPerConversation = options.maxWaitingPerConversation ?? CONVERSATION_QUEUE_LIMITS.maxWaitingPerConversation;
    this.maxTotal = options.maxWaitingTotal ?? CONVERSATION_QUEUE_LIMITS.maxWaitingTotal;
  }

  /** Conversations with a turn running. */
  get running(): number {
    return this.conversations.size;
  }

  /** Turns waiting for an earlier turn of their conversation. */
  get waiting(): number {
    return this.waitingTotal;
  }

  /**
   * Lets a turn of `contextId` in: its slot at once when none runs, after the turns ahead of it otherwise; undefined
   * when the conversation (or the process) already has as many turns waiting as allowed (refuse the turn). When
   * `signal` aborts before the slot comes, the turn leaves the queue and `ready` rejects with the signal's reason.
   */
  enter(contextId: string, signal?: AbortSignal): ConversationTicket | undefined {
    const waiters = this.conversations.get(contextId);
    if (waiters === undefined) {
      this.conversations.set(contextId, []);
      return { ready: Promise.resolve(this.slot(contextId)), queued: false };
    }
    if (waiters.length >= this.maxPerConversation || this.waitingTotal >= this.maxTotal) return undefined;
    const ready = new Promise<ConversationSlot>((resolve, reject) => {
      const onAbort = (): void => {
        const at = waiters.indexOf(grant);
        if (at >= 0) {
          waiters.splice(at, 1);
          this.changed(-1);
        }
        reject(signal?.reason instanceof Error ? signal.reason : new Error('the turn stopped waiting for its conversation'));
      };
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.slot(contextId));
      };
      waiters.push(grant);
      this.changed(1);
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
    return { ready, queued: true };
  }

  private slot(contextId: string): ConversationSlot {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const waiters = this.conversations.get(contextId);
        const next = waiters?.shift();
        if (next === undefined) {
          this.conversations.delete(contextId);
          return;
        }
        this.changed(-1);
        next();
      },
    };
  }

  private changed(by: number): void {
    this.waitingTotal += by;
    this.options.onDepth?.(this.waitingTotal);
  }
}

/** A conversation lock taken: `release` gives it up (bounded in time, never throws). */
export interface HeldConversationLock {
  readonly kind: 'held';
  release(): Promise<void>;
}

/**
 * How taking a conversation's lock ended: held; `busy` when another holder kept it until the wait ended (the
 * signal aborted); `unavailable` when the lock's store failed, so the turn runs without it.
 */
export type ConversationLockAttempt = HeldConversationLock | { readonly kind: 'busy' } | { readonly kind: 'unavailable' };

/** Orders the turns of one conversation across replicas (the local queue orders them within a process). */
export interface ConversationLock {
  /**
   * Takes the lock of `contextId`, waiting while another holder has it until `signal` aborts; `onWait` is told once,
   * when the first attempt finds the lock held.
   */
  acquire(contextId: string, options: { readonly signal: AbortSignal; readonly onWait?: (() => void) | undefined }): Promise<ConversationLockAttempt>;
}

export const REDIS_CONVERSATION_LOCK_DEFAULTS = {
  /**
   * A holder's lease, renewed every third of it while its turn runs: a crashed replica's lock is free this long after
   * its last renewal at most.
   */
  leaseMs: 15_000,
  /** A turn waiting for another replica's lock polls after this, doubling (with jitter) up to `pollMaxMs`. */
  pollMinMs: 50,
  pollMaxMs: 1_000,
  /** One Redis command; past it the lock is skipped for this turn (a turn never hangs on Redis). */
  commandTimeoutMs: REDIS_DEFAULTS.commandTimeoutMs,
} as const;

export interface RedisConversationLockOptions {
  /** A connected client (`redisFromUrl`); the lock never closes it. */
  readonly client: RedisClient;
  /** Every lock key starts with it, e.g. `flotilla:argocd:turn-lock:`. */
  readonly keyPrefix: string;
  readonly logger: Logger;
  readonly leaseMs?: number;
  readonly pollMinMs?: number;
  readonly pollMaxMs?: number;
  readonly commandTimeoutMs?: number;
}

// KEYS: lock. ARGV: token, lease ms. Extends the lease only for the holder that set it.
const EXTEND = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;
// KEYS: lock. ARGV: token. Deletes the lock only for the holder that set it (never one a later holder took).
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
const extendScript = luaScript(EXTEND);
const releaseScript = luaScript(RELEASE);

/**
 * A conversation lock in Redis shared by replicas: SET NX PX with a random token, the lease renewed while the turn
 * runs (compare-and-extend) and released by compare-and-delete, so a lock is only ever extended or freed by its
 * holder, and a crashed holder's lock expires with its lease. A waiting turn polls with a bounded, jittered backoff.
 * When Redis fails, turns run without the lock (this process's queue still orders them) and a warning is logged
 * once until Redis answers again; every command is bounded by `commandTimeoutMs`.
 */
export function redisConversationLock(options: RedisConversationLockOptions): ConversationLock {
  const { client, logger } = options;
  const leaseMs = options.leaseMs ?? REDIS_CONVERSATION_LOCK_DEFAULTS.leaseMs;
  const pollMinMs = options.pollMinMs ?? REDIS_CONVERSATION_LOCK_DEFAULTS.pollMinMs;
  const pollMaxMs = options.pollMaxMs ?? REDIS_CONVERSATION_LOCK_DEFAULTS.pollMaxMs;
  const commandTimeoutMs = options.commandTimeoutMs ?? REDIS_CONVERSATION_LOCK_DEFAULTS.commandTimeoutMs;
  let degraded = false;
  const failed = (error: unknown): void => {
    if (degraded) return;
    degraded = true;
    logger.warn({ err: error }, 'Redis is unreachable: turns run without the conversation lock shared by replicas (this replica still runs one turn per conversation at a time) until it is back');
  };
  const recovered = (): void => {
    if (!degraded) return;
    degraded = false;
    logger.info('Redis is back: the conversation lock shared by replicas applies again');
  };
  // The client's own command timeout may be unset (a client made elsewhere): the lock bounds every command itself.
  const bounded = async <T>(run: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${commandTimeoutMs} ms`)), commandTimeoutMs);
    });
    try {
      return await Promise.race([run, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  function held(key: string, token: string): HeldConversationLock {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let lost = false;
    const renew = (): void => {
      timer = setTimeout(() => {
        bounded(extendScript(client, [key], [token, leaseMs]))
          .then((extended) => {
            recovered();
            if (extended === 0 && !lost && !stopped) {
              lost = true;
              logger.warn({ key }, 'a conversation lock expired while its turn ran (Redis was away longer than the lease): another replica may run the next turn at once');
            }
          }, failed)
          .finally(() => {
            if (!stopped && !lost) renew();
          });
      }, Math.max(1, Math.floor(leaseMs / 3)));
      timer.unref();
    };
    renew();
    return {
      kind: 'held',
      async release() {
        stopped = true;
        clearTimeout(timer);
        await bounded(releaseScript(client, [key], [token])).then(recovered, failed);
      },
    };
  }

  return {
    async acquire(contextId, { signal, onWait }) {
      const key = `${options.keyPrefix}${memberOf(contextId)}`;
      const token = randomUUID();
      let pause = pollMinMs;
      let told = false;
      for (;;) {
        if (signal.aborted) return { kind: 'busy' };
        let taken: boolean;
        try {
          taken = (await bounded(client.set(key, token, 'PX', leaseMs, 'NX'))) === 'OK';
          recovered();
        } catch (error) {
          failed(error);
          return { kind: 'unavailable' };
        }
        if (taken) {
          const lock = held(key, token);
          if (!signal.aborted) return lock;
          await lock.release();
          return { kind: 'busy' };
        }
        if (!told) {
          told = true;
          onWait?.();
        }
        try {
          await delay(pause / 2 + Math.random() * (pause / 2), undefined, { signal });
        } catch {
          return { kind: 'busy' };
        }
        pause = Math.min(pollMaxMs, pause * 2);
      }
    },
  };
}
