import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent, type RunningAgent } from '@flotilla/agent-argocd';
import { startA2AServer, type RunningA2AServer, textRequest } from '@flotilla/agent-kit';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent, type RunningNetBoxAgent } from '@flotilla/agent-netbox';
import { parseSettings, silentLogger } from '@flotilla/core';
import { createMetrics, type FlotillaMetrics } from '@flotilla/metrics';
import { loadTokenCounter } from '@flotilla/tokens';
import { startArgoCdSimulator, startNetBoxSimulator, type RunningNetBoxSimulator, type RunningSimulator } from '@flotilla/simulators';
import { staticAgentSource } from './discovery/types.js';
import { AgentRegistry } from './registry.js';
import { SUPERVISOR_SETTINGS, startSupervisor, type RunningSupervisor } from './start.js';
import { Supervisor, SUPERVISOR_LIMITS } from './supervisor.js';

const TOKEN = 'supervisor-test-token-0123';
let argoSim: RunningSimulator;
let netboxSim: RunningNetBoxSimulator;
let argocd: RunningAgent;
let netbox: RunningNetBoxAgent;
let slow: RunningA2AServer;
let chatty: RunningA2AServer;
let supervisor: RunningSupervisor;

interface Reply {
  readonly answer: string;
  readonly metadata: Record<string, unknown>;
  readonly notes: string[];
}

async function ask(url: string, question: string, contextId: string): Promise<Reply> {
  const client = await new ClientFactory().createFromUrl(url);
  let answer = '';
  let metadata: Record<string, unknown> = {};
  const notes: string[] = [];
  for await (const event of client.sendMessageStream(textRequest(question, contextId))) {
    const payload = event.payload;
    if (payload?.$case === 'statusUpdate') {
      const note = payload.value.status?.message?.parts[0]?.content;
      if (note?.$case === 'text') notes.push(note.value);
    } else if (payload?.$case === 'artifactUpdate') {
      const part = payload.value.artifact?.parts[0]?.content;
      if (part?.$case === 'text') answer = part.value;
      metadata = payload.value.artifact?.metadata ?? {};
    }
  }
  return { answer, metadata, notes };
}

const card = (name: string, tags: string[], examples: string[]) => ({
  name,
  description: `${name} for tests`,
  version: '0.0.1',
  skills: [{ id: name.toLowerCase().replace(/\W+/g, '-'), name, description: `${name} answers`, tags, examples }],
});

beforeAll(async () => {
  argoSim = await startArgoCdSimulator({ token: TOKEN });
  netboxSim = await startNetBoxSimulator({ token: TOKEN });
  argocd = await startArgoCdAgent(parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': argoSim.url, 'argocd-token': TOKEN }, {}, 'a'), silentLogger());
  netbox = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': netboxSim.url, 'netbox-token': TOKEN }, {}, 'n'), silentLogger());
  slow = await startA2AServer({
    agent: card('Weather agent', ['weather', 'forecast'], ['weather forecast for tomorrow']),
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    answer: () => new Promise((resolve) => setTimeout(() => resolve({ answer: 'sunny', options: [], metadata: {} }), 5_000)),
  });
  chatty = await startA2AServer({
    agent: card('Log agent', ['logs', 'syslog'], ['show the syslog of the routers']),
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    // It says what it is doing before it answers: the progress the supervisor relays (however fast the turn).
    answer: (_question, _contextId, progress) => {
      progress('Reading the syslog…');
      return Promise.resolve({ answer: Array.from({ length: 2_000 }, (_, i) => `log line ${i}: interface flap on port ${i % 48}`).join('\n'), options: ['next page'], metadata: {} });
    },
  });
  const agents = `argocd=${argocd.url},netbox=${netbox.url},weather=${slow.url},logs=${chatty.url}`;
  supervisor = await startSupervisor(parseSettings(SUPERVISOR_SETTINGS, { port: '0', agents, 'call-timeout-ms': '1500', 'reply-max-tokens': '3000' }, {}, 's'), silentLogger());
}, 60_000);

afterAll(async () => {
  await supervisor.close();
  await Promise.all([argocd.close(), netbox.close(), slow.close(), chatty.close()]);
  await Promise.all([argoSim.close(), netboxSim.close()]);
});

describe('supervisor over A2A', () => {
  it('reads every agent card at start', () => {
    expect(supervisor.registry.list().map((a) => [a.id, a.state])).toEqual([
      ['argocd', 'ready'],
      ['netbox', 'ready'],
      ['weather', 'ready'],
      ['logs', 'ready'],
    ]);
  });

  it('routes by skills and relays the agent\'s progress as its own status updates', async () => {
    const r = await ask(supervisor.url, 'which apps are out of sync in prod?', randomUUID());
    expect(r.metadata.routed).toBe('argocd');
    expect(r.answer).toMatch(/applications/);
    // The Argo CD agent's only note is "Working on it…" once a turn outlasts WORKING_NOTE_AFTER_MS: a fast turn has
    // none. The log agent says what it does on every turn.
    const logs = await ask(supervisor.url, 'show the syslog of the routers', randomUUID());
    expect(logs.metadata.routed).toBe('logs');
    expect(logs.notes).toContain('Log agent: Reading the syslog…');
  });

  it('forwards the conversation: "next batch" reaches the agent that answered', async () => {
    const contextId = randomUUID();
    const first = await ask(supervisor.url, 'interfaces of every switch in ams1', contextId);
    expect(first.metadata.routed).toBe('netbox');
    expect(first.answer).toMatch(/Batch 1 of/);
    const next = await ask(supervisor.url, 'next batch', contextId);
    expect(next.metadata.path).toBe('followup');
    expect(next.answer).toMatch(/Batch 2 of/);
  });

  it('fans out a question that spans domains and keeps both answers', async () => {
    const r = await ask(supervisor.url, 'which apps are out of sync in prod and which switches are offline in ams1?', randomUUID());
    expect(r.metadata.path).toBe('fanout');
    expect(String(r.metadata.routed).split(',').sort()).toEqual(['argocd', 'netbox']);
    expect(r.answer).toContain('*Flotilla Argo CD agent* (asked: "which apps are out of sync in prod")');
    expect(r.answer).toContain('*Flotilla NetBox agent* (asked: "which switches are offline in ams1?")');
    expect(r.answer).toMatch(/applications/);
    expect(r.answer).toMatch(/devices at ams1, role switch, status offline/);
  });

  it('cuts an over-budget reply to the budget with a pointer to the rest', async () => {
    const r = await ask(supervisor.url, 'show the syslog of the routers', randomUUID());
    expect(r.metadata.routed).toBe('logs');
    expect(r.answer).toMatch(/cut to 3000 of \d+ tokens by the supervisor/);
    expect(r.answer).toContain(chatty.url);
    expect(r.answer).toContain('log line 0:');
    expect(r.answer).not.toContain('log line 1999:');
  });

  it('answers clearly when an agent is slow (deadline) and never waits forever', async () => {
    // The weather agent answers after 5 s; the supervisor's 1.5 s deadline answers first.
    const r = await ask(supervisor.url, 'weather forecast for tomorrow', randomUUID());
    expect(r.answer).toMatch(/did not answer within 2 s/);
    expect(r.answer).not.toContain('sunny');
    expect(r.metadata.failed).toBe('weather');
  });

  it('one agent down still yields the other\'s answer, and names the one that failed', async () => {
    const extra = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': netboxSim.url, 'netbox-token': TOKEN }, {}, 'n2'), silentLogger());
    const second = await startSupervisor(parseSettings(SUPERVISOR_SETTINGS, { port: '0', agents: `argocd=${argocd.url},netbox=${extra.url}` }, {}, 's2'), silentLogger());
    try {
      await extra.close();
      const r = await ask(second.url, 'which apps are out of sync in prod and which switches are offline in ams1?', randomUUID());
      expect(r.answer).toMatch(/applications/);
      expect(r.answer).toMatch(/\*Flotilla NetBox agent\*: no answer — the Flotilla NetBox agent could not be reached/);
      expect(r.metadata.failed).toBe('netbox');
      expect(second.registry.get('netbox')?.state).toBe('unreachable');
    } finally {
      await second.close();
    }
  });

  it('says what it can do when no agent covers the question', async () => {
    const r = await ask(supervisor.url, 'order pizza for the team', randomUUID());
    expect(r.metadata.path).toBe('none');
    expect(r.answer).toMatch(/None of the agents I can reach covers this/);
    expect(r.answer).toContain('Flotilla NetBox agent');
  });

  it('answers "what can you do?" itself, with every agent and what each covers (issue 17)', async () => {
    for (const question of ['what can you do?', 'help', 'Hi, what can you do for me?']) {
      const r = await ask(supervisor.url, question, randomUUID());
      expect(r.metadata.path).toBe('help');
      expect(r.answer).not.toMatch(/None of/);
      expect(r.answer).toContain('Flotilla Argo CD agent');
      expect(r.answer).toContain('Flotilla NetBox agent');
      expect((r.metadata.options as unknown[]).length).toBeGreaterThan(0);
    }
  });

  it('answers a question for an agent that is down with "cannot be reached", not "none covers that" (issue 17)', async () => {
    const extra = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': netboxSim.url, 'netbox-token': TOKEN }, {}, 'n3'), silentLogger());
    const second = await startSupervisor(parseSettings(SUPERVISOR_SETTINGS, { port: '0', agents: `argocd=${argocd.url},netbox=${extra.url}` }, {}, 's3'), silentLogger());
    try {
      expect((await ask(second.url, 'which switches are offline in ams1?', randomUUID())).answer).not.toMatch(/cannot be reached/);
      await extra.close();
      // The first question after it went down finds out; the next is answered from what the registry knows.
      const first = await ask(second.url, 'which switches are offline in ams1?', randomUUID());
      expect(first.answer).toMatch(/NetBox agent (could not|cannot) be reached/);
      const next = await ask(second.url, 'interfaces of ams1-sw-001', randomUUID());
      // Refused, or reset when a pooled connection was just hung up: the reason in words either way.
      expect(next.answer).toMatch(/^The Flotilla NetBox agent \(netbox\) covers this, but I could not ask it: it cannot be reached \(connection (refused|reset|closed while reading)\)\./);
      expect(next.answer).not.toMatch(/None of/);
      const help = await ask(second.url, 'what can you do?', randomUUID());
      expect(help.answer).toMatch(/Flotilla NetBox agent \(not asked now: it cannot be reached \(connection (refused|reset|closed while reading)\)\)/);
    } finally {
      await second.close();
    }
  });
});

describe('supervisor conversation memory: bounded in entries and bytes', () => {
  let widgets: RunningA2AServer;
  const registries: AgentRegistry[] = [];
  beforeAll(async () => {
    widgets = await startA2AServer({
      agent: card('Widget agent', ['widgets', 'warehouse'], ['list the widgets in the warehouse']),
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      answer: () => Promise.resolve({ answer: '3 widgets (page 1 of 2)', options: ['next page'], metadata: {} }),
    });
  });
  afterAll(async () => {
    await Promise.all(registries.map((r) => r.close()));
    await widgets.close();
  });

  async function supervisorWith(metrics: FlotillaMetrics, limits: { readonly maxBytes: number; readonly maxEntryBytes: number }): Promise<Supervisor> {
    const registry = new AgentRegistry({ sources: [staticAgentSource([{ id: 'widgets', url: widgets.url }])], logger: silentLogger(), metrics, selfName: 'Supervisor under test' });
    registries.push(registry);
    await registry.start();
    return new Supervisor({ registry, counter: await loadTokenCounter(), metrics, logger: silentLogger(), conversationLimits: limits });
  }

  const value = async (metrics: FlotillaMetrics, name: 'storeBytes' | 'storeEntries' | 'storeEvictions', reason?: string): Promise<number | undefined> =>
    (await metrics[name].get()).values.find((v) => {
      const labels: Readonly<Record<string, unknown>> = v.labels;
      return labels.store === 'supervisor_conversation' && (reason === undefined || labels.reason === reason);
    })?.value;

  it('keeps its bytes under the cap over many conversations, forgets the least recently used, and reports it', async () => {
    const metrics = createMetrics();
    const supervisor = await supervisorWith(metrics, { maxBytes: 2_000, maxEntryBytes: 250 });
    // contextIds of ~185 characters (under the protocol's 256): ~200 bytes a conversation, 10 fit.
    const id = (i: number): string => `${'c'.repeat(180)}-${i}`;
    for (let i = 0; i < 40; i += 1) expect((await supervisor.answer('list the widgets in the warehouse', id(i))).metadata.routed).toBe('widgets');
    const bytes = (await value(metrics, 'storeBytes')) ?? 0;
    const entries = (await value(metrics, 'storeEntries')) ?? 0;
    expect(bytes).toBeGreaterThan(1_500);
    expect(bytes).toBeLessThanOrEqual(2_000);
    expect(entries).toBeGreaterThanOrEqual(8);
    expect(entries).toBeLessThan(40);
    expect(await value(metrics, 'storeEvictions', 'bytes_cap')).toBe(40 - entries);
    // The newest conversation continues with its agent; the oldest was forgotten.
    expect((await supervisor.answer('next page', id(39))).metadata.path).toBe('followup');
    expect((await supervisor.answer('next page', id(0))).metadata.path).toBe('none');
  });

  it('answers a conversation too large to remember, and says it will not follow up', async () => {
    const metrics = createMetrics();
    const supervisor = await supervisorWith(metrics, { maxBytes: 2_000, maxEntryBytes: 250 });
    const long = 'z'.repeat(245);
    const r = await supervisor.answer('list the widgets in the warehouse', long);
    expect(r.answer).toMatch(/^3 widgets \(page 1 of 2\)\n\n\(Not remembered for a follow-up such as "next page": the conversation memory is \d+ bytes; this agent keeps at most 250 bytes each\./);
    expect(r.metadata.remembered).toBe(false);
    expect(r.options).toEqual(['next page']);
    expect(await value(metrics, 'storeEntries')).toBe(0);
    expect((await supervisor.answer('next page', long)).metadata.path).toBe('none');
    // The default caps hold a protocol-sized contextId in any script.
    expect(SUPERVISOR_LIMITS.conversationMaxBytes).toBeGreaterThanOrEqual(256 * 4 + 4 * 64);
  });
});
