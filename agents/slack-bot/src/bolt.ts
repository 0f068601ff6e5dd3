// Bolt, set up for the bot: the receiver (HTTP with Slack's signature checks, or Socket Mode with a small server of
// its own for the probes and /metrics), its guards (bodies of JSON null answered, events refused while closing),
// the Socket Mode connection state, Bolt's logger on pino, and the App, its bot token checked at start.
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
import { FlotillaError, describeError, type Logger } from '@flotilla/core';
import type { SlackBotConfig } from './settings.js';

/** Where Slack POSTs events and button presses. */
export const EVENTS_PATH = '/slack/events';

/** A GET endpoint of the bot's own (/healthz, /readyz, /metrics). */
export type Route = (req: IncomingMessage, res: ServerResponse) => void;

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

/** Bolt's App and its receiver, not yet taking events. */
export interface SlackReceiver {
  readonly app: App;
  /** In Socket Mode, whether the socket is connected to Slack; undefined over HTTP. */
  readonly socketConnected: (() => boolean) | undefined;
  /** Starts taking events; the base URL of the HTTP server (events over HTTP, the probes, /metrics). */
  start(): Promise<string>;
  /** In Socket Mode closes the socket, so no event arrives any more; over HTTP events are refused (503) while closing. */
  stopEvents(): Promise<void>;
  /** Closes the port: Bolt's HTTP server, or in Socket Mode the probes' server. */
  close(): Promise<void>;
}

export interface ReceiverOptions {
  readonly config: SlackBotConfig;
  /** The bot's logger (Bolt's own writes to a child of it). */
  readonly logger: Logger;
  readonly log: Logger;
  /** The bot's own GET endpoints, by path. */
  readonly routes: Readonly<Record<string, Route>>;
  /** Whether the bot is closing (events over HTTP are then refused). */
  readonly closing: () => boolean;
}

/** Bolt's App for `config`, its receiver guarded, the bot token checked (auth.test). */
export async function createSlackReceiver({ config, logger, log, routes, closing }: ReceiverOptions): Promise<SlackReceiver> {
  const clientOptions: webApi.WebClientOptions = {
    ...(config.slackApiUrl === undefined ? {} : { slackApiUrl: config.slackApiUrl }),
    retryConfig: { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2000 },
    timeout: 15_000,
  };
  let socketConnected: (() => boolean) | undefined;
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
    refuseWhileClosing(receiver, closing, EVENTS_PATH);
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

  let probeServer: Server | undefined;
  const stopReceiver = (): Promise<void> =>
    app.stop().then(
      () => undefined,
      (error: unknown) => log.warn({ err: error }, 'stopping the Slack receiver failed'),
    );
  return {
    app,
    socketConnected,
    async start() {
      const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
      if (receiver instanceof HTTPReceiver) {
        const server = await app.start({ port: config.port, host: config.host });
        return `http://${host}:${(server.address() as AddressInfo).port}`;
      }
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
      const url = `http://${host}:${(probes.address() as AddressInfo).port}`;
      try {
        await app.start();
      } catch (error) {
        await new Promise<void>((resolve) => probes.close(() => resolve()));
        throw new FlotillaError('upstream_unavailable', `could not open the Slack Socket Mode connection: ${describeError(error)}`, {
          remedy: 'Check FLOTILLA_SLACK_APP_TOKEN (an xapp- token with connections:write) and that Socket Mode is enabled for the app.',
          cause: error,
        });
      }
      return url;
    },
    async stopEvents() {
      if (probeServer !== undefined) await stopReceiver();
    },
    async close() {
      if (probeServer === undefined) await stopReceiver();
      else {
        const server = probeServer;
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
