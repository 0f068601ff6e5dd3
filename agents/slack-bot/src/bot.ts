// The Slack bot put together: its metrics and probes, Bolt (`bolt.ts`), the events it takes (`events.ts`), the
// turns that answer them (`turn.ts`, with `progress.ts` and `web-api.ts`), and an orderly close.
import type { ServerResponse } from 'node:http';
import type { Logger } from '@flotilla/core';
import { createMetrics, createSlackMetrics, zeroSlackSeries } from '@flotilla/metrics';
import { loadTokenCounter } from '@flotilla/tokens';
import { createSlackReceiver, EVENTS_PATH, type Route } from './bolt.js';
import { registerEvents } from './events.js';
import { checkSlackBotConfig, type SlackBotConfig } from './settings.js';
import { createTurns } from './turn.js';
import { createSlackWeb } from './web-api.js';

export { PROGRESS_INTERVAL_MS } from './progress.js';
export { capQuestion } from './turn.js';

/** How long close() waits for answers in flight (they are told the bot is restarting) before it returns. */
const CLOSE_GRACE_MS = 5000;

export interface RunningSlackBot {
  /** Base URL of the HTTP server: /slack/events (HTTP mode only), /healthz, /readyz and /metrics. */
  readonly url: string;
  /**
   * Stops: /readyz answers 503 at once, events are no longer taken (HTTP mode: 503, so Slack delivers them again;
   * Socket Mode: the socket is closed), answers in flight are told the bot is restarting, then the port closes.
   */
  close(): Promise<void>;
}

/**
 * Whether the bot can take events: started and not shutting down, and in Socket Mode connected to Slack (its hello
 * received, the socket not closed since). Neither the supervisor nor Slack's Web API is part of it: a question asked
 * while the supervisor is down is answered in Slack ("could not reach") and counted as a failed answer, and a Web API
 * failure is counted by method; taking the bot out of its Service would only stop it saying so.
 */
type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/**
 * The Slack front door: mentions, direct messages and follow-up buttons become questions to the A2A agent (the
 * supervisor), one conversation per Slack thread; the answer replaces a progress message, within Slack's limits.
 */
export async function startSlackBot(config: SlackBotConfig, logger: Logger): Promise<RunningSlackBot> {
  checkSlackBotConfig(config);
  const log = logger.child({ component: 'slack-bot' });
  const counter = await loadTokenCounter();
  // One registry: the process metrics (memory, event-loop lag) and the bot's own, every labelled series at zero.
  const metrics = createMetrics({ defaultMetrics: true });
  const slack = createSlackMetrics(metrics.registry);
  zeroSlackSeries(slack);
  let started = false;
  let closing = false;
  // Asked only by /readyz, which is served once `receiver` has started.
  const readiness = (): Readiness => {
    if (closing) return { ready: false, reason: 'shutting down' };
    if (!started) return { ready: false, reason: 'starting' };
    if (receiver.socketConnected !== undefined && !receiver.socketConnected()) return { ready: false, reason: 'the Socket Mode connection to Slack is down (reconnecting)' };
    return { ready: true };
  };
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const routes: Readonly<Record<string, Route>> = {
    '/healthz': (_req, res) => json(res, 200, { status: 'ok' }),
    '/readyz': (_req, res) => {
      const state = readiness();
      if (state.ready) json(res, 200, { status: 'ready' });
      else json(res, 503, { status: 'not_ready', reason: state.reason });
    },
    '/metrics': (_req, res) => {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        },
        (error: unknown) => {
          log.error({ err: error }, 'rendering /metrics failed');
          json(res, 500, { status: 'error' });
        },
      );
    },
  };
  const receiver = await createSlackReceiver({ config, logger, log, routes, closing: () => closing });
  const web = createSlackWeb(log, slack);
  const turns = createTurns({ config, log, slack, counter, web, closing: () => closing });
  registerEvents(receiver.app, { log, slack, web, turns });

  const url = await receiver.start();
  started = true;
  log.info({ url, events: config.socketMode ? 'socket mode' : `${url}${EVENTS_PATH}`, agent: config.agentUrl }, 'Slack bot listening');

  return {
    url,
    async close() {
      if (closing) return;
      // Not ready from here on; the port stays open (503 for events over HTTP) until the answers in flight are told.
      closing = true;
      await receiver.stopEvents();
      await turns.drain(CLOSE_GRACE_MS);
      await receiver.close();
    },
  };
}
