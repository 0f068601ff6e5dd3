// One question asked in Slack, answered in its thread: the question capped, a progress message, the A2A call to
// the agent under a deadline, the answer rendered in place of the progress message (or a file), and how the
// turn ended counted; at most `maxInFlight` turns at once, and all of them stopped when the bot closes.
import { QUESTION_MAX_CHARS } from '@flotilla/agent-kit';
import { describeError, type Logger } from '@flotilla/core';
import type { SlackAnswerOutcome, SlackMetrics } from '@flotilla/metrics';
import type { TokenCounter } from '@flotilla/tokens';
import { AgentFailure, ShutdownReason, TimeoutReason, askAgent, failureText } from './agent-client.js';
import { PROGRESS_INTERVAL_MS, ProgressEditor } from './progress.js';
import { escapeMrkdwn, noteMessage, renderAnswer, sliceChars, threadContextId, truncateChars } from './render.js';
import type { SlackBotConfig } from './settings.js';
import type { SlackWeb, WebClient } from './web-api.js';

/**
 * The question sent to the agent: its beginning, at most `maxTokens` tokens and the A2A kit's 2,000 characters
 * (cut to those characters first, so a huge message costs little to count), and whether it was cut.
 */
export function capQuestion(question: string, counter: TokenCounter, maxTokens: number): { question: string; cut: boolean } {
  const head = sliceChars(question, QUESTION_MAX_CHARS);
  const capped = counter.count(head) > maxTokens ? counter.truncate(head, maxTokens) : head;
  return { question: capped.trim(), cut: capped !== question };
}

/** A question to answer: where it was asked, its text, and how it came (a mention, a direct message, a button). */
export interface Turn {
  readonly client: WebClient;
  readonly team: string;
  readonly channel: string;
  readonly threadTs: string;
  readonly text: string;
  readonly via: 'mention' | 'dm' | 'button';
  readonly user: string | undefined;
}

/** The turns of the bot. */
export interface Turns {
  /** Starts answering a question in the background; more than maxInFlight at once get a "busy" reply. */
  start(turn: Turn): void;
  /** Keeps `work` (which must not reject) among what `drain` waits for, until it settles. */
  track(work: Promise<void>): void;
  /** Tells the turns in flight that the bot is restarting and waits for them (and tracked work), at most `graceMs`. */
  drain(graceMs: number): Promise<void>;
}

export interface TurnOptions {
  readonly config: SlackBotConfig;
  readonly log: Logger;
  readonly slack: SlackMetrics;
  readonly counter: TokenCounter;
  readonly web: SlackWeb;
  /** Whether the bot is closing: no new turn starts, and one still posting its progress message is stopped. */
  readonly closing: () => boolean;
}

/** The turns of the bot, answered through `web`, counted in `slack`. */
export function createTurns({ config, log, slack, counter, web, closing }: TurnOptions): Turns {
  const { api, post, update, logFailure } = web;
  let active = 0;
  const running = new Set<Promise<void>>();
  const controllers = new Set<AbortController>();

  const track = (work: Promise<void>): void => {
    const run = work.finally(() => running.delete(run));
    running.add(run);
  };

  /** Answers one question in its thread; `end.outcome` says how it ended (left at `failed` if this throws). */
  const answerTurn = async (turn: Turn, end: { outcome: SlackAnswerOutcome }): Promise<void> => {
    const { client, channel, threadTs } = turn;
    const contextId = threadContextId(turn.team, channel, threadTs);
    const turnLog = log.child({ contextId, via: turn.via });
    const capped = capQuestion(turn.text, counter, config.questionMaxTokens);
    const cutNote = capped.cut
      ? `\n_Your message is longer than I pass on (${config.questionMaxTokens.toLocaleString('en-US')} tokens, ${QUESTION_MAX_CHARS.toLocaleString('en-US')} characters), so I cut it and sent the agent only its beginning._`
      : '';
    const chose = turn.via === 'button' ? ` (button: “${escapeMrkdwn(truncateChars(capped.question, 200))}”)` : '';
    const progressText = (note: string): string => `:hourglass_flowing_sand: ${note}${chose}${cutNote}`;
    const initial = progressText('Working on it…');
    const progressTs = await post(client, channel, threadTs, noteMessage(initial));
    if (progressTs === undefined) throw new Error('chat.postMessage returned no ts');
    const progress = new ProgressEditor(initial, (text) => update(client, channel, progressTs, noteMessage(text)), PROGRESS_INTERVAL_MS, turnLog);
    const controller = new AbortController();
    controllers.add(controller);
    // close() aborted the questions in flight while this one was posting its progress message.
    if (closing()) controller.abort(new ShutdownReason());
    const timer = setTimeout(() => controller.abort(new TimeoutReason(config.agentTimeoutMs)), config.agentTimeoutMs);
    try {
      const started = performance.now();
      let reply;
      try {
        reply = await askAgent(config.agentUrl, capped.question, contextId, {
          signal: controller.signal,
          token: config.agentToken,
          onStatus: (note) => progress.push(progressText(escapeMrkdwn(truncateChars(note, 500)))),
        });
      } catch (error) {
        const failure = error instanceof AgentFailure ? error : new AgentFailure('protocol', describeError(error), { cause: error });
        turnLog.warn({ err: failure, kind: failure.kind, agentUrl: config.agentUrl }, 'asking the agent failed');
        end.outcome = failure.kind === 'timeout' ? 'timed_out' : 'failed';
        await progress.stop();
        await update(client, channel, progressTs, noteMessage(failureText(failure, config.agentTimeoutMs)));
        return;
      }
      const rendered = renderAnswer(reply.answer, reply.options);
      turnLog.info({ seconds: (performance.now() - started) / 1000, chars: reply.answer.length, state: reply.state, rendered: rendered.kind, messages: rendered.kind === 'messages' ? rendered.messages.length : 1 }, 'answered');
      await progress.stop();
      let delivered = false;
      try {
        if (rendered.kind === 'messages') {
          const [first, ...rest] = rendered.messages;
          if (first !== undefined) await update(client, channel, progressTs, first);
          delivered = true;
          for (const message of rest) await post(client, channel, threadTs, message);
        } else {
          await api('files.uploadV2', () =>
            client.files.uploadV2({ channel_id: channel, thread_ts: threadTs, content: rendered.file.content, filename: rendered.file.filename, title: rendered.file.title }),
          );
          await update(client, channel, progressTs, rendered.summary);
        }
        // A task that ended failed or rejected (the supervisor's deadline, a busy conversation) says why in its text.
        end.outcome = reply.state === 'failed' || reply.state === 'rejected' ? 'failed' : 'answered';
      } catch (error) {
        // The user did not get the whole answer: the question counts as failed.
        logFailure(error, 'posting the answer failed', { contextId, via: turn.via, delivered });
        const note = noteMessage(
          `:warning: The agent answered, but Slack refused ${delivered ? 'the rest of ' : ''}the answer (${describeError(error)}). Try again; if it keeps failing, tell whoever runs Flotilla.`,
        );
        // Keep what arrived: a failure after the first part is a new message, not an overwrite of that part.
        await (delivered ? post(client, channel, threadTs, note) : update(client, channel, progressTs, note)).catch((again: unknown) =>
          logFailure(again, 'reporting the failure failed', { contextId, via: turn.via }),
        );
      }
    } finally {
      clearTimeout(timer);
      controllers.delete(controller);
      await progress.stop();
    }
  };

  const start = (turn: Turn): void => {
    if (closing()) return;
    track(
      (async () => {
        if (active >= config.maxInFlight) {
          log.warn({ active, max: config.maxInFlight }, 'busy: question turned away');
          slack.answers.inc({ outcome: 'busy' });
          await post(turn.client, turn.channel, turn.threadTs, noteMessage(`:no_entry: I'm answering ${active} questions right now, my limit. Please try again in a minute.`));
          return;
        }
        active += 1;
        slack.inFlight.set(active);
        const started = performance.now();
        const end: { outcome: SlackAnswerOutcome } = { outcome: 'failed' };
        try {
          await answerTurn(turn, end);
        } finally {
          active -= 1;
          slack.inFlight.set(active);
          slack.answers.inc({ outcome: end.outcome });
          slack.answerDuration.observe((performance.now() - started) / 1000);
        }
      })().catch((error: unknown) => logFailure(error, 'answering in Slack failed', { channel: turn.channel })),
    );
  };

  return {
    start,
    track,
    async drain(graceMs) {
      for (const controller of controllers) controller.abort(new ShutdownReason());
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...running]), new Promise<void>((resolve) => (grace = setTimeout(resolve, graceMs)))]);
      clearTimeout(grace);
    },
  };
}
