import { performance } from 'node:perf_hooks';
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { DelegationOutcome } from '@flotilla/metrics';
import { abortedOutcome, textRequest } from '@flotilla/agent-kit';
import type { TokenCounter } from '@flotilla/tokens';
import { unreachableReason } from './registry.js';

export interface DelegationRequest {
  readonly client: Client;
  readonly agentId: string;
  readonly agentName: string;
  readonly agentUrl: string;
  readonly question: string;
  /** The caller's conversation id, forwarded so follow-ups reach the same agent session. */
  readonly contextId: string;
  readonly timeoutMs: number;
  /** Tokens of the reply the supervisor passes on; a longer one is cut with a pointer to the rest. */
  readonly replyMaxTokens: number;
  readonly counter: TokenCounter;
  readonly onProgress?: (note: string) => void;
  /** The supervisor's own turn: when it aborts (deadline, shutdown), the delegation stops and says so. */
  readonly signal?: AbortSignal | undefined;
}

export interface DelegationResult {
  readonly agentId: string;
  readonly agentName: string;
  readonly question: string;
  readonly outcome: DelegationOutcome;
  /** The reply, within `replyMaxTokens`. */
  readonly answer: string;
  readonly options: readonly string[];
  readonly data: Readonly<Record<string, unknown>> | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Tokens of the reply as the agent sent it. */
  readonly replyTokens: number;
  readonly truncated: boolean;
  readonly seconds: number;
  /** The agent could not be reached or did not answer in time (not an answer that reports a failure). */
  readonly unreachable: boolean;
  /** Why, in a few words, when `unreachable` ("connection refused", "no answer within 75 s"): the registry keeps it. */
  readonly reason?: string | undefined;
}

/** Status notes relayed per delegation, at most (the A2A server throttles them further). */
const MAX_NOTES = 50;
/** Characters of one reply read before the budget applies (bounds the tokenizer's work). */
const MAX_REPLY_CHARS = 400_000;

/**
 * One question to one domain agent over A2A streaming: progress relayed, the final artifact collected (text, data
 * part, metadata), within a deadline and a token budget. Never throws: a failure is a result that says what failed.
 */
export async function delegate(request: DelegationRequest): Promise<DelegationResult> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal === undefined ? timeout : AbortSignal.any([timeout, request.signal]);
  let answer = '';
  let data: Record<string, unknown> | undefined;
  let metadata: Record<string, unknown> = {};
  let state: TaskState | undefined;
  let notes = 0;
  const result = (outcome: DelegationOutcome, text: string, reason?: string): DelegationResult => {
    const fitted = fit(text, request);
    return {
      agentId: request.agentId,
      agentName: request.agentName,
      question: request.question,
      outcome,
      answer: fitted.text,
      options: Array.isArray(metadata.options) ? (metadata.options as unknown[]).filter((o): o is string => typeof o === 'string').slice(0, 10) : [],
      data,
      metadata,
      replyTokens: fitted.tokens,
      truncated: fitted.truncated,
      seconds: (performance.now() - started) / 1000,
      unreachable: reason !== undefined,
      reason,
    };
  };
  try {
    const stream = request.client.sendMessageStream(
      textRequest(request.question, request.contextId),
      { signal },
    );
    for await (const event of stream) {
      const payload = event.payload;
      if (payload?.$case === 'statusUpdate') {
        state = payload.value.status?.state ?? state;
        const note = payload.value.status?.message?.parts[0]?.content;
        if (note?.$case === 'text' && notes < MAX_NOTES && state === TaskState.TASK_STATE_WORKING) {
          notes += 1;
          request.onProgress?.(`${request.agentName}: ${note.value}`);
        }
      } else if (payload?.$case === 'artifactUpdate') {
        for (const part of payload.value.artifact?.parts ?? []) {
          if (part.content?.$case === 'text') answer = part.content.value.slice(0, MAX_REPLY_CHARS);
          else if (part.content?.$case === 'data' && typeof part.content.value === 'object' && part.content.value !== null) data = part.content.value as Record<string, unknown>;
        }
        metadata = payload.value.artifact?.metadata ?? {};
      } else if (payload?.$case === 'task') {
        state = payload.value.status?.state ?? state;
      }
    }
  } catch (error) {
    const within = `within ${Math.round(request.timeoutMs / 1000)} s`;
    if (timeout.aborted) return result('timeout', `the ${request.agentName} did not answer ${within}`, `no answer ${within}`);
    // Our own turn ended (its deadline, or shutdown): the agent is not to blame, and stays ready.
    if (request.signal?.aborted === true) {
      const timedOut = abortedOutcome(request.signal) === 'timed_out';
      return result(timedOut ? 'timeout' : 'failed', `the supervisor stopped waiting for the ${request.agentName} (${timedOut ? 'its own turn ran out of time' : 'it is shutting down'})`);
    }
    const reason = unreachableReason(error).slice(0, 200);
    return result('failed', `the ${request.agentName} could not be reached (${reason})`, reason);
  }
  if (state === TaskState.TASK_STATE_FAILED) return result('failed', answer || `the ${request.agentName} failed`);
  if (state === TaskState.TASK_STATE_REJECTED) return result('rejected', answer || `the ${request.agentName} refused the question`);
  if (answer.length === 0) return result('failed', `the ${request.agentName} sent no answer`);
  return result('ok', answer);
}

function fit(text: string, request: DelegationRequest): { text: string; tokens: number; truncated: boolean } {
  const tokens = request.counter.count(text);
  if (tokens <= request.replyMaxTokens) return { text, tokens, truncated: false };
  const note =
    `\n… (cut to ${request.replyMaxTokens} of ${tokens} tokens by the supervisor. The rest is with the ${request.agentName} ` +
    `(${request.agentUrl}, this conversation's context): ask for "next page" or a narrower question.)`;
  const room = Math.max(0, request.replyMaxTokens - request.counter.count(note));
  return { text: request.counter.truncate(text, room) + note, tokens, truncated: true };
}
