import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ClientFactory } from '@a2a-js/sdk/client';
import { createRulesClassifier, textRequest, type AgentDomain, type Classification } from '@flotilla/agent-kit';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { createDomainWorkflow, defineDomainAgent, type DomainAgentContext, type DomainAnswerer, type RunningDomainAgent } from './index.js';
import { defineDomainMcp, domainAccess } from './mcp.js';

/**
 * The guide for the next agent author: a whole domain agent in one file. A toy "fleet" domain (a list of boats) is
 * defined with the host, started, and asked over real A2A on 127.0.0.1. A real domain puts each part in its own file:
 * `config.ts` (the access), `server.ts` (the MCP half), `agent/intents.ts`, `agent/domain.ts`, `agent/start.ts`, and an
 * entry in the CLI's registry of domain agents (packages/cli/src/commands/registry.ts).
 */

// 1. The upstream's client. A real one wraps `UpstreamHttp` (byte cap, timeout, retries); this one holds its boats.
class FleetClient {
  constructor(readonly boats: readonly { readonly name: string; readonly port: string }[]) {}
}

// 2. Where the upstream is and how it is read: `--fleet-url`, `--fleet-token` and these settings come from it.
const FLEET_ACCESS = domainAccess({
  name: 'fleet',
  title: 'Fleet',
  port: 8095,
  upstream: { urlHelp: 'Fleet API URL', tokenHelp: 'Fleet API token', tokenName: 'the Fleet token', settings: {} },
});

// 3. The MCP half: the tools, registered through bounded-tools (paging, budgets and isError results come with it).
const FLEET_MCP = defineDomainMcp({
  access: FLEET_ACCESS,
  version: '0.1.0',
  instructions: 'Fleet, read-only: list_boats pages the boats.',
  tools: ['list_boats', 'read_result'],
  createClient: () => new FleetClient([{ name: 'aurora', port: 'oslo' }, { name: 'borealis', port: 'bergen' }, { name: 'cirrus', port: 'oslo' }]),
  registerTools(kit, deps) {
    kit.registerList({
      name: 'list_boats',
      description: 'List the boats of the fleet, one page at a time, with their home port.',
      itemKind: 'boats',
      filters: z.strictObject({ port: z.string().min(1).max(64).optional().describe('Home port.') }),
      load: (filters) => Promise.resolve(deps.client.boats.filter((b) => filters.port === undefined || b.port === filters.port)),
    });
    kit.registerReadResult();
  },
});

// 4. The rules classifier: weighted patterns per intent, entities with the spans they read.
type FleetIntent = 'list_boats' | 'help' | 'unknown';
const classifier = createRulesClassifier<FleetIntent>({
  rules: [
    { intent: 'list_boats', complexity: 'simple', patterns: [{ pattern: /\b(list|which|boats?)\b/, weight: 1 }] },
    { intent: 'help', complexity: 'simple', patterns: [{ pattern: /^help$/, weight: 0.95 }] },
  ],
  entities: [{ name: 'port', extract: (_q, normalised) => /\bin (oslo|bergen)\b/.exec(normalised)?.[1] }],
  fallback: 'unknown',
});

// 5. The domain: a plan of tool calls per intent, and the answer from their results.
const domain: AgentDomain<FleetIntent, undefined> = {
  plan: (c: Classification<FleetIntent>) => (c.intent === 'list_boats' ? [{ tool: 'list_boats', args: c.entities.port === undefined ? {} : { port: c.entities.port } }] : []),
  respond: ({ results }) => {
    const body = results[0]?.body as { total?: number; items?: { name: string }[] } | undefined;
    if (body === undefined) return { text: 'I list the boats of the fleet: ask "which boats are in oslo?"', options: ['list boats'], memory: undefined };
    return { text: `${body.total ?? 0} boats: ${(body.items ?? []).map((b) => b.name).join(', ')}`, options: [], memory: undefined };
  },
};

// 6. The agent: card and skills, prompt, classifier, and the workflow over the connected tools. The host does the rest.
const FLEET_AGENT = defineDomainAgent({
  mcp: FLEET_MCP,
  card: { name: 'Fleet agent', description: 'Answers questions about the fleet.', version: '0.1.0', skills: [{ id: 'fleet-boats', name: 'Boats', description: 'List boats by port.', tags: ['fleet'], examples: ['which boats are in oslo?'] }] },
  skillOf: { list_boats: 'fleet-boats', help: 'none', unknown: 'none' },
  port: 8096,
  prompt: 'You answer questions about the fleet.',
  help: { url: 'Fleet API, for in-process tools', token: 'Fleet token, for in-process tools', local: 'Also start the Fleet simulator' },
  classifier: () => classifier,
  createAgent: (context: DomainAgentContext<FleetClient, FleetIntent, undefined, unknown>): DomainAnswerer<FleetIntent> => createDomainWorkflow({ ...context, classifier, domain, cacheableIntents: ['list_boats'] }),
});

// 7. Started like `flotilla agent fleet --fleet-url … --fleet-token …` would start it (the tools in process, in memory).
let agent: RunningDomainAgent;
beforeAll(async () => {
  const config = parseSettings(FLEET_AGENT.settings, { port: '0', 'fleet-url': 'http://127.0.0.1:9', 'fleet-token': 'fleet-token', 'log-level': 'silent' }, {}, 'test');
  agent = await FLEET_AGENT.startAgent(config, silentLogger());
});
afterAll(async () => {
  await agent?.close();
});

describe('a toy domain agent defined with the host', () => {
  it('takes its settings from its name, and answers over A2A through its own tool, metered under its name', async () => {
    expect(Object.values(FLEET_AGENT.settings).map((s) => s.flag)).toEqual(expect.arrayContaining(['fleet-url', 'fleet-token', 'mcp-url', 'local', 'redis-url', 'mode']));
    expect(FLEET_AGENT.settings.port.env).toBe('FLOTILLA_FLEET_AGENT_PORT');
    expect(FLEET_MCP.settings.port.env).toBe('FLOTILLA_FLEET_MCP_PORT');
    const client = await new ClientFactory().createFromUrl(agent.url);
    const reply = JSON.stringify(await client.sendMessage(textRequest('which boats are in oslo?', randomUUID())));
    expect(reply).toContain('2 boats: aurora, cirrus');
    const metrics = await (await fetch(`${agent.url}/metrics`)).text();
    expect(metrics).toContain(`${METRIC.agentTurns}{agent="fleet",skill="fleet-boats",path="direct",outcome="answered"} 1`);
  });

  it('refuses --local when the caller brings no simulator, naming what to do', async () => {
    const config = parseSettings(FLEET_AGENT.settings, { port: '0', local: 'true', 'log-level': 'silent' }, {}, 'test');
    await expect(FLEET_AGENT.startAgent(config, silentLogger())).rejects.toThrow(/--local needs the Fleet simulator/);
  });
});
