import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, SdkHttpError, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { compiledOnFirstUse, describeError, FlotillaError, redactUrl, tokenSchema, type Logger, type SettingsSpec } from '@flotilla/core';
import type { AnswerTurn } from './executor.js';

/** The token an agent sends to its MCP server: one (the server takes several during a rotation), core's `tokenSchema`. */
export const McpClientTokenSchema = tokenSchema('the MCP token')
  .refine((value) => !value.includes(','), 'must be one token, without commas (the MCP server takes several for a rotation; an agent sends one)');

/** How a person names the agent's MCP token, in errors. */
const MCP_TOKEN_SETTING = '--mcp-token (FLOTILLA_MCP_TOKEN)';

/** Settings of an agent that reaches its tools over MCP: the credentials it sends to --mcp-url. */
export const MCP_CLIENT_SETTINGS = {
  mcpToken: {
    flag: 'mcp-token',
    env: 'FLOTILLA_MCP_TOKEN',
    schema: McpClientTokenSchema.optional(),
    help: 'Token sent as Authorization: Bearer to --mcp-url (one of the tokens the MCP server takes); only with --mcp-url',
    secret: true,
  },
} as const satisfies SettingsSpec;

/**
 * How an agent keeps reaching for its remote MCP server: in Kubernetes the two pods start in any order, and an MCP
 * server may be down for a while. The agent serves its card, probes and metrics meanwhile, not ready, and retries for
 * as long as it runs; it never exits for want of its tools.
 */
export const MCP_CONNECT_LIMITS = {
  /** The wait after the first failed attempt. */
  firstDelayMs: 500,
  /** Each further wait is this many times the one before… */
  factor: 2,
  /** …up to this: a server back after a long outage is found within this long. */
  maxDelayMs: 30_000,
  /** Each wait is shortened by a random share of up to this (wait × (1 − jitter × random)): replicas started together do not retry in step. */
  jitter: 0.5,
  /** One attempt (connect, then the agent's own preparation, such as listing the tools) is abandoned after this long: a server that takes the connection and never answers is retried like one that is down. */
  attemptTimeoutMs: 10_000,
  /** While attempts keep failing the same way, at most one log line per this long, counting the failures since the last one; a new kind of failure is logged at once. */
  logIntervalMs: 60_000,
  /** The error in a readiness reason and a log line is cut to this many characters. */
  errorMaxChars: 300,
} as const;
export type McpConnectLimits = { readonly [K in keyof typeof MCP_CONNECT_LIMITS]: number };

export interface ToolsConnection {
  /** An MCP client of the agent's tools, remote or in process. */
  readonly client: Client;
  close(): Promise<void>;
}

export interface ConnectToolsOptions<S extends { readonly url: string; close(): Promise<void> }, T> {
  /** The agent's name ("netbox"): names the MCP client. */
  readonly agent: string;
  /** A remote MCP server; wins unless `local`. */
  readonly mcpUrl: string | undefined;
  /** Sent as `Authorization: Bearer` on every request to `mcpUrl`; only with `mcpUrl` (and without `local`). */
  readonly mcpToken?: string | undefined;
  /** Start the upstream's simulator and use the tools in process against it. */
  readonly local: boolean;
  /** Told of the failed attempts to reach the remote MCP server (collapsed, MCP_CONNECT_LIMITS.logIntervalMs) and of the connection. */
  readonly logger?: Logger | undefined;
  /** Bounds of the retries to reach the remote MCP server (MCP_CONNECT_LIMITS by default); tests shorten them. */
  readonly connectLimits?: Partial<McpConnectLimits> | undefined;
  readonly upstreamUrl: string | undefined;
  readonly upstreamToken: string | undefined;
  /** How a person names the upstream settings, for the error when none is given. */
  readonly upstreamFlags: string;
  readonly startSimulator: (token: string) => Promise<S>;
  /** The tools in this process against the upstream (its client, result store, MCP server in memory). */
  readonly inProcess: (url: string, token: string) => Promise<ToolsConnection>;
  /**
   * What the agent builds from its connected tools (their capability index, the workflow answering over them). Part
   * of each attempt to reach a remote MCP server (a failure is retried like a failed connect); with tools in process,
   * a failure stops the start.
   */
  readonly prepare: (client: Client) => Promise<T>;
}

/** An agent's tools: in process (ready at once), or a remote MCP server reached in the background. */
export interface AgentTools<S, T> {
  /** The simulator started by `local`. */
  readonly simulator: S | undefined;
  /** What `prepare` built from the connected tools; undefined until the remote MCP server is reached. */
  readonly prepared: T | undefined;
  /**
   * Why the tools cannot be used yet, in one line: the MCP server (redacted), the last error and the attempts so far.
   * Undefined once connected (see {@link toolsReadiness}).
   */
  readonly notConnected: string | undefined;
  /** Settles (never rejects) when the first attempt ended, connected or not; at once for tools in process. */
  readonly firstAttempt: Promise<void>;
  /** Stops the retries (no timer or connection is left behind) and closes the tools. */
  close(): Promise<void>;
}

/** How an attempt to reach the MCP server failed: the reason and the log line say what an operator should do. */
type FailureKind = 'credentials' | 'unreachable' | 'server_error' | 'unexpected';

/** The status of an HTTP answer that failed the attempt, if it was one. */
function httpStatus(error: unknown): number | undefined {
  if (error instanceof UnauthorizedError) return 401;
  return error instanceof SdkHttpError && typeof error.status === 'number' ? error.status : undefined;
}

function failureKind(error: unknown): FailureKind {
  const status = httpStatus(error);
  if (status === 401 || status === 403) return 'credentials';
  if (status !== undefined) return status >= 500 ? 'server_error' : 'unexpected';
  // fetch's own failures (refused, not resolvable, reset) are TypeErrors with the system error as their cause.
  if (error instanceof TypeError || /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ETIMEDOUT|timed out|timeout/i.test(errorText(error))) return 'unreachable';
  return 'unexpected';
}

/** An error and its cause (fetch says only "fetch failed"; the cause says "connect ECONNREFUSED …") on one line. */
function errorText(error: unknown): string {
  const cause = error instanceof Error && error.cause !== undefined ? `: ${describeError(error.cause)}` : '';
  return `${describeError(error)}${cause}`.replace(/\s+/g, ' ').trim();
}

/** The one-line reason of a failed attempt, for /readyz, the log and the answer to a question asked meanwhile. */
function failureReason(kind: FailureKind, error: unknown, where: string, mcpToken: string | undefined, maxChars: number): string {
  const status = httpStatus(error);
  const cause = redactUrl(errorText(error)).slice(0, maxChars);
  switch (kind) {
    case 'credentials': {
      const why = mcpToken === undefined ? `it requires a token and ${MCP_TOKEN_SETTING} is not set` : `it does not take the token in ${MCP_TOKEN_SETTING}`;
      return `the MCP server at ${where} refused the agent's token (HTTP ${status}): ${why}; set ${MCP_TOKEN_SETTING} to one of the tokens the MCP server was started with`;
    }
    case 'unreachable':
      return `the MCP server at ${where} is not reachable (${cause})`;
    case 'server_error':
      return `the MCP server at ${where} answered HTTP ${status} (${cause})`;
    case 'unexpected':
      return `the MCP server at ${where} could not be used (${cause}); check that --mcp-url is its /mcp endpoint`;
  }
}

/** Settles with `work`, or rejects with the signal's reason when it aborts first (`work` is left to the caller to stop). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * A remote MCP server, reached in the background: attempt after attempt (connect with the token, then `prepare`),
 * backing off with jitter (MCP_CONNECT_LIMITS) for as long as the agent runs; `notConnected` says why meanwhile. A 401 or
 * 403 is retried too (the server's tokens may be rotated to take this one; a restart of the agent would not fix it),
 * but its reason and its error log name the setting to fix.
 */
function connectRemote<T>(agent: string, mcpUrl: string, mcpToken: string | undefined, prepare: (client: Client) => Promise<T>, logger: Logger | undefined, limits: McpConnectLimits): AgentTools<never, T> {
  const url = new URL(mcpUrl);
  const where = redactUrl(mcpUrl);
  const requestInit = mcpToken === undefined ? undefined : { headers: { authorization: `Bearer ${mcpToken}` } };
  const stop = new AbortController();
  let connected: { readonly client: Client; readonly prepared: T } | undefined;
  let notConnected: string | undefined = `connecting to the MCP server at ${where} (the first attempt)`;
  let firstAttemptDone: () => void = () => undefined;
  const firstAttempt = new Promise<void>((resolve) => (firstAttemptDone = resolve));

  /** One attempt: connect and prepare within the attempt's time, or reject (the client closed). */
  const attempt = async (): Promise<{ readonly client: Client; readonly prepared: T }> => {
    // Output validators compile when their tool is first called, not all at the first call.
    const client = new Client({ name: `flotilla-${agent}-agent`, version: '0.1.0' }, { jsonSchemaValidator: compiledOnFirstUse(new AjvJsonSchemaValidator()) });
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`timed out: no answer within ${limits.attemptTimeoutMs} ms`)), limits.attemptTimeoutMs);
    const signal = AbortSignal.any([stop.signal, timeout.signal]);
    try {
      const work = (async () => {
        await client.connect(new StreamableHTTPClientTransport(url, requestInit === undefined ? {} : { requestInit }), { signal, timeout: limits.attemptTimeoutMs });
        return prepare(client);
      })();
      return { client, prepared: await unlessAborted(work, signal) };
    } catch (error) {
      // Closing the client also ends a request still in flight.
      await client.close().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };

  const loop = (async () => {
    const since = new Date();
    let delay = limits.firstDelayMs;
    let lastKind: FailureKind | undefined;
    let lastLogged = -Infinity;
    let unlogged = 0;
    for (let attempts = 1; !stop.signal.aborted; attempts += 1) {
      try {
        const done = await attempt();
        if (stop.signal.aborted) {
          await done.client.close().catch(() => undefined);
          return;
        }
        connected = done;
        notConnected = undefined;
        logger?.info({ mcp: where, attempts, waitedMs: Date.now() - since.getTime() }, 'connected to the MCP server');
        return;
      } catch (error) {
        if (stop.signal.aborted) return;
        const kind = failureKind(error);
        const reason = failureReason(kind, error, where, mcpToken, limits.errorMaxChars);
        notConnected = `${reason}; retrying (${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} since ${since.toISOString()})`;
        const wait = Math.round(delay * (1 - limits.jitter * Math.random()));
        unlogged += 1;
        // A long outage is one line a minute, not one per attempt; a new kind of failure is news at once.
        if (kind !== lastKind || performance.now() - lastLogged >= limits.logIntervalMs) {
          const fields = { mcp: where, reason, attempts, failuresSinceLastLog: unlogged, retryInMs: wait };
          if (kind === 'credentials') logger?.error(fields, "the MCP server refused the agent's token; retrying (fix --mcp-token)");
          else if (kind === 'unexpected') logger?.warn(fields, 'the MCP server could not be used; retrying (check --mcp-url)');
          else logger?.warn(fields, 'MCP server not reachable yet; retrying');
          lastKind = kind;
          lastLogged = performance.now();
          unlogged = 0;
        }
        if (attempts === 1) firstAttemptDone();
        await sleep(wait, undefined, { signal: stop.signal }).catch(() => undefined);
        delay = Math.min(delay * limits.factor, limits.maxDelayMs);
      }
    }
  })().finally(() => firstAttemptDone());

  return {
    simulator: undefined,
    get prepared() {
      return connected?.prepared;
    },
    get notConnected() {
      return notConnected;
    },
    firstAttempt,
    async close() {
      stop.abort(new Error('the agent is closing'));
      await loop;
      await connected?.client.close();
    },
  };
}

/** The retry bounds with the overrides, each a positive number (the jitter a share from 0 to 1). */
function connectLimitsFrom(overrides: Partial<McpConnectLimits> | undefined): McpConnectLimits {
  const limits = { ...MCP_CONNECT_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    const valid = name === 'jitter' ? value >= 0 && value <= 1 : Number.isFinite(value) && value > 0;
    if (!valid) throw new FlotillaError('config_invalid', `the MCP connect limit ${name} must be ${name === 'jitter' ? 'from 0 to 1' : 'a positive number'}, not ${value}`);
  }
  return limits;
}

/**
 * The three ways an agent reaches its tools: a remote MCP server (--mcp-url, with --mcp-token when the server
 * requires one), reached in the background and retried until it answers (see `AgentTools.notConnected`); the tools in
 * process against the real upstream (URL and token); or in process against a simulator it starts itself (--local).
 * A token without a remote MCP server to send it to, or an --mcp-url that is no http(s) URL or carries credentials,
 * is refused at once: retrying could not fix it, and an ignored token hides a configuration mistake.
 */
export async function connectTools<S extends { readonly url: string; close(): Promise<void> }, T>(options: ConnectToolsOptions<S, T>): Promise<AgentTools<S, T>> {
  const remote = options.mcpUrl !== undefined && !options.local;
  if (options.mcpToken !== undefined && !remote) {
    throw new FlotillaError('config_invalid', `${MCP_TOKEN_SETTING} is set but there is no remote MCP server to send it to: it is only used with --mcp-url (and without --local)`, {
      remedy: 'Set --mcp-url to the MCP server that takes the token, or unset --mcp-token.',
    });
  }
  const limits = connectLimitsFrom(options.connectLimits);
  if (remote && options.mcpUrl !== undefined) {
    const url = URL.canParse(options.mcpUrl) ? new URL(options.mcpUrl) : undefined;
    if (url === undefined || !/^https?:$/.test(url.protocol) || url.username !== '' || url.password !== '') {
      throw new FlotillaError('config_invalid', `--mcp-url must be an http(s) URL without credentials, not ${redactUrl(options.mcpUrl)}`, {
        remedy: `Set --mcp-url to the MCP server's endpoint, e.g. http://flotilla-argocd-mcp:8091/mcp, and its token in ${MCP_TOKEN_SETTING}.`,
      });
    }
    return connectRemote(options.agent, options.mcpUrl, options.mcpToken, options.prepare, options.logger, limits);
  }
  let simulator: S | undefined;
  let url = options.upstreamUrl;
  let token = options.upstreamToken;
  if (options.local) {
    token = randomBytes(20).toString('hex');
    simulator = await options.startSimulator(token);
    url = simulator.url;
  }
  if (url === undefined || token === undefined) {
    throw new FlotillaError('config_invalid', `set --mcp-url, or ${options.upstreamFlags}, or --local`, { remedy: 'Run the command with --help for the settings.' });
  }
  let tools: ToolsConnection | undefined;
  let prepared: T;
  try {
    tools = await options.inProcess(url, token);
    prepared = await options.prepare(tools.client);
  } catch (error) {
    await tools?.close();
    await simulator?.close();
    throw error;
  }
  const inProcess = tools;
  return {
    simulator,
    prepared,
    notConnected: undefined,
    firstAttempt: Promise.resolve(),
    async close() {
      await inProcess.close();
      await simulator?.close();
    },
  };
}

/** The agent's readiness reason (its A2A server's /readyz) while its tools are not connected; undefined once they are. */
export function toolsReadiness(tools: Pick<AgentTools<unknown, unknown>, 'notConnected'>): () => string | undefined {
  return () => (tools.notConnected === undefined ? undefined : `tools not connected yet: ${tools.notConnected}`);
}

/** The answer to a question asked before the agent's tools are connected: nothing was looked up, and why. */
export function toolsNotConnectedAnswer(why: string): string {
  return `My tools are not connected yet, so I have not looked anything up: ${why}. I keep retrying on my own; ask again in a few seconds.`;
}

/**
 * The agent's answer: the one its connected tools prepared, or, while they are not connected, an immediate answer
 * saying so (never an error, never a wait), after `onNotConnected` (the turn's metric).
 */
export function answerWhenConnected(tools: Pick<AgentTools<unknown, AnswerTurn>, 'prepared' | 'notConnected'>, onNotConnected?: () => void): AnswerTurn {
  return (question, contextId, progress, signal) => {
    const answer = tools.prepared;
    if (answer !== undefined) return answer(question, contextId, progress, signal);
    onNotConnected?.();
    return Promise.resolve({
      answer: toolsNotConnectedAnswer(tools.notConnected ?? 'they are being connected'),
      options: [],
      metadata: { error: 'tools_not_connected', intent: 'none', strategy: 'none', tool_calls: 0 },
    });
  };
}
