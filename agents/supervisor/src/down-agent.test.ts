import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { startA2AServer, textRequest, type RunningA2AServer } from '@flotilla/agent-kit';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { unreachableReason } from './registry.js';
import { SUPERVISOR_SETTINGS, startSupervisor, type RunningSupervisor } from './start.js';

/**
 * A domain agent that is down is named in the answer with why, never hidden behind "none of my agents covers
 * that", and the turn does not count as answered: `failed` when nothing was answered (the A2A error alert counts
 * it), `tool_error` when only part was. Real A2A servers on 127.0.0.1; the metrics read as Prometheus reads them.
 */
const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close();
});

/** A port on loopback with nothing listening (asked of the kernel, then released). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function widgetAgent(): Promise<RunningA2AServer> {
  const agent = await startA2AServer({
    agent: {
      name: 'Widget agent',
      description: 'Widget agent for tests',
      version: '0.0.1',
      skills: [{ id: 'widgets', name: 'Widget agent', description: 'Widgets in the warehouse', tags: ['widgets', 'warehouse'], examples: ['list the widgets in the warehouse'] }],
    },
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    answer: () => Promise.resolve({ answer: '3 widgets', options: [], metadata: {} }),
  });
  running.push(agent);
  return agent;
}

async function supervisorOver(agents: string): Promise<RunningSupervisor> {
  const supervisor = await startSupervisor(parseSettings(SUPERVISOR_SETTINGS, { port: '0', agents, 'log-level': 'silent' }, {}, 'down'), silentLogger());
  running.push(supervisor);
  return supervisor;
}

async function ask(url: string, question: string): Promise<{ answer: string; metadata: Record<string, unknown> }> {
  const client = await new ClientFactory().createFromUrl(url);
  const result = await client.sendMessage(textRequest(question, randomUUID()));
  if (!('artifacts' in result)) throw new Error('the supervisor answered with a message, not a task');
  const artifact = result.artifacts[0];
  const part = artifact?.parts[0]?.content;
  return { answer: part?.$case === 'text' ? part.value : '', metadata: artifact?.metadata ?? {} };
}

/** One sample of the supervisor's /metrics text, e.g. `flotilla_agent_turns_total{agent="supervisor",…}`; undefined when absent. */
async function sample(supervisor: RunningSupervisor, name: string, labels: Readonly<Record<string, string>>): Promise<number | undefined> {
  const text = await supervisor.metrics.registry.metrics();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.indexOf('}'));
    const have = inner.split(',');
    if (wanted.length === have.length && wanted.every((w) => have.includes(w))) return Number(line.slice(line.indexOf('}') + 1));
  }
  return undefined;
}

const turn = (outcome: string) => ({ agent: 'supervisor', skill: 'route', path: 'direct', outcome });

describe('a domain agent that is down', () => {
  it('has its delegation series and the supervisor its turn series at zero from the start', async () => {
    const widgets = await widgetAgent();
    const supervisor = await supervisorOver(`widgets=${widgets.url},argocd=${await deadUrl()}`);
    for (const outcome of ['answered', 'tool_error', 'failed', 'timed_out']) expect(await sample(supervisor, METRIC.agentTurns, turn(outcome))).toBe(0);
    for (const agent of ['widgets', 'argocd']) {
      for (const outcome of ['ok', 'failed', 'timeout', 'rejected']) expect(await sample(supervisor, METRIC.supervisorDelegations, { agent, outcome })).toBe(0);
    }
  });

  it('never read (nothing listening at its URL): the answer names it and why, and the turn is failed', async () => {
    const supervisor = await supervisorOver(`argocd=${await deadUrl()}`);
    expect(supervisor.registry.list().map((a) => [a.id, a.state, a.error])).toEqual([['argocd', 'unreachable', 'connection refused']]);
    const r = await ask(supervisor.url, 'which apps are out of sync in prod?');
    expect(r.answer).toBe(
      'I could not ask argocd: it cannot be reached (connection refused). No agent I can reach is left to ask; try again in a moment. ' +
        'I have not read what argocd covers, so it may be the one for this: ask again when it is back.',
    );
    expect(r.answer).not.toMatch(/None of my agents/);
    expect(r.metadata).toMatchObject({ path: 'none', failed: 'argocd', down: 'argocd', delegations: 0 });
    expect(await sample(supervisor, METRIC.agentTurns, turn('failed'))).toBe(1);
    expect(await sample(supervisor, METRIC.agentTurns, turn('answered'))).toBe(0);
    expect(await sample(supervisor, METRIC.supervisorAgents, { status: 'unreachable' })).toBe(1);
    expect(await sample(supervisor, METRIC.supervisorAgents, { status: 'ready' })).toBe(0);
    // Per agent, for FlotillaAgentUnreachable: 1 for its state, 0 for the others.
    expect(await sample(supervisor, METRIC.supervisorAgentState, { agent: 'argocd', state: 'unreachable' })).toBe(1);
    expect(await sample(supervisor, METRIC.supervisorAgentState, { agent: 'argocd', state: 'ready' })).toBe(0);
    expect(await sample(supervisor, METRIC.supervisorCardFailures, { reason: 'unreachable' })).toBeGreaterThanOrEqual(1);
    // Not asked: no delegation was attempted (the gauge and the card failures say it is down).
    expect(await sample(supervisor, METRIC.supervisorDelegations, { agent: 'argocd', outcome: 'failed' })).toBe(0);
  });

  it('beside one that is up: named, and "none of the agents I can reach" is all that is claimed', async () => {
    const widgets = await widgetAgent();
    const supervisor = await supervisorOver(`widgets=${widgets.url},argocd=${await deadUrl()}`);
    const r = await ask(supervisor.url, 'which apps are out of sync in prod?');
    expect(r.answer).toMatch(/^I could not ask argocd: it cannot be reached \(connection refused\)\. None of the agents I can reach covers this\. I can ask: Widget agent \(Widget agent\)\. I have not read what argocd covers, so it may be the one for this/);
    expect(await sample(supervisor, METRIC.agentTurns, turn('failed'))).toBe(1);
    // A question the agent that is up answers is answered, and says which agent it did not ask.
    const widgetsAnswer = await ask(supervisor.url, 'list the widgets in the warehouse');
    expect(widgetsAnswer.answer).toBe(
      '3 widgets\n\n(Not asked: argocd, which cannot be reached (connection refused). I have not read what it covers, so part of this may be for it.)',
    );
    expect(await sample(supervisor, METRIC.agentTurns, turn('answered'))).toBe(1);
  });

  it('stopped after its card was read: the failed delegation names it, and the turn is failed, then partial beside another', async () => {
    const widgets = await widgetAgent();
    const gadgets = await startA2AServer({
      agent: {
        name: 'Gadget agent',
        description: 'Gadget agent for tests',
        version: '0.0.1',
        skills: [{ id: 'gadgets', name: 'Gadget agent', description: 'Gadgets on the shelves', tags: ['gadgets', 'shelves'], examples: ['which gadgets are on the shelves'] }],
      },
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      answer: () => Promise.resolve({ answer: '2 gadgets', options: [], metadata: {} }),
    });
    const supervisor = await supervisorOver(`widgets=${widgets.url},gadgets=${gadgets.url}`);
    expect((await ask(supervisor.url, 'which gadgets are on the shelves')).answer).toBe('2 gadgets');
    await gadgets.close();

    // Refused, or (a pooled connection the closed server had just hung up) reset: both say why in words.
    const why = '(connection refused|connection reset|connection closed while reading)';
    const first = await ask(supervisor.url, 'which gadgets are on the shelves');
    expect(first.answer).toMatch(new RegExp(`^I could not get an answer: the Gadget agent could not be reached \\(${why}\\)\\. Try again in a moment; if it keeps failing, the Gadget agent needs attention\\.$`));
    expect(first.metadata.failed).toBe('gadgets');
    expect(await sample(supervisor, METRIC.supervisorDelegations, { agent: 'gadgets', outcome: 'failed' })).toBe(1);
    expect(await sample(supervisor, METRIC.supervisorAgents, { status: 'unreachable' })).toBe(1);
    expect(supervisor.registry.get('gadgets')?.error).toMatch(new RegExp(`^${why}$`));

    // Its skills are known from its card: it is named as the agent that covers the question.
    const second = await ask(supervisor.url, 'which gadgets are on the shelves');
    expect(second.answer).toMatch(new RegExp(`^The Gadget agent \\(gadgets\\) covers this, but I could not ask it: it cannot be reached \\(${why}\\)\\.`));
    expect(await sample(supervisor, METRIC.agentTurns, turn('failed'))).toBe(2);
    expect(await sample(supervisor, METRIC.supervisorDelegations, { agent: 'gadgets', outcome: 'failed' })).toBe(2);

    // A question for both: the widgets part is answered, the gadgets part named as failed; partial, so tool_error.
    const both = await ask(supervisor.url, 'list the widgets in the warehouse and which gadgets are on the shelves');
    expect(both.answer).toContain('*Widget agent* (asked: "list the widgets in the warehouse")\n3 widgets');
    expect(both.answer).toMatch(new RegExp(`\\*Gadget agent\\*: no answer — the Gadget agent \\(gadgets\\) covers this part, but I could not ask it: it cannot be reached \\(${why}\\)\\.`));
    expect(await sample(supervisor, METRIC.agentTurns, turn('tool_error'))).toBe(1);
    expect(await sample(supervisor, METRIC.agentTurns, turn('answered'))).toBe(1);
  });
});

describe('why an agent could not be reached', () => {
  it('is said in words from the network failure under "fetch failed", else from the messages', () => {
    const net = (code: string): Error => Object.assign(new Error(`connect ${code} 10.0.0.1:8092`), { code });
    expect(unreachableReason(new TypeError('fetch failed', { cause: net('ECONNREFUSED') }))).toBe('connection refused');
    // A name with several addresses: one error per address.
    expect(unreachableReason(new TypeError('fetch failed', { cause: new AggregateError([net('ECONNREFUSED'), net('ECONNREFUSED')]) }))).toBe('connection refused');
    expect(unreachableReason(new TypeError('fetch failed', { cause: net('ENOTFOUND') }))).toBe('host name not found');
    expect(unreachableReason(new TypeError('fetch failed', { cause: net('UND_ERR_CONNECT_TIMEOUT') }))).toBe('connection timed out');
    expect(unreachableReason(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toBe('no answer in time');
    expect(unreachableReason(new TypeError('fetch failed', { cause: new Error('bad port') }))).toBe('fetch failed: bad port');
    expect(unreachableReason('refused by policy')).toBe('refused by policy');
  });
});
