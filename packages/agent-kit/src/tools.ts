import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { FlotillaError } from '@flotilla/core';

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
  /** Start the upstream's simulator and use the tools in process against it. */
  readonly local: boolean;
  readonly upstreamUrl: string | undefined;
  readonly upstreamToken: string | undefined;
  /** How a person names the upstream settings, for the error when none is given. */
  readonly upstreamFlags: string;
  readonly startSimulator: (token: string) => Promise<S>;
  /** The tools in this process against the upstream (its client, result store, MCP server in memory). */
  readonly inProcess: (url: string, token: string) => Promise<ToolsConnection>;
}

/**
 * The three ways an agent reaches its tools: a remote MCP server (--mcp-url), the tools in process against the
 * real upstream (URL and token), or in process against a simulator it starts itself (--local).
 */
export async function connectTools<S extends { readonly url: string; close(): Promise<void> }>(
  options: ConnectToolsOptions<S>,
): Promise<ToolsConnection & { readonly simulator: S | undefined }> {
  if (options.mcpUrl !== undefined && !options.local) {
    const client = new Client({ name: `flotilla-${options.agent}-agent`, version: '0.1.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(options.mcpUrl)));
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
