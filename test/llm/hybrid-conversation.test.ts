import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent, type RunningAgent } from '@flotilla/agent-argocd';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent } from '@flotilla/agent-netbox';
import { parseSettings, silentLogger } from '@flotilla/core';
import { LOAD_TOOLS, RULES_TURN_LIMITS } from '@flotilla/llm';
import { METRIC } from '@flotilla/metrics';
import {
  startArgoCdSimulator,
  startFakeAnthropic,
  startFakeOpenAi,
  startNetBoxSimulator,
  type ChatScript,
  type FakeLlmOptions,
  type RunningFakeLlm,
  type RunningSimulator,
  type ScriptInput,
  type ScriptMessage,
} from '@flotilla/simulators';

/**
 * Hybrid mode as one conversation (issue 21), through the real LangChain clients against the fake OpenAI and
 * Anthropic servers, whose refusal rules are the providers' (an empty assistant turn, a tool result out of place): the
 * rules' turns are in what the model reads, "next page" continues the last list whichever path produced it, and a
 * continuation with nothing to continue is not a fast answer.
 */
const PAGE = 5;
const CONTINUE = /\bnext (?:page|batch)\b|\bmore\b|\bcontinue\b/i;

const latestUser = (messages: readonly ScriptMessage[]): string => [...messages].reverse().find((m) => m.role === 'user')?.text ?? '';

/**
 * A model as an operator would script one: it loads `listTool` and read_result, lists PAGE items, and for "next
 * page" reads the next page of the last list it was shown (result_id and next_offset from that tool result), as the
 * tools' next_step tells it to. Every request it was sent is kept in `seen`.
 */
function operatorScript(listTool: string, seen: ScriptInput[]): ChatScript {
  const next = (input: ScriptInput): ReturnType<ChatScript> => {
    if (!CONTINUE.test(latestUser(input.messages))) return { text: '', toolCalls: [{ name: listTool, args: { limit: PAGE } }] };
    const listed = [...input.messages].reverse().find((m) => m.role === 'tool' && /"next_offset":\d+/.test(m.text));
    if (listed?.role !== 'tool') return { text: 'I have listed nothing in this conversation that I could continue.' };
    const offset = Number(/"next_offset":(\d+)/.exec(listed.text)?.[1]);
    const resultId = /"result_id":"([^"]+)"/.exec(listed.text)?.[1];
    if (resultId !== undefined) return { text: '', toolCalls: [{ name: 'read_result', args: { result_id: resultId, offset, limit: PAGE } }] };
    // A page read from the upstream itself: the same call, at the next offset.
    const call = input.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : [])).find((c) => c.id === listed.toolCallId);
    return { text: '', toolCalls: [{ name: call?.name ?? listTool, args: { ...(call?.args as Record<string, unknown>), limit: PAGE, offset } }] };
  };
  return (input) => {
    seen.push(input);
    const last = input.messages.at(-1);
    if (last?.role === 'user') {
      if (!input.tools.some((t) => t.name === listTool) || !input.tools.some((t) => t.name === 'read_result')) return { text: '', toolCalls: [{ name: LOAD_TOOLS, args: { names: [listTool, 'read_result'] } }] };
      return next(input);
    }
    if (last?.role === 'tool') {
      const previous = input.messages.at(-2);
      if (previous?.role === 'assistant' && previous.toolCalls.some((c) => c.name === LOAD_TOOLS)) return next(input);
      const offset = /"offset":(\d+)/.exec(last.text)?.[1] ?? '?';
      const total = /"total":(\d+)/.exec(last.text)?.[1] ?? '?';
      return { text: `Model list: items from offset ${offset} of ${total}.` };
    }
    return { text: 'Ask me again.' };
  };
}

type Provider = 'openai' | 'anthropic';
const KEY: Record<Provider, string> = { openai: 'sk-hybrid-conversation', anthropic: 'sk-ant-hybrid-conversation' };
const startLlm = (provider: Provider, options: FakeLlmOptions): Promise<RunningFakeLlm> => (provider === 'openai' ? startFakeOpenAi(options) : startFakeAnthropic(options));
const modelEnv = (provider: Provider, llm: RunningFakeLlm) => ({ FLOTILLA_LLM_PROVIDER: provider, FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: KEY[provider] });

interface Reply {
  readonly text: string;
  readonly metadata: Record<string, unknown>;
}

async function ask(url: string, question: string, contextId: string): Promise<Reply> {
  const client = await new ClientFactory().createFromUrl(url);
  const task = (await client.sendMessage(textRequest(question, contextId))) as { artifacts?: { parts: { content?: { $case: string; value: unknown } }[]; metadata?: Record<string, unknown> }[] };
  const artifact = task.artifacts?.[0];
  return { text: artifact?.parts.map((p) => (p.content?.$case === 'text' ? String(p.content.value) : '')).join('') ?? '', metadata: artifact?.metadata ?? {} };
}

/** Every text the model was sent in a request (its messages), joined. */
const sent = (input: ScriptInput): string => input.messages.map((m) => m.text).join('\n');

describe.each(['openai', 'anthropic'] as const)('hybrid mode as one conversation (Argo CD, fake %s)', (provider) => {
  let sim: RunningSimulator;
  let llm: RunningFakeLlm;
  let agent: RunningAgent;
  const seen: ScriptInput[] = [];

  beforeAll(async () => {
    sim = await startArgoCdSimulator({ token: 'hybrid-conversation-argocd' });
    llm = await startLlm(provider, { apiKey: KEY[provider], script: operatorScript('list_applications', seen) });
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': sim.url, 'argocd-token': 'hybrid-conversation-argocd', 'log-level': 'silent' }, modelEnv(provider, llm), 'test');
    agent = await startArgoCdAgent(config, silentLogger());
  });
  afterAll(async () => {
    await agent?.close();
    await llm?.close();
    await sim?.close();
  });

  it('"list projects" (rules), then a question the model lists applications for, then "next page": the applications go on', async () => {
    const contextId = randomUUID();
    const projects = await ask(agent.url, 'list projects', contextId);
    expect(projects.metadata.route).toBe('fast');

    const before = seen.length;
    const model = await ask(agent.url, 'what should I fix first?', contextId);
    expect(model.metadata).toMatchObject({ route: 'discovery', route_reason: 'reasoning_words' });
    expect(model.text).toMatch(/^Model list: items from offset 0 of \d+/);
    // The model read the rules' turn: the question and the answer it was given.
    const first = seen[before];
    expect(first?.messages.map((m) => m.text)).toContain('list projects');
    expect(sent(first!)).toContain(projects.text.split('\n')[0]!);

    const next = await ask(agent.url, 'next page', contextId);
    expect(next.metadata).toMatchObject({ route: 'discovery', route_reason: 'continues_model_list' });
    expect(next.text).toBe(`Model list: items from offset ${PAGE} of ${/of (\d+)/.exec(model.text)?.[1]}.`);
    expect(next.text).not.toMatch(/project/i);

    // A list the rules make after that is the one the next "next page" continues, by the rules.
    const apps = await ask(agent.url, 'list all applications', contextId);
    expect(apps.metadata.route).toBe('fast');
    const rulesNext = await ask(agent.url, 'next page', contextId);
    expect(rulesNext.metadata).toMatchObject({ route: 'fast', route_reason: 'rules_execute_fully' });
    expect(rulesNext.text).toMatch(/Page 2 of/);
  });

  it('"next page" with no list anywhere is not a fast answer: the model answers it, counted as a fallback', async () => {
    const reply = await ask(agent.url, 'next page', randomUUID());
    expect(reply.metadata).toMatchObject({ route: 'fallback', route_reason: 'fast_path_failed' });
    expect(reply.text).toBe('I have listed nothing in this conversation that I could continue.');
    const metrics = await (await fetch(`${agent.url}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`${METRIC.hybridRoutes}\\{agent="argocd",route="fallback",reason="fast_path_failed"\\} [1-9]`));
    expect(metrics).toMatch(new RegExp(`${METRIC.hybridRoutes}\\{agent="argocd",route="discovery",reason="continues_model_list"\\} [1-9]`));
  });

  it('after 12 fast turns, the model reads all of them (compact) with "these" in its first request', async () => {
    const contextId = randomUUID();
    const questions = [
      'which clusters do we have?', 'list projects', 'which apps are out of sync in prod?', 'list all applications', 'next page', 'how many apps are degraded?',
      'list application sets', 'which apps are out of sync?', 'list all applications', 'next page', 'show the payments-api-prod application', 'which clusters do we have?',
    ];
    const answers: Reply[] = [];
    for (const q of questions) answers.push(await ask(agent.url, q, contextId));
    expect(answers.map((a) => a.metadata.route)).toEqual(questions.map(() => 'fast'));
    const before = seen.length;
    const reply = await ask(agent.url, 'which of these look misconfigured?', contextId);
    expect(reply.metadata.route).toBe('discovery');
    const first = seen[before]!;
    const users = first.messages.filter((m) => m.role === 'user').map((m) => m.text);
    expect(users).toEqual([...questions, 'which of these look misconfigured?']);
    // Each rules answer is there, compact: whole when short, else its head within the record's token cap.
    const assistants = first.messages.filter((m) => m.role === 'assistant').map((m) => m.text);
    expect(assistants).toHaveLength(questions.length);
    for (const [i, text] of assistants.entries()) expect(text.slice(0, 40)).toBe(answers[i]!.text.slice(0, 40));
    const long = assistants.filter((t) => t.includes('-token answer]'));
    expect(long.length).toBeGreaterThan(0);
    for (const t of long) expect(t.length).toBeLessThan(RULES_TURN_LIMITS.answerMaxTokens * 8);
  });
});

describe.each(['openai', 'anthropic'] as const)('hybrid mode as one conversation (NetBox, fake %s)', (provider) => {
  it('after the model listed devices, "next batch" continues its list instead of saying there is nothing to continue', async () => {
    const seen: ScriptInput[] = [];
    const llm = await startLlm(provider, { apiKey: KEY[provider], script: operatorScript('list_devices', seen) });
    const env = { ...modelEnv(provider, llm), FLOTILLA_MODE: 'hybrid' };
    const config = parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, env, 'test');
    const agent = await startNetBoxAgent(config, silentLogger(), { simulator: ({ token }) => startNetBoxSimulator({ token }) });
    try {
      const contextId = randomUUID();
      // The flagship question is the rules' (fully executed), and it lists: "next batch" right after is theirs.
      const flagship = await ask(agent.url, 'interfaces of every switch in ams1', contextId);
      expect(flagship.metadata.route).toBe('fast');
      const model = await ask(agent.url, 'which devices should we retire first?', contextId);
      expect(model.metadata.route).toBe('discovery');
      expect(model.text).toMatch(/^Model list: items from offset 0 of \d+/);
      const next = await ask(agent.url, 'next batch', contextId);
      expect(next.metadata).toMatchObject({ route: 'discovery', route_reason: 'continues_model_list' });
      expect(next.text).toMatch(new RegExp(`^Model list: items from offset ${PAGE} of \\d+`));
      expect(next.text).not.toMatch(/nothing to continue/i);
      // Narrowing and summarising act on the last list too: the model's.
      for (const follow of ['only the active ones', 'summary instead']) {
        expect((await ask(agent.url, follow, contextId)).metadata, follow).toMatchObject({ route: 'discovery', route_reason: 'continues_model_list' });
      }
      // With no list at all, they are no fast answer either.
      expect((await ask(agent.url, 'summary instead', randomUUID())).metadata).toMatchObject({ route: 'fallback', route_reason: 'fast_path_failed' });
      // No request the fake provider refused: every turn was answered.
      expect(llm.requests.filter((r) => r.status !== 200).map((r) => r.status)).toEqual([]);
    } finally {
      await agent.close();
      await llm.close();
    }
  });
});
