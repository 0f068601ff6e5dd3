import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { Client, SdkHttpError, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { describeError, FlotillaError, redactUrl, type Logger, type SettingsSpec } from '@flotilla/core';

/** The token an agent sends to its MCP server: one (the server takes several during a rotation), 16-512 characters. */
export const McpClientTokenSchema = z
  .string()
  .trim()
  .min(16, 'must be at least 16 characters')
  .max(512, 'must be at most 512 characters')
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

export interface ToolsConnection {
  /** An MCP client of the agent's tools, remote or in process. */
  readonly client: Client;
  close(): Promise<void>;
}

export interface ConnectToolsOptions<S extends { readonly url: string; close(): Promise<void> }> {
  /** The agent's name ("netbox"): names the MCP client. */
  readonly agent: string;
  /** A remote MCP server; wins unless `local`. */
  readonly mcpUrl: string | undefined;
  /** Sent as `Authorization: Bearer` on every request to `mcpUrl`; only with `mcpUrl` (and without `local`). */
  readonly mcpToken?: string | undefined;
  /** Start the upstream's simulator and use the tools in process against it. */
  readonly local: boolean;
  /** Told of each retry while the remote MCP server is not up yet. */
  readonly logger?: Logger | undefined;
  /** How long to wait for the remote MCP server at start (default MCP_CONNECT_LIMITS.waitMs). */
  readonly connectWaitMs?: number | undefined;
  readonly upstreamUrl: string | undefined;
  readonly upstreamToken: string | undefined;
  /** How a person names the upstream settings, for the error when none is given. */
  readonly upstreamFlags: string;
  readonly startSimulator: (token: string) => Promise<S>;
  /** The tools in this process against the upstream (its client, result store, MCP server in memory). */
  readonly inProcess: (url: string, token: string) => Promise<ToolsConnection>;
}

/** Whether connecting failed because the MCP server answered 401 (no token, or not one it takes). */
function refusedCredentials(error: unknown): boolean {
  return error instanceof UnauthorizedError || (error instanceof SdkHttpError && error.status === 401);
}

/**
 * How long an agent waits at start for its MCP server to come up (in Kubernetes the two pods start in any order):
 * connection failures and 5xx answers are retried, from 0.5 s doubling to 5 s, for at most 60 s; anything else fails
 * at once.
 */
export const MCP_CONNECT_LIMITS = { waitMs: 60_000, firstDelayMs: 500, maxDelayMs: 5_000 } as const;

/** Whether a failed connect may succeed later: the server is not listening yet, not resolvable yet, or answered 5xx. */
function worthRetrying(error: unknown): boolean {
  if (error instanceof SdkHttpError) return error.status >= 500;
  return error instanceof TypeError || (error instanceof Error && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|timeout/i.test(`${error.message} ${describeError(error.cause)}`));
}

/**
 * A remote MCP server, sending the token on every request; waits for it to come up (MCP_CONNECT_LIMITS); a 401 at
 * connect is a configuration error naming the setting.
 */
async function connectRemote(agent: string, mcpUrl: string, mcpToken: string | undefined, logger: Logger | undefined, waitMs: number): Promise<Client> {
  const requestInit = mcpToken === undefined ? undefined : { headers: { authorization: `Bearer ${mcpToken}` } };
  const until = performance.now() + waitMs;
  let delay: number = MCP_CONNECT_LIMITS.firstDelayMs;
  for (;;) {
    const client = new Client({ name: `flotilla-${agent}-agent`, version: '0.1.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), requestInit === undefined ? {} : { requestInit }));
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      if (!refusedCredentials(error) && worthRetrying(error) && performance.now() + delay < until) {
        logger?.warn({ mcp: redactUrl(mcpUrl), err: describeError(error), retryInMs: delay }, 'MCP server not reachable yet; retrying');
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, MCP_CONNECT_LIMITS.maxDelayMs);
        continue;
      }
      if (!refusedCredentials(error)) throw error;
      throw credentialsRefused(mcpUrl, mcpToken, error);
    }
  }
}

/** The configuration error for a 401 at connect, naming the setting. */
function credentialsRefused(mcpUrl: string, mcpToken: string | undefined, error: unknown): FlotillaError {
  const why = mcpToken === undefined ? `it requires a token and ${MCP_TOKEN_SETTING} is not set` : `it does not take the token in ${MCP_TOKEN_SETTING}`;
  return new FlotillaError('config_invalid', `the MCP server at ${redactUrl(mcpUrl)} refused the agent (HTTP 401): ${why}`, {
    remedy: `Set ${MCP_TOKEN_SETTING} to one of the tokens the MCP server was started with (its --mcp-token / FLOTILLA_MCP_TOKEN).`,
    cause: error,
  });
}

/**
 * The three ways an agent reaches its tools: a remote MCP server (--mcp-url, with --mcp-token when the server
 * requires one), the tools in process against the real upstream (URL and token), or in process against a
 * simulator it starts itself (--local). A token without a remote MCP server to send it to is refused: it would
 * be ignored, which hides a configuration mistake.
 */
export async function connectTools<S extends { readonly url: string; close(): Promise<void> }>(
  options: ConnectToolsOptions<S>,
): Promise<ToolsConnection & { readonly simulator: S | undefined }> {
  const remote = options.mcpUrl !== undefined && !options.local;
  if (options.mcpToken !== undefined && !remote) {
    throw new FlotillaError('config_invalid', `${MCP_TOKEN_SETTING} is set but there is no remote MCP server to send it to: it is only used with --mcp-url (and without --local)`, {
      remedy: 'Set --mcp-url to the MCP server that takes the token, or unset --mcp-token.',
    });
  }
  if (remote && options.mcpUrl !== undefined) {
    const client = await connectRemote(options.agent, options.mcpUrl, options.mcpToken, options.logger, options.connectWaitMs ?? MCP_CONNECT_LIMITS.waitMs);
    return { client, simulator: undefined, close: () => client.close() };
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
  const tools = await options.inProcess(url, token);
  return {
    client: tools.client,
    simulator,
    async close() {
      await tools.close();
      await simulator?.close();
    },
  };
}
