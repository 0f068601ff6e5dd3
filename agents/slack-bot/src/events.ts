// What the bot takes from Slack: mentions, direct messages and follow-up buttons, each validated, redeliveries
// dropped, and turned into a turn (or, for an empty mention, the help text); errors of Bolt's handling logged.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '@flotilla/core';
import type { SlackMetrics } from '@flotilla/metrics';
import { OPTION_ACTION_PREFIX, noteMessage, questionFromSlackText } from './render.js';
import type { Turns } from './turn.js';
import type { SlackWeb, WebClient } from './web-api.js';

/** Event ids remembered to drop Slack's redeliveries of an event. */
const SEEN_EVENTS_MAX = 1000;

const EventEnvelopeSchema = z.object({ team_id: z.string().max(64).optional(), event_id: z.string().max(128).optional() });
const MessageEventSchema = z.object({
  type: z.string(),
  text: z.string().max(100_000).default(''),
  user: z.string().max(64).optional(),
  channel: z.string().min(1).max(64),
  ts: z.string().min(1).max(64),
  thread_ts: z.string().min(1).max(64).optional(),
  team: z.string().max(64).optional(),
  channel_type: z.string().max(32).optional(),
  subtype: z.string().max(64).optional(),
  bot_id: z.string().max(64).optional(),
  edited: z.unknown().optional(),
});
const ActionBodySchema = z.object({
  team: z.object({ id: z.string().max(64) }).nullish(),
  user: z.object({ id: z.string().max(64), team_id: z.string().max(64).optional() }),
  channel: z.object({ id: z.string().min(1).max(64) }).optional(),
  container: z.object({ channel_id: z.string().max(64).optional(), message_ts: z.string().max(64).optional(), thread_ts: z.string().max(64).optional() }).optional(),
  message: z.object({ ts: z.string().max(64), thread_ts: z.string().max(64).optional() }).optional(),
});
const ButtonActionSchema = z.object({ action_id: z.string().max(255), value: z.string().min(1).max(2000) });

const HELP_TEXT = 'Ask me a question after the mention, for example "interfaces of every switch in ams1" or "which apps are out of sync in prod?". Reply in the thread to follow up.';

export interface EventOptions {
  readonly log: Logger;
  readonly slack: SlackMetrics;
  readonly web: SlackWeb;
  readonly turns: Turns;
}

/** Registers the bot's event, action and error handlers on `app`. */
export function registerEvents(app: App, { log, slack, web, turns }: EventOptions): void {
  const { post, logFailure } = web;
  const seenEvents = new Set<string>();

  /** True the first time an event id is seen (Slack redelivers events it thinks were missed). */
  const firstDelivery = (eventId: string | undefined): boolean => {
    if (eventId === undefined) return true;
    if (seenEvents.has(eventId)) return false;
    seenEvents.add(eventId);
    if (seenEvents.size > SEEN_EVENTS_MAX) {
      const oldest = seenEvents.values().next().value;
      if (oldest !== undefined) seenEvents.delete(oldest);
    }
    return true;
  };

  const onMessage = (via: 'mention' | 'dm', rawEvent: unknown, rawBody: unknown, botUserId: string | undefined, client: WebClient): void => {
    const event = MessageEventSchema.safeParse(rawEvent);
    const envelope = EventEnvelopeSchema.safeParse(rawBody);
    if (!event.success) {
      log.warn({ via, issues: event.error.issues.length }, 'ignored a malformed event');
      return;
    }
    const e = event.data;
    if (e.bot_id !== undefined || e.subtype !== undefined || e.edited !== undefined || e.user === undefined) return;
    if (via === 'dm' && e.channel_type !== 'im') return;
    if (!firstDelivery(envelope.success ? envelope.data.event_id : undefined)) return;
    slack.events.inc({ kind: via === 'mention' ? 'app_mention' : 'message' });
    const team = (envelope.success ? envelope.data.team_id : undefined) ?? e.team ?? 'unknown';
    const threadTs = e.thread_ts ?? e.ts;
    const text = questionFromSlackText(e.text, botUserId);
    if (text.length === 0) {
      turns.track(
        post(client, e.channel, threadTs, noteMessage(HELP_TEXT))
          .then(() => undefined)
          .catch((error: unknown) => logFailure(error, 'posting help failed')),
      );
      return;
    }
    turns.start({ client, team, channel: e.channel, threadTs, text, via, user: e.user });
  };

  app.event('app_mention', ({ event, body, context, client }) => {
    onMessage('mention', event, body, context.botUserId, client);
    return Promise.resolve();
  });
  app.event('message', ({ event, body, context, client }) => {
    onMessage('dm', event, body, context.botUserId, client);
    return Promise.resolve();
  });
  app.action({ type: 'block_actions', action_id: new RegExp(`^${OPTION_ACTION_PREFIX}\\d+$`) }, async ({ ack, body, action, client }) => {
    await ack();
    const parsedBody = ActionBodySchema.safeParse(body);
    const parsedAction = ButtonActionSchema.safeParse(action);
    if (!parsedBody.success || !parsedAction.success) {
      log.warn('ignored a malformed button press');
      return;
    }
    const b = parsedBody.data;
    const channel = b.channel?.id ?? b.container?.channel_id;
    const threadTs = b.message?.thread_ts ?? b.container?.thread_ts ?? b.message?.ts ?? b.container?.message_ts;
    if (channel === undefined || threadTs === undefined) {
      log.warn('ignored a button press without its channel or message');
      return;
    }
    const team = b.team?.id ?? b.user.team_id ?? 'unknown';
    slack.events.inc({ kind: 'block_action' });
    turns.start({ client, team, channel, threadTs, text: parsedAction.data.value, via: 'button', user: b.user.id });
  });
  app.error((error) => {
    logFailure(error, 'Slack event handling failed');
    return Promise.resolve();
  });
}
