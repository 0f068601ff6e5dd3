import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { describeError, type Logger } from '@flotilla/core';
import { QUESTION_MAX_CHARS } from './rules.js';

/** Progress of a turn, relayed to the caller as a status update (throttled and capped by the server). */
export type ProgressNote = (note: string) => void;

/** Progress notes are cut to this many characters, and at most one is relayed per PROGRESS_MIN_INTERVAL_MS. */
export const PROGRESS_NOTE_MAX_CHARS = 300;
export const PROGRESS_MIN_INTERVAL_MS = 250;

/** One question of one conversation (contextId), answered by an agent's workflow. */
export type AnswerTurn = (question: string, contextId: string, progress: ProgressNote) => Promise<{
  readonly answer: string;
  readonly options: readonly string[];
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
  /** Structured data beside the text (limitation options for buttons): an A2A data part of the answer. */
  readonly data?: Readonly<Record<string, unknown>> | undefined;
}>;

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const data = (value: Readonly<Record<string, unknown>>): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });

/**
 * The kit's AgentExecutor: a turn's progress as status updates, the answer as an artifact, the options and the
 * workflow's path in metadata. Bad input (empty, too long) is answered, never thrown; a failed turn ends the
 * task FAILED with a readable message.
 */
export class WorkflowExecutor implements AgentExecutor {
  private readonly cancelled = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly answer: AnswerTurn,
    private readonly logger: Logger,
  ) {}

  cancelTask = (taskId: string, _bus: ExecutionEventBus): Promise<void> => {
    this.cancelled.add(taskId);
    return Promise.resolve();
  };

  /** Waits for turns in flight (graceful shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
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
    status(TaskState.TASK_STATE_WORKING, 'Working on it…');
    try {
      // At most one note per interval; a note that comes sooner waits for the interval's end (the latest one wins).
      let lastNote = 0;
      let pending: string | undefined;
      let timer: NodeJS.Timeout | undefined;
      let done = false;
      const send = (note: string): void => {
        if (done || this.cancelled.has(taskId)) return;
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
      const turn = await this.answer(question, contextId, progress).finally(() => {
        clearTimeout(timer);
        // A note still waiting for its interval goes out before the answer: the caller sees the latest progress.
        if (pending !== undefined) send(pending);
        done = true;
      });
      if (this.cancelled.has(taskId)) {
        status(TaskState.TASK_STATE_CANCELED, 'Cancelled.');
        return;
      }
      finish(turn.answer, { ...turn.metadata, options: [...turn.options] }, TaskState.TASK_STATE_COMPLETED, turn.data);
    } catch (error) {
      this.logger.error({ err: error, taskId }, 'turn failed');
      finish(`I could not answer that: ${describeError(error)}. Try again; if it keeps failing, the error is in the agent's logs.`, { error: 'internal' }, TaskState.TASK_STATE_FAILED);
    }
  }
}

