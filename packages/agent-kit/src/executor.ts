import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Role, TaskState, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { describeError, FlotillaError, type Logger } from '@flotilla/core';
import type { A2ARejectReason, TurnOutcome } from '@flotilla/metrics';
import { ConversationQueue, type ConversationLock, type ConversationLockAttempt, type ConversationQueueOptions, type ConversationSlot } from './conversation-queue.js';
import { QUESTION_MAX_CHARS } from './rules.js';

/** Progress of a turn, relayed to the caller as a status update (throttled and capped by the server). */
export type ProgressNote = (note: string) => void;

/** Progress notes are cut to this many characters, and at most one is relayed per PROGRESS_MIN_INTERVAL_MS. */
export const PROGRESS_NOTE_MAX_CHARS = 300;
export const PROGRESS_MIN_INTERVAL_MS = 250;
/**
 * A turn still unanswered this long after it started says "Working on it…" (a WORKING status). One answered sooner (a
 * cached answer) goes from submitted straight to completed: a status update, and its task-store round trip, fewer.
 */
export const WORKING_NOTE_AFTER_MS = 100;

/**
 * One question of one conversation (contextId), answered by an agent's workflow. `signal` aborts when the turn
 * passes its deadline or the server shuts down (its reason is a {@link TurnAborted}): pass it on to the work.
 */
export type AnswerTurn = (
  question: string,
  contextId: string,
  progress: ProgressNote,
  signal?: AbortSignal,
) => Promise<{
  readonly answer: string;
  readonly options: readonly string[];
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
  /** Structured data beside the text (limitation options for buttons): an A2A data part of the answer. */
  readonly data?: Readonly<Record<string, unknown>> | undefined;
}>;

/** Bounds of a turn's life: its deadline, how long an aborted turn may take to stop, and the drain on close. */
export const TURN_LIMITS = {
  /**
   * A turn is answered within this long of its arrival (`--turn-timeout-ms`): aborted and answered "stopped" when it
   * runs past it, answered "busy" when it was still waiting for its conversation's earlier turns (here, or on
   * another replica).
   */
  timeoutMs: 60_000,
  /**
   * An aborted turn (deadline, shutdown) has this long to stop before its conversation is released to the next turn
   * anyway (it is answered at once; the wait keeps it from saving its memory over the next turn's).
   */
  abortGraceMs: 1_000,
  /**
   * On close, turns in flight get this long to finish before they are aborted. With the abort grace and the
   * connections' close (another grace) it stays below the CLI's 10 s force-exit, with room to close tools and Redis.
   */
  drainMs: 6_000,
} as const;
export type TurnLimits = { readonly [K in keyof typeof TURN_LIMITS]: number };

/** The answers of turns that did not run to the end. */
export const BUSY_ANSWER = "I'm still busy with your last question in this conversation; ask again when it has answered.";
export const SHUTTING_DOWN_ANSWER = 'The agent is shutting down; ask again in a moment.';
const WAITING_NOTE = 'Waiting for your previous question in this conversation to finish…';
const WAITING_REPLICA_NOTE = 'Waiting for your previous question in this conversation to finish (on another replica)…';

const seconds = (ms: number): string => (ms % 1000 === 0 ? String(ms / 1000) : (ms / 1000).toFixed(1));
/** The answer of a turn stopped at its deadline. */
export const timedOutAnswer = (timeoutMs: number): string => `I stopped after ${seconds(timeoutMs)} s without finishing; ask a narrower question or try again.`;

/**
 * The reason of a turn's abort signal: its deadline passed (`timed_out`) or the server is shutting down. An abort
 * reason, not a failure: the executor answers the turn itself.
 */
export class TurnAborted extends Error {
  constructor(readonly why: 'timed_out' | 'shutting_down') {
    super(why === 'timed_out' ? 'the turn passed its deadline' : 'the agent is shutting down');
    this.name = 'TurnAborted';
  }
}

/**
 * How a turn the executor aborted counts in `agentTurns`: `timed_out` at its deadline, `failed` at shutdown;
 * undefined when the signal has not aborted (count the turn's own outcome). An answer function that counts turns
 * uses it whether the aborted work returned or threw, so a timed-out turn is counted exactly once.
 */
export function abortedOutcome(signal: AbortSignal | undefined): TurnOutcome | undefined {
  if (signal?.aborted !== true) return undefined;
  const reason: unknown = signal.reason;
  return reason instanceof TurnAborted && reason.why === 'timed_out' ? 'timed_out' : 'failed';
}

export interface WorkflowExecutorOptions extends Partial<TurnLimits> {
  /** The per-conversation queue's bounds and depth gauge. */
  readonly queue?: ConversationQueueOptions | undefined;
  /** Orders turns of a conversation across replicas (Redis); without it only within this process. */
  readonly lock?: ConversationLock | undefined;
  /** Told of turns refused because their conversation is busy (metrics). */
  readonly onReject?: ((reason: A2ARejectReason) => void) | undefined;
}

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const data = (value: Readonly<Record<string, unknown>>): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });

type Settled = { readonly reply: Awaited<ReturnType<AnswerTurn>> } | { readonly error: unknown };

/**
 * The kit's AgentExecutor: a turn's progress as status updates, the answer as an artifact, the options and the
 * workflow's path in metadata. Bad input (empty, too long) is answered, never thrown; a failed turn ends the
 * task FAILED with a readable message. Turns of one conversation run one at a time, in order (a bounded queue, and
 * a lock across replicas when given; a full queue is answered "busy"); each runs within its deadline, and close()
 * drains turns in flight for a bounded time, then aborts the rest.
 */
export class WorkflowExecutor implements AgentExecutor {
  private readonly cancelled = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The abort controllers of turns accepted and not yet ended (waiting or running). */
  private readonly turns = new Set<AbortController>();
  private readonly limits: TurnLimits;
  private readonly queue: ConversationQueue;
  private closing = false;

  constructor(
    private readonly answer: AnswerTurn,
    private readonly logger: Logger,
    private readonly options: WorkflowExecutorOptions = {},
  ) {
    this.limits = {
      timeoutMs: options.timeoutMs ?? TURN_LIMITS.timeoutMs,
      abortGraceMs: options.abortGraceMs ?? TURN_LIMITS.abortGraceMs,
      drainMs: options.drainMs ?? TURN_LIMITS.drainMs,
    };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value < 1) throw new FlotillaError('config_invalid', `the turn limit ${name} must be a positive number of milliseconds, not ${value}`);
    }
    this.queue = new ConversationQueue(options.queue);
  }

  cancelTask = (taskId: string, _bus: ExecutionEventBus): Promise<void> => {
    this.cancelled.add(taskId);
    return Promise.resolve();
  };

  /**
   * Stops taking turns (new ones are answered "shutting down"), lets turns in flight finish for up to `drainMs`,
   * then aborts the rest (answered "shutting down") and waits up to `abortGraceMs` for them to stop.
   */
  async close(): Promise<void> {
    this.closing = true;
    const drained = Promise.allSettled([...this.inFlight]);
    const drainTimer = new AbortController();
    await Promise.race([drained, delay(this.limits.drainMs, undefined, { signal: drainTimer.signal }).catch(() => undefined)]);
    drainTimer.abort();
    if (this.turns.size === 0) return;
    this.logger.warn({ turns: this.turns.size, drainMs: this.limits.drainMs }, 'shutting down: aborting the turns still running after the drain');
    for (const turn of this.turns) turn.abort(new TurnAborted('shutting_down'));
    const graceTimer = new AbortController();
    await Promise.race([Promise.allSettled([...this.inFlight]), delay(this.limits.abortGraceMs, undefined, { signal: graceTimer.signal }).catch(() => undefined)]);
    graceTimer.abort();
  }

  execute = (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const run = this.run(context, bus).finally(() => {
      this.inFlight.delete(run);
      this.cancelled.delete(context.taskId);
    });
    this.inFlight.add(run);
    return run;
  };

  private async run(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const message = context.userMessage;
    const status = (state: TaskState, note?: string, metadata?: Record<string, unknown>): void =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            timestamp: new Date().toISOString(),
            message:
              note === undefined
                ? undefined
                : { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [text(note)], metadata: undefined, extensions: [], referenceTaskIds: [] },
          },
          metadata,
        }),
      );
    if (context.task === undefined) {
      bus.publish(
        AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [message], metadata: undefined }),
      );
    }
    const question = message.parts
      .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
      .join(' ')
      .trim();
    const finish = (answer: string, metadata: Record<string, unknown>, state: TaskState = TaskState.TASK_STATE_COMPLETED, structured?: Readonly<Record<string, unknown>>): void => {
      const parts = structured === undefined ? [text(answer)] : [text(answer), data(structured)];
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId: randomUUID(), name: 'answer', description: 'The answer', parts, metadata, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      status(state, undefined, metadata);
    };
    if (question.length === 0) {
      finish('Send your question as text, e.g. "which apps are out of sync in prod?".', { error: 'empty_message' }, TaskState.TASK_STATE_REJECTED);
      return;
    }
    if (question.length > QUESTION_MAX_CHARS) {
      finish(`That message is ${question.length} characters; I take questions of up to ${QUESTION_MAX_CHARS}. Ask something shorter.`, { error: 'message_too_long' }, TaskState.TASK_STATE_REJECTED);
      return;
    }
    const shuttingDown = (): void => finish(SHUTTING_DOWN_ANSWER, { error: 'shutting_down' }, TaskState.TASK_STATE_FAILED);
    const busy = (): void => {
      this.options.onReject?.('conversation_busy');
      finish(BUSY_ANSWER, { error: 'conversation_busy' }, TaskState.TASK_STATE_REJECTED);
    };
    if (this.closing) return shuttingDown();
    // One deadline from arrival, waiting included: the caller has an answer within it (plus the abort grace).
    const turn = new AbortController();
    const deadline = setTimeout(() => turn.abort(new TurnAborted('timed_out')), this.limits.timeoutMs);
    const ticket = this.queue.enter(contextId, turn.signal);
    if (ticket === undefined) {
      clearTimeout(deadline);
      return busy();
    }
    this.turns.add(turn);
    let slot: ConversationSlot | undefined;
    let lock: ConversationLockAttempt | undefined;
    try {
      if (ticket.queued) status(TaskState.TASK_STATE_WORKING, WAITING_NOTE);
      slot = await ticket.ready.catch(() => undefined);
      if (slot !== undefined && this.options.lock !== undefined) {
        lock = await this.options.lock.acquire(contextId, { signal: turn.signal, onWait: () => status(TaskState.TASK_STATE_WORKING, WAITING_REPLICA_NOTE) });
      }
      // The deadline passed while earlier turns of the conversation ran (here or on another replica): still busy.
      if (turn.signal.aborted) return turn.signal.reason instanceof TurnAborted && turn.signal.reason.why === 'timed_out' ? busy() : shuttingDown();
      if (slot === undefined || lock?.kind === 'busy') return busy();
      // A turn that waited through the start of a shutdown does not start new work in the drain.
      if (this.closing) return shuttingDown();
      await this.answerWithin(turn, question, contextId, taskId, status, finish);
    } finally {
      clearTimeout(deadline);
      this.turns.delete(turn);
      if (lock?.kind === 'held') await lock.release();
      slot?.release();
    }
  }

  /** Runs the answer until the turn aborts (deadline, shutdown); an aborted turn is answered at once and waited for up to the grace. */
  private async answerWithin(
    turn: AbortController,
    question: string,
    contextId: string,
    taskId: string,
    status: (state: TaskState, note?: string) => void,
    finish: (answer: string, metadata: Record<string, unknown>, state?: TaskState, structured?: Readonly<Record<string, unknown>>) => void,
  ): Promise<void> {
    // At most one note per interval; a note that comes sooner waits for the interval's end (the latest one wins).
    let lastNote = 0;
    let pending: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const working = setTimeout(() => {
      if (!done && !this.cancelled.has(taskId)) status(TaskState.TASK_STATE_WORKING, 'Working on it…');
    }, WORKING_NOTE_AFTER_MS);
    const send = (note: string): void => {
      if (done || this.cancelled.has(taskId)) return;
      // A note of the turn's own says it is working.
      clearTimeout(working);
      lastNote = performance.now();
      status(TaskState.TASK_STATE_WORKING, note.slice(0, PROGRESS_NOTE_MAX_CHARS));
    };
    const progress: ProgressNote = (note) => {
      const wait = PROGRESS_MIN_INTERVAL_MS - (performance.now() - lastNote);
      if (wait <= 0 && timer === undefined) return send(note);
      pending = note;
      timer ??= setTimeout(() => {
        timer = undefined;
        if (pending !== undefined) send(pending);
        pending = undefined;
      }, Math.max(0, wait));
    };
    const settled: Promise<Settled> = Promise.resolve()
      .then(() => this.answer(question, contextId, progress, turn.signal))
      .then(
        (reply) => ({ reply }),
        (error: unknown) => ({ error }),
      );
    const aborted = new Promise<undefined>((resolve) => turn.signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    const first = await Promise.race([settled, aborted]);
    clearTimeout(timer);
    clearTimeout(working);
    if (first === undefined || ('error' in first && turn.signal.aborted)) {
      done = true;
      const why = turn.signal.reason instanceof TurnAborted ? turn.signal.reason.why : 'shutting_down';
      if (why === 'timed_out') finish(timedOutAnswer(this.limits.timeoutMs), { error: 'timed_out' }, TaskState.TASK_STATE_FAILED);
      else finish(SHUTTING_DOWN_ANSWER, { error: 'shutting_down' }, TaskState.TASK_STATE_FAILED);
      // The conversation stays held until the aborted work has stopped (it must not save over the next turn), but
      // no longer than the grace.
      const grace = new AbortController();
      const stopped = await Promise.race([settled.then(() => true), delay(this.limits.abortGraceMs, false, { signal: grace.signal }).catch(() => false)]);
      grace.abort();
      if (!stopped) this.logger.warn({ taskId, why, graceMs: this.limits.abortGraceMs }, 'an aborted turn did not stop within the grace; its conversation is released anyway');
      return;
    }
    // A note still waiting for its interval goes out before the answer: the caller sees the latest progress.
    if (pending !== undefined) send(pending);
    done = true;
    if (this.cancelled.has(taskId)) {
      status(TaskState.TASK_STATE_CANCELED, 'Cancelled.');
      return;
    }
    if ('error' in first) {
      this.logger.error({ err: first.error, taskId }, 'turn failed');
      finish(`I could not answer that: ${describeError(first.error)}. Try again; if it keeps failing, the error is in the agent's logs.`, { error: 'internal' }, TaskState.TASK_STATE_FAILED);
      return;
    }
    const reply = first.reply;
    finish(reply.answer, { ...reply.metadata, options: [...reply.options] }, TaskState.TASK_STATE_COMPLETED, reply.data);
  }
}
