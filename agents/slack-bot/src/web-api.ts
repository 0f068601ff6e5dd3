// Slack Web API calls of the bot: each failure counted by method, and the one way a catch site logs a failure
// (counted as unexpected unless a Web API call's, already counted).
import type { webApi } from '@slack/bolt';
import type { Logger } from '@flotilla/core';
import type { SlackApiMethod, SlackMetrics } from '@flotilla/metrics';
import type { SlackMessage } from './render.js';

/** Bolt's Web API client. */
export type WebClient = webApi.WebClient;

/** The Web API calls the bot makes, and how it logs a failure. */
export interface SlackWeb {
  /** Runs one Web API call; a failure is counted by `method` and thrown on. */
  readonly api: <T>(method: SlackApiMethod, call: () => Promise<T>) => Promise<T>;
  /** Posts `message` in the thread; the new message's ts. */
  readonly post: (client: WebClient, channel: string, threadTs: string, message: SlackMessage) => Promise<string | undefined>;
  /** Replaces the message at `ts`. */
  readonly update: (client: WebClient, channel: string, ts: string, message: SlackMessage) => Promise<void>;
  /** Logs a failure at a catch site; counts it as unexpected unless it was a Web API call's (counted by method). */
  readonly logFailure: (error: unknown, message: string, fields?: Record<string, unknown>) => void;
}

/** The bot's Web API calls, counted in `slack`, failures logged to `log`. */
export function createSlackWeb(log: Logger, slack: SlackMetrics): SlackWeb {
  /** Errors of Slack Web API calls, counted by method already: not counted again as unexpected. */
  const apiErrors = new WeakSet<object>();
  const api = async <T>(method: SlackApiMethod, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      slack.apiFailures.inc({ method });
      if (typeof error === 'object' && error !== null) apiErrors.add(error);
      throw error;
    }
  };
  /** Logs a failure at a catch site; counts it as unexpected unless it was a Web API call's (counted by method). */
  const logFailure = (error: unknown, message: string, fields: Record<string, unknown> = {}): void => {
    log.error({ err: error, ...fields }, message);
    if (typeof error !== 'object' || error === null || !apiErrors.has(error)) slack.errors.inc();
  };

  const post = async (client: WebClient, channel: string, threadTs: string, message: SlackMessage): Promise<string | undefined> => {
    const result = await api('chat.postMessage', () =>
      client.chat.postMessage({ channel, thread_ts: threadTs, text: message.text, blocks: [...message.blocks], unfurl_links: false, unfurl_media: false }),
    );
    return result.ts;
  };
  const update = async (client: WebClient, channel: string, ts: string, message: SlackMessage): Promise<void> => {
    await api('chat.update', () => client.chat.update({ channel, ts, text: message.text, blocks: [...message.blocks] }));
  };
  return { api, post, update, logFailure };
}
