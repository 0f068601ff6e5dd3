import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
// Named imports: Node's ESM loader and vitest both resolve them from bolt's CommonJS build (a default import differs between the two).
import {
  App,
  defaultBodyLimit,
  HTTPModuleFunctions,
  HTTPReceiver,
  isRawBodyError,
  isValidSlackRequest,
  LogLevel,
  SocketModeReceiver,
  type Logger as BoltLogger,
  type webApi,
} from '@slack/bolt';
import { z } from 'zod';
import { QUESTION_MAX_CHARS } from '@flotilla/agent-kit';
import { FlotillaError, describeError, type Logger } from '@flotilla/core';
import { createMetrics, createSlackMetrics, zeroSlackSeries, type SlackAnswerOutcome, type SlackApiMethod } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { AgentFailure, ShutdownReason, TimeoutReason, askAgent, failureText } from './agent-client.js';
import { OPTION_ACTION_PREFIX, escapeMrkdwn, sliceChars, noteMessage, questionFromSlackText, renderAnswer, threadContextId, truncateChars, type SlackMessage } from './render.js';
import { checkSlackBotConfig, type SlackBotConfig } from './settings.js';

type WebClient = webApi.WebClient;

/** Progress edits of one answer's message: at most one per this many milliseconds (the last note wins). */
export const PROGRESS_INTERVAL_MS = 1000;
/** How long close() waits for answers in flight (they are told the bot is restarting) before it returns. */
const CLOSE_GRACE_MS = 5000;
/** Event ids remembered to drop Slack's redeliveries of an event. */
const SEEN_EVENTS_MAX = 1000;
/** Where Slack POSTs events and button presses. */
const EVENTS_PATH = '/slack/events';

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

/** A 503 from /slack/events while closing: Slack delivers the event again (to a replica that is not stopping). */
function refuseWhileClosing(receiver: HTTPReceiver, closing: () => boolean, endpoint: string): void {
  const next = receiver.requestListener;
  receiver.requestListener = (req, res) => {
    if (!closing() || req.method !== 'POST' || new URL(req.url ?? '/', 'http://localhost').pathname !== endpoint) return next(req, res);
    res.writeHead(503, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ status: 'not_ready', reason: 'shutting down' }));
  };
}

/**
 * The Socket Mode connection as the client reports it: connected from Slack's hello until the socket closes, or the
 * client reconnects or disconnects. A `close` of a socket already replaced by an open one does not count.
 */
function socketConnection(receiver: SocketModeReceiver, log: Logger): () => boolean {
  const client = receiver.client;
  let connected = false;
  const down = (state: string) => (): void => {
    if (state === 'close' && client.websocket?.isActive() === true) return;
    // A stop says 'disconnecting' first, so only a lost connection is logged.
    if (connected && state === 'close') log.warn('Socket Mode connection to Slack lost; the client reconnects');
    connected = false;
  };
  client.on('connected', () => {
    connected = true;
    log.info('Socket Mode connected to Slack');
  });
  for (const state of ['connecting', 'reconnecting', 'disconnecting', 'disconnected', 'close']) client.on(state, down(state));
  return () => connected;
}

/**
 * The question sent to the agent: its beginning, at most `maxTokens` tokens and the A2A kit's 2,000 characters
 * (cut to those characters first, so a huge message costs little to count), and whether it was cut.
 */
export function capQuestion(question: string, counter: TokenCounter, maxTokens: number): { question: string; cut: boolean } {
  const head = sliceChars(question, QUESTION_MAX_CHARS);
  const capped = counter.count(head) > maxTokens ? counter.truncate(head, maxTokens) : head;
  return { question: capped.trim(), cut: capped !== question };
}

/**
 * Bolt's receiver reads `body.ssl_check` of every signed request it parses, so a body of JSON `null` (or a form's
 * `payload=null`) throws outside any handler: an unhandled rejection, which stops the process, and a request never
 * answered. Such bodies are answered here as Bolt answers bad ones (400 signed, 401 not); every other request goes
 * on to Bolt with its body read (within Bolt's limit), which Bolt then uses as is.
 */
function answerNullBodies(receiver: HTTPReceiver, signingSecret: string, endpoint: string): void {
  const bolt = receiver.requestListener;
  const header = (value: string | string[] | undefined): string => (typeof value === 'string' ? value : '');
  receiver.requestListener = (req, res) => {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://localhost').pathname !== endpoint) return bolt(req, res);
    HTTPModuleFunctions.bufferIncomingMessage(req, defaultBodyLimit).then(
      (buffered) => {
        let parsed: unknown;
        try {
          parsed = HTTPModuleFunctions.parseHTTPRequestBody(buffered);
        } catch {
          parsed = undefined;
        }
        if (parsed !== null) return bolt(buffered, res);
        const signed = isValidSlackRequest({
          signingSecret,
          body: buffered.rawBody.toString(),
          headers: { 'x-slack-signature': header(req.headers['x-slack-signature']), 'x-slack-request-timestamp': Number(header(req.headers['x-slack-request-timestamp'])) },
        });
        HTTPModuleFunctions.buildNoBodyResponse(res, signed ? 400 : 401);
      },
      // The unread rest of the body stays on the socket: close it rather than read the next request from it.
      (error: unknown) => res.writeHead(isRawBodyError(error) && error.statusCode === 413 ? 413 : 401, { connection: 'close' }).end(),
    );
  };
}

/** Bolt's and the Web API client's logger, writing to pino. */
function boltLogger(logger: Logger): BoltLogger {
  const line = (parts: readonly unknown[]): string =>
    parts
      .map((p) => {
        if (typeof p === 'string') return p;
        if (p instanceof Error) return p.message;
        try {
          return JSON.stringify(p);
        } catch {
          return String(p);
        }
      })
      .join(' ');
  return {
    debug: (...msg: unknown[]) => logger.debug(line(msg)),
    info: (...msg: unknown[]) => logger.info(line(msg)),
    warn: (...msg: unknown[]) => logger.warn(line(msg)),
    error: (...msg: unknown[]) => logger.error(line(msg)),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}

/**
 * Edits one message with progress notes, at most once per `intervalMs`; the last note wins. stop() drops what
 * is pending and waits for an edit under way, so the answer that follows is never overwritten.
 */
class ProgressEditor {
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

interface Turn {
  readonly client: WebClient;
  readonly team: string;
  readonly channel: string;
  readonly threadTs: string;
  readonly text: string;
  readonly via: 'mention' | 'dm' | 'button';
  readonly user: string | undefined;
}

const HELP_TEXT = 'Ask me a question after the mention, for example "interfaces of every switch in ams1" or "which apps are out of sync in prod?". Reply in the thread to follow up.';

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
  const clientOptions: webApi.WebClientOptions = {
    ...(config.slackApiUrl === undefined ? {} : { slackApiUrl: config.slackApiUrl }),
    retryConfig: { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2000 },
    timeout: 15_000,
  };
  let started = false;
  let closing = false;
  let socketConnected: (() => boolean) | undefined;
  const readiness = (): Readiness => {
    if (closing) return { ready: false, reason: 'shutting down' };
    if (!started) return { ready: false, reason: 'starting' };
    if (socketConnected !== undefined && !socketConnected()) return { ready: false, reason: 'the Socket Mode connection to Slack is down (reconnecting)' };
    return { ready: true };
  };
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const routes: Readonly<Record<string, (req: IncomingMessage, res: ServerResponse) => void>> = {
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
  const slackLogger = boltLogger(logger.child({ component: 'bolt' }));
  const receiver = config.socketMode
    ? new SocketModeReceiver({
        appToken: config.appToken ?? '',
        logger: slackLogger,
        // The socket client's own Web API calls (apps.connections.open) go where the bot's do.
        installerOptions: { clientOptions: { ...clientOptions } },
      })
    : new HTTPReceiver({
        signingSecret: config.signingSecret ?? '',
        endpoints: EVENTS_PATH,
        customRoutes: Object.entries(routes).map(([path, handler]) => ({ path, method: ['GET'], handler })),
        logger: slackLogger,
      });
  if (receiver instanceof HTTPReceiver) {
    answerNullBodies(receiver, config.signingSecret ?? '', EVENTS_PATH);
    refuseWhileClosing(receiver, () => closing, EVENTS_PATH);
  } else {
    socketConnected = socketConnection(receiver, log);
  }
  const app = new App({
    token: config.botToken,
    receiver,
    logger: slackLogger,
    clientOptions,
    deferInitialization: true,
  });
  try {
    await app.init();
  } catch (error) {
    throw new FlotillaError('upstream_auth', `Slack refused the bot token (auth.test): ${describeError(error)}`, {
      remedy: 'Check FLOTILLA_SLACK_BOT_TOKEN (an xoxb- token of this workspace) and, if set, FLOTILLA_SLACK_API_URL.',
      cause: error,
    });
  }

  let active = 0;
  const running = new Set<Promise<void>>();
  const controllers = new Set<AbortController>();
  const seenEvents = new Set<string>();

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
    if (closing) controller.abort(new ShutdownReason());
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

  /** Starts answering a question in the background; more than maxInFlight at once get a "busy" reply. */
  const startTurn = (turn: Turn): void => {
    if (closing) return;
    const run = (async () => {
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
    })()
      .catch((error: unknown) => logFailure(error, 'answering in Slack failed', { channel: turn.channel }))
      .finally(() => running.delete(run));
    running.add(run);
  };

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
      const run = post(client, e.channel, threadTs, noteMessage(HELP_TEXT))
        .then(() => undefined)
        .catch((error: unknown) => logFailure(error, 'posting help failed'))
        .finally(() => running.delete(run));
      running.add(run);
      return;
    }
    startTurn({ client, team, channel: e.channel, threadTs, text, via, user: e.user });
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
    startTurn({ client, team, channel, threadTs, text: parsedAction.data.value, via: 'button', user: b.user.id });
  });
  app.error((error) => {
    logFailure(error, 'Slack event handling failed');
    return Promise.resolve();
  });

  let url: string;
  let probeServer: Server | undefined;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  if (receiver instanceof HTTPReceiver) {
    const server = await app.start({ port: config.port, host: config.host });
    url = `http://${host}:${(server.address() as AddressInfo).port}`;
  } else {
    // Socket Mode: events come over the socket; the probes and /metrics get a small server of its own, up first so
    // /readyz can say "starting" while the socket connects.
    const probes = createServer((req, res) => {
      const route = req.method === 'GET' ? routes[new URL(req.url ?? '/', 'http://localhost').pathname] : undefined;
      if (route !== undefined) route(req, res);
      else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve, reject) => {
      probes.once('error', reject);
      probes.listen(config.port, config.host, () => resolve());
    });
    probeServer = probes;
    url = `http://${host}:${(probes.address() as AddressInfo).port}`;
    try {
      await app.start();
    } catch (error) {
      await new Promise<void>((resolve) => probes.close(() => resolve()));
      throw new FlotillaError('upstream_unavailable', `could not open the Slack Socket Mode connection: ${describeError(error)}`, {
        remedy: 'Check FLOTILLA_SLACK_APP_TOKEN (an xapp- token with connections:write) and that Socket Mode is enabled for the app.',
        cause: error,
      });
    }
  }
  started = true;
  log.info({ url, events: receiver instanceof HTTPReceiver ? `${url}${EVENTS_PATH}` : 'socket mode', agent: config.agentUrl }, 'Slack bot listening');

  const stopReceiver = (): Promise<void> =>
    app.stop().then(
      () => undefined,
      (error: unknown) => log.warn({ err: error }, 'stopping the Slack receiver failed'),
    );
  return {
    url,
    async close() {
      if (closing) return;
      // Not ready from here on; the port stays open (503 for events over HTTP) until the answers in flight are told.
      closing = true;
      if (probeServer !== undefined) await stopReceiver();
      for (const controller of controllers) controller.abort(new ShutdownReason());
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...running]), new Promise<void>((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      clearTimeout(grace);
      if (probeServer === undefined) await stopReceiver();
      else {
        const server = probeServer;
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
