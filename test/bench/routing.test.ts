import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent } from '@flotilla/agent-argocd';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent } from '@flotilla/agent-netbox';
import { parseSettings, silentLogger } from '@flotilla/core';
import { startArgoCdSimulator, startFakeAnthropic, startFakeOpenAi, startNetBoxSimulator } from '@flotilla/simulators';
import { ROUTING_SET } from './routing-set.js';

/** Issue 21's minimum: the labelled set covers both domains, both routes, at least 60 questions. */
const MIN_ROUTING_QUESTIONS = 60;

/** Both agents in hybrid mode over their simulators and the fake OpenAI server's default script. */
async function hybridAgents(): Promise<{ readonly clients: Readonly<Record<'argocd' | 'netbox', Client>>; close(): Promise<void> }> {
  const key = 'sk-routing-set-key';
  const llm = await startFakeOpenAi({ apiKey: key });
  const env = { FLOTILLA_MODE: 'hybrid', FLOTILLA_LLM_PROVIDER: 'openai', FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: key };
  const closers: (() => Promise<void>)[] = [() => llm.close()];
  const close = async (): Promise<void> => {
    for (const c of closers.reverse()) await c();
  };
  try {
    const argo = await startArgoCdAgent(parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, env, 'test'), silentLogger(), {
      simulator: ({ token, now }) => startArgoCdSimulator({ token, estate: { epoch: now() } }),
    });
    closers.push(() => argo.close());
    const netbox = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, env, 'test'), silentLogger(), { simulator: ({ token }) => startNetBoxSimulator({ token }) });
    closers.push(() => netbox.close());
    return { clients: { argocd: await new ClientFactory().createFromUrl(argo.url), netbox: await new ClientFactory().createFromUrl(netbox.url) }, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The route an answer took, as its metadata states it: the rules (`fast`, or fast and then the model) or the model. */
const decided = (reply: Reply): string => (reply.metadata.route === 'fast' || reply.metadata.route === 'fallback' ? 'fast' : reply.metadata.route === 'discovery' ? 'model' : String(reply.metadata.route));

describe('hybrid routing by what the rules can fully do (issue 21)', () => {
  it(`routes every question of the labelled set (${ROUTING_SET.length}) as labelled, as the agents read it`, async () => {
    expect(ROUTING_SET.length).toBeGreaterThanOrEqual(MIN_ROUTING_QUESTIONS);
    for (const agent of ['argocd', 'netbox'] as const) {
      for (const route of ['fast', 'model'] as const) expect(ROUTING_SET.some((c) => c.agent === agent && c.route === route)).toBe(true);
    }
    const agents = await hybridAgents();
    try {
      const misrouted: { question: string; expected: string; got: string; reason: unknown }[] = [];
      for (const c of ROUTING_SET) {
        const contextId = randomUUID();
        if (c.after !== undefined) await ask(agents.clients[c.agent], c.after, contextId);
        const reply = await ask(agents.clients[c.agent], c.question, contextId);
        if (decided(reply) !== c.route) misrouted.push({ question: c.question, expected: c.route, got: decided(reply), reason: reply.metadata.route_reason });
      }
      expect(misrouted).toEqual([]);

      // And it says why a question went to the model.
      const why = async (agent: 'argocd' | 'netbox', question: string) => {
        const m = (await ask(agents.clients[agent], question)).metadata;
        return { route: m.route, reason: m.route_reason, words: m.route_words };
      };
      expect(await why('netbox', 'interfaces of every switch in ams1')).toEqual({ route: 'fast', reason: 'rules_execute_fully', words: undefined });
      expect(await why('argocd', 'which team has the worst deployment hygiene, and why?')).toEqual({ route: 'discovery', reason: 'reasoning_words', words: 'worst,why' });
      expect(await why('netbox', 'plan a maintenance window for the routers in lon1')).toEqual({ route: 'discovery', reason: 'reasoning_words', words: 'plan' });
      expect(await why('argocd', 'apps with foo bar')).toEqual({ route: 'discovery', reason: 'unused_words', words: 'foo,bar' });
    } finally {
      await agents.close();
    }
  });
});

interface Reply {
  readonly answer: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

async function ask(client: Client, question: string, contextId: string = randomUUID()): Promise<Reply> {
  const result = await client.sendMessage(textRequest(question, contextId));
  if (!('artifacts' in result)) throw new Error(`a message, not a task: ${JSON.stringify(result)}`);
  const artifact = result.artifacts[0];
  const answer = (artifact?.parts ?? []).flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : [])).join('\n');
  return { answer, metadata: artifact?.metadata ?? {} };
}

const PROVIDERS = [
  { provider: 'openai', start: startFakeOpenAi },
  { provider: 'anthropic', start: startFakeAnthropic },
] as const;

describe.each(PROVIDERS)('hybrid mode through the fake $provider server', ({ provider, start }) => {
  it('answers the flagship NetBox question and one named application by the rules alone, and each reasoning question by the model', async () => {
    const key = `sk-routing-${provider}-key`;
    const llm = await start({ apiKey: key });
    const env = { FLOTILLA_MODE: 'hybrid', FLOTILLA_LLM_PROVIDER: provider, FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: key };
    const closers: (() => Promise<void>)[] = [() => llm.close()];
    try {
      const argo = await startArgoCdAgent(parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, env, 'test'), silentLogger(), {
        simulator: ({ token, now }) => startArgoCdSimulator({ token, estate: { epoch: now() } }),
      });
      closers.push(() => argo.close());
      const netbox = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, env, 'test'), silentLogger(), {
        simulator: ({ token }) => startNetBoxSimulator({ token }),
      });
      closers.push(() => netbox.close());
      const clients = { argocd: await new ClientFactory().createFromUrl(argo.url), netbox: await new ClientFactory().createFromUrl(netbox.url) };

      // The flagship: a complex, limitation-aware plan the rules execute completely; no model request.
      const flagship = await ask(clients.netbox, 'interfaces of every switch in ams1');
      expect(flagship.metadata).toMatchObject({ route: 'fast', route_reason: 'rules_execute_fully', intent: 'site_interfaces' });
      expect(flagship.answer).toMatch(/Batch 1 of/);
      expect(llm.requests).toHaveLength(0);

      // One application, not page 1 of every application; no model request either.
      const one = await ask(clients.argocd, 'show the payments-api-prod application');
      expect(one.metadata).toMatchObject({ route: 'fast', intent: 'application_details' });
      expect(one.answer).toContain('payments-api-prod');
      expect(one.answer).not.toMatch(/page 1 of/i);
      expect(llm.requests).toHaveLength(0);

      // Questions that need reasoning reach the model, whatever the rules' confidence.
      const reasoning = [
        ['argocd', 'which team has the worst deployment hygiene, and why?', 'worst,why'],
        ['argocd', "compare the payments team's apps with the search team's", 'compare'],
        ['netbox', 'plan a maintenance window for the routers in lon1', 'plan'],
      ] as const;
      for (const [agent, question, words] of reasoning) {
        const before = llm.requests.length;
        const reply = await ask(clients[agent], question);
        expect([question, reply.metadata.route, reply.metadata.route_reason, reply.metadata.route_words]).toEqual([question, 'discovery', 'reasoning_words', words]);
        expect(llm.requests.length).toBeGreaterThan(before);
      }
    } finally {
      for (const close of closers.reverse()) await close();
    }
  });
});
