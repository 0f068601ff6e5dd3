import { defineCommand, type Command } from '../cli.js';
import type { DomainAgentEntry } from './registry.js';

/** `flotilla agent <name>`: the registry's agent, loaded only now, with the CLI's simulator for --local. */
export async function agentCommand(entry: DomainAgentEntry): Promise<Command> {
  const agent = await entry.agent.load();
  return defineCommand({
    path: ['agent', entry.name],
    summary: entry.agent.summary,
    description: entry.agent.description,
    settings: agent.settings,
    examples: entry.agent.examples,
    run: ({ settings, logger }) => agent.startAgent(settings, logger, { simulator: entry.startSimulator }),
  });
}

/** `flotilla mcp <name>`: the registry's MCP server, through the agent's light entry point (no agent, no simulator). */
export async function mcpCommand(entry: DomainAgentEntry): Promise<Command> {
  const mcp = await entry.mcp.load();
  return defineCommand({
    path: ['mcp', entry.name],
    summary: entry.mcp.summary,
    description: entry.mcp.description,
    settings: mcp.settings,
    examples: entry.mcp.examples,
    run: ({ settings, logger }) => mcp.startMcpServer(settings, { logger }),
  });
}
