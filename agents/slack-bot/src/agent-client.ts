import { Role, TaskState, type Part, type StreamResponse } from '@a2a-js/sdk';
import { describeError } from '@flotilla/core';
import { connectA2AAgent, textRequest } from '@flotilla/agent-kit';
import { followUpsFrom, type FollowUp } from './render.js';

/** What the agent answered: the text, its follow-ups, and whether the task ended well. */
export interface AgentReply {
  readonly answer: string;
  readonly options: readonly FollowUp[];
  readonly state: 'completed' | 'failed' | 'rejected' | 'canceled' | 'other';
}

/** Why asking the agent failed, for the message the user sees. */
export type AgentFailureKind = 'unreachable' | 'timeout' | 'protocol' | 'no_answer' | 'shutdown';

export class AgentFailure extends Error {
  constructor(
    readonly kind: AgentFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AgentFailure';
  }
}

export interface AskOptions {
  /** Aborts the question (a timeout, or shutting down); the reason names which. */
  readonly signal: AbortSignal;
  /** Each progress note of the agent (status updates with text). */
  readonly onStatus?: (note: string) => void;
  /** Bearer token for an agent started with --a2a-tokens. */
  readonly token?: string | undefined;
}

const textOf = (parts: readonly Part[]): string =>
  parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((t) => t.length > 0)
    .join('\n');

const dataOf = (parts: readonly Part[]): unknown => {
  for (const p of parts) if (p.content?.$case === 'data') return p.content.value;
  return undefined;
};

function stateName(state: TaskState | undefined): AgentReply['state'] | undefined {
  switch (state) {
    case TaskState.TASK_STATE_COMPLETED:
      return 'completed';
    case TaskState.TASK_STATE_FAILED:
      return 'failed';
    case TaskState.TASK_STATE_REJECTED:
      return 'rejected';
    case TaskState.TASK_STATE_CANCELED:
      return 'canceled';
    case TaskState.TASK_STATE_SUBMITTED:
    case TaskState.TASK_STATE_WORKING:
    case TaskState.TASK_STATE_INPUT_REQUIRED:
    case TaskState.TASK_STATE_AUTH_REQUIRED:
    case TaskState.TASK_STATE_UNSPECIFIED:
    case TaskState.UNRECOGNIZED:
      return 'other';
    case undefined:
      return undefined;
  }
}

/** Rejects when `signal` aborts (with its reason), so a call that takes no signal cannot outlive it. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The reason a timeout aborts with. */
export class TimeoutReason extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'TimeoutReason';
  }
}
/** The reason shutting down aborts with. */
export class ShutdownReason extends Error {
  constructor() {
    super('the Slack bot is shutting down');
    this.name = 'ShutdownReason';
  }
}

function classify(error: unknown, signal: AbortSignal): AgentFailure {
  if (error instanceof AgentFailure) return error;
  if (signal.aborted && signal.reason instanceof TimeoutReason) return new AgentFailure('timeout', signal.reason.message, { cause: error });
  if (signal.aborted && signal.reason instanceof ShutdownReason) return new AgentFailure('shutdown', signal.reason.message, { cause: error });
  const text = `${describeError(error)} ${error instanceof Error && error.cause !== undefined ? describeError(error.cause) : ''}`;
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|fetch failed|agent card|socket hang up/i.test(text)) {
    return new AgentFailure('unreachable', describeError(error), { cause: error });
  }
  return new AgentFailure('protocol', describeError(error), { cause: error });
}

/**
 * Sends one question to an A2A agent with the official client (streaming), in the conversation `contextId`.
 * Progress notes go to `onStatus`; the answer artifact (text, data part with the follow-ups, metadata options)
 * comes back whole. Every failure is an `AgentFailure` naming its kind.
 */
/** Artifacts of one answer kept, and characters of one answer (far above what Slack is sent; the rest is cut). */
const MAX_ARTIFACTS = 20;
const MAX_ANSWER_CHARS = 2_000_000;

export async function askAgent(agentUrl: string, question: string, contextId: string, options: AskOptions): Promise<AgentReply> {
  const { signal } = options;
  try {
    const client = await abortable(connectA2AAgent(agentUrl, options.token), signal);
    const stream = client.sendMessageStream(
      textRequest(question, contextId),
      { signal },
    );
    const artifacts = new Map<string, { text: string; data: unknown; metadata: unknown }>();
    let lastArtifact: string | undefined;
    let state: AgentReply['state'] | undefined;
    let lastNote = '';
    const onArtifact = (id: string, parts: readonly Part[], metadata: unknown, append: boolean): void => {
      const previous = artifacts.get(id);
      // Bounded: an agent that streams without end cannot grow the bot's memory past these.
      if (previous === undefined && artifacts.size >= MAX_ARTIFACTS) return;
      const text = textOf(parts);
      artifacts.set(id, {
        text: (append && previous !== undefined ? previous.text + text : text).slice(0, MAX_ANSWER_CHARS),
        data: dataOf(parts) ?? previous?.data,
        metadata: metadata ?? previous?.metadata,
      });
      lastArtifact = id;
    };
    const iterator = stream[Symbol.asyncIterator]();
    for (;;) {
      const next: IteratorResult<StreamResponse> = await abortable(iterator.next(), signal);
      if (next.done === true) break;
      const payload = next.value.payload;
      switch (payload?.$case) {
        case 'statusUpdate': {
          state = stateName(payload.value.status?.state) ?? state;
          const note = textOf(payload.value.status?.message?.parts ?? []);
          if (note.length > 0) {
            lastNote = note;
            options.onStatus?.(note);
          }
          break;
        }
        case 'artifactUpdate': {
          const artifact = payload.value.artifact;
          if (artifact !== undefined) onArtifact(artifact.artifactId, artifact.parts, artifact.metadata, payload.value.append);
          break;
        }
        case 'task': {
          state = stateName(payload.value.status?.state) ?? state;
          for (const artifact of payload.value.artifacts) onArtifact(artifact.artifactId, artifact.parts, artifact.metadata, false);
          break;
        }
        case 'message': {
          if (payload.value.role === Role.ROLE_AGENT) {
            onArtifact(`message:${payload.value.messageId}`, payload.value.parts, payload.value.metadata, false);
            state = state ?? 'completed';
          }
          break;
        }
        case undefined:
          break;
      }
    }
    const answer = lastArtifact === undefined ? undefined : artifacts.get(lastArtifact);
    if (answer === undefined || answer.text.trim().length === 0) {
      throw new AgentFailure('no_answer', state === 'failed' || state === 'rejected' ? `the task ended ${state}${lastNote === '' ? '' : `: ${lastNote}`}` : 'the agent ended the task without an answer');
    }
    return { answer: answer.text, options: followUpsFrom(answer.metadata, answer.data), state: state ?? 'other' };
  } catch (error) {
    throw classify(error, signal);
  }
}

/** What the user reads when asking failed: what went wrong and what to try. */
export function failureText(failure: AgentFailure, timeoutMs: number): string {
  switch (failure.kind) {
    case 'unreachable':
      return `:warning: I could not reach the Flotilla agent (${failure.message}). It may be down or restarting: try again in a minute, and if it keeps failing, tell whoever runs Flotilla.`;
    case 'timeout':
      return `:warning: The Flotilla agent did not answer within ${Math.round(timeoutMs / 1000)} seconds, so I stopped waiting. Try a narrower question (one site, one device, one namespace), or try again later.`;
    case 'protocol':
      return `:warning: The Flotilla agent returned an error: ${failure.message}. Try rephrasing the question; if it keeps failing, the details are in the agent's logs.`;
    case 'no_answer':
      return `:warning: The Flotilla agent finished without an answer (${failure.message}). Try asking again, or rephrase the question.`;
    case 'shutdown':
      return ':warning: The Slack bot restarted before the answer arrived. Ask again in a minute.';
  }
}
