import { beforeAll, describe, expect, it } from 'vitest';
import { createMetrics, METRIC } from '@flotilla/metrics';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import {
  CONTEXT_DEFAULTS,
  countRequest,
  fitRequest,
  recordFit,
  repairToolPairs,
  dropEmptyTurns,
  MESSAGE_OVERHEAD_TOKENS,
  NO_RESULT_TEXT,
  REPLY_PRIMING_TOKENS,
  SUMMARY_PREFIX,
  TOOL_CALL_OVERHEAD_TOKENS,
  TOOL_DEFINITION_OVERHEAD_TOKENS,
  type ContextBudget,
  type ContextRequest,
  type Message,
  type ToolDefinition,
} from './index.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});

const budget = (overrides: Partial<ContextBudget>): ContextBudget => ({
  maxContextTokens: 2000,
  reservedOutputTokens: 200,
  minMessagesToKeep: 2,
  safetyMargin: 0,
  userTextMaxTokens: 300,
  toolResultKeepRecent: 2,
  ...overrides,
});
const tools: ToolDefinition[] = [{ name: 'list_apps', description: 'List ArgoCD applications.', inputSchema: { type: 'object' } }];
const log = (lines: number, tag = 'line'): string => Array.from({ length: lines }, (_, i) => `${tag} ${i}: pod restarted with exit code 137`).join('\n');
const call = (id: string): Message => ({ role: 'assistant', text: '', toolCalls: [{ id, name: 'list_apps', args: { limit: 5 } }] });
const result = (id: string, text: string): Message => ({ role: 'tool', toolCallId: id, name: 'list_apps', text });
const request = (messages: Message[]): ContextRequest => ({ system: 'You are the ArgoCD agent.', tools, messages });
const fitsIn = (r: { tokens: number }, b: ContextBudget): boolean => r.tokens + b.reservedOutputTokens <= b.maxContextTokens;

describe('countRequest', () => {
  it('counts framing, text, tool call JSON and tool definitions exactly', () => {
    const messages: Message[] = [{ role: 'user', text: 'How many apps?' }, call('c1'), result('c1', '12 apps')];
    const expected =
      REPLY_PRIMING_TOKENS +
      MESSAGE_OVERHEAD_TOKENS + counter.count('You are the ArgoCD agent.') +
      TOOL_DEFINITION_OVERHEAD_TOKENS + counter.count(JSON.stringify(tools[0])) +
      MESSAGE_OVERHEAD_TOKENS + counter.count('How many apps?') +
      MESSAGE_OVERHEAD_TOKENS + TOOL_CALL_OVERHEAD_TOKENS + counter.count('c1') + counter.count('list_apps') + counter.count('{"limit":5}') +
      MESSAGE_OVERHEAD_TOKENS + counter.count('12 apps') + counter.count('c1') + counter.count('list_apps');
    expect(countRequest(counter, request(messages), 0)).toBe(expected);
    expect(countRequest(counter, request(messages), 0.1)).toBe(Math.ceil(expected * 1.1));
    expect(countRequest(counter, request(messages), 9)).toBe(Math.ceil(expected * 1.5));
  });
});

describe('fitRequest', () => {
  it('leaves a request that fits untouched', () => {
    const req = request([{ role: 'user', text: 'hi' }, { role: 'assistant', text: 'hello' }]);
    const fit = fitRequest(counter, req, budget({}));
    expect(fit.request).toEqual(req);
    expect(fit.trims).toEqual([]);
    expect(fit.overBudget).toBe(false);
    expect(fit.tokens).toBe(countRequest(counter, req, 0));
  });

  it('(1) caps the latest user text (a pasted log) with a note', () => {
    const fit = fitRequest(counter, request([{ role: 'user', text: log(400) }]), budget({}));
    const text = fit.request.messages[0]?.text ?? '';
    expect(text).toMatch(/\[pasted text truncated to fit the context: kept 300 of \d+ tokens\]$/);
    expect(fit.trims.map((t) => t.kind)).toEqual(['user_text_capped']);
    expect(fit.trims[0]?.tokensSaved).toBeGreaterThan(1000);
    expect(fitsIn(fit, budget({}))).toBe(true);
  });

  it('(2) clears old tool results first, keeping the most recent ones', () => {
    const messages: Message[] = [{ role: 'user', text: 'status?' }];
    for (let i = 0; i < 5; i += 1) messages.push(call(`c${i}`), result(`c${i}`, log(25, `r${i}`)));
    messages.push({ role: 'assistant', text: 'All synced.' }, { role: 'user', text: 'thanks' });
    const b = budget({ maxContextTokens: 1500 });
    const fit = fitRequest(counter, request(messages), b);
    const texts = fit.request.messages.filter((m) => m.role === 'tool').map((m) => m.text);
    expect(texts).toHaveLength(5);
    expect(texts[0]).toMatch(/^\[result cleared to fit the context: \d+ tokens; call the tool again if needed\]$/);
    expect(texts.slice(3)).toEqual([log(25, 'r3'), log(25, 'r4')]);
    expect(fit.trims.map((t) => t.kind)).toEqual(['tool_results_cleared']);
    expect(fitsIn(fit, b)).toBe(true);
  });

  it('(3) compresses older turns into one extractive summary, keeping the newest messages', () => {
    const messages: Message[] = [];
    for (let i = 0; i < 20; i += 1) {
      messages.push({ role: 'user', text: `Question ${i} about app-${i}. ${log(5)}` }, { role: 'assistant', text: `Answer ${i} is fine. ${log(5)}` });
    }
    const b = budget({ maxContextTokens: 1200 });
    const fit = fitRequest(counter, request(messages), b);
    const [summary, ...rest] = fit.request.messages;
    expect(summary?.role).toBe('user');
    expect(summary?.text.startsWith(SUMMARY_PREFIX)).toBe(true);
    expect(summary?.text).toContain('- user: Question 0 about app-0.');
    expect(summary?.text).toContain('- assistant: Answer 0 is fine.');
    expect(rest).toEqual(messages.slice(-rest.length));
    expect(rest.length).toBeGreaterThanOrEqual(2);
    expect(fit.trims.map((t) => t.kind)).toEqual(['turns_summarised']);
    expect(fitsIn(fit, b)).toBe(true);
  });

  it('(3) uses a summariser passed in', () => {
    const messages: Message[] = Array.from({ length: 30 }, (_, i): Message => ({ role: i % 2 === 0 ? 'user' : 'assistant', text: log(6, `t${i}`) }));
    const fit = fitRequest(counter, request(messages), budget({ maxContextTokens: 900 }), { summarise: (older) => `${older.length} turns about pods.` });
    expect(fit.request.messages[0]?.text).toMatch(/^Summary of earlier conversation:\n\d+ turns about pods\.$/);
  });

  it('(4) never splits a tool call from its result and repairs orphans', () => {
    const repaired = repairToolPairs([result('x', 'orphan'), { role: 'user', text: 'q' }, call('a'), { role: 'user', text: 'next' }]);
    expect(repaired.repaired).toBe(2);
    expect(repaired.messages).toEqual([{ role: 'user', text: 'q' }, call('a'), { role: 'tool', toolCallId: 'a', name: 'list_apps', text: NO_RESULT_TEXT }, { role: 'user', text: 'next' }]);

    const fit = fitRequest(counter, request([result('x', 'orphan'), { role: 'user', text: 'q' }, call('a')]), budget({}));
    expect(fit.trims.map((t) => t.kind)).toEqual(['orphans_repaired']);

    // minMessagesToKeep 1 would start the window at the last tool result: it widens to its call.
    const messages: Message[] = [];
    for (let i = 0; i < 10; i += 1) messages.push({ role: 'user', text: log(8, `u${i}`) }, call(`c${i}`), result(`c${i}`, 'ok'));
    const tight = fitRequest(counter, request(messages), budget({ maxContextTokens: 600, minMessagesToKeep: 1 }));
    const kept = tight.request.messages;
    expect(kept.at(-2)).toEqual(call('c9'));
    expect(kept.at(-1)).toEqual(result('c9', 'ok'));
    expect(kept.some((m, i) => m.role === 'tool' && kept[i - 1]?.role !== 'assistant' && kept[i - 1]?.role !== 'tool')).toBe(false);
  });

  it('(5) truncates one huge recent message to fit, never below a minimal message', () => {
    const b = budget({ maxContextTokens: 1000, userTextMaxTokens: 5000 });
    const fit = fitRequest(counter, request([{ role: 'user', text: 'show logs' }, call('a'), result('a', log(300))]), b);
    const tool = fit.request.messages.at(-1);
    expect(tool?.text).toMatch(/\n\[truncated to fit the context\]$/);
    expect(fitsIn(fit, b)).toBe(true);
    expect(fit.tokens).toBeGreaterThan(b.maxContextTokens - b.reservedOutputTokens - 30);
    expect(fit.overBudget).toBe(false);
  });

  it('returns the smallest request flagged overBudget when system + tools + reserved output exceed the window', () => {
    const b = budget({ maxContextTokens: 100, reservedOutputTokens: 90 });
    const fit = fitRequest(counter, request([{ role: 'user', text: log(50) }, { role: 'assistant', text: 'ok' }, { role: 'user', text: log(50) }]), b);
    expect(fit.overBudget).toBe(true);
    expect(fit.request.system).toBe('You are the ArgoCD agent.');
    expect(fit.request.messages).toHaveLength(1);
    expect(counter.count(fit.request.messages[0]?.text ?? '')).toBeLessThan(30);
  });

  it('never throws for malformed input', () => {
    const junk = { system: 42, tools: 'no', messages: [null, { role: 'user' }, { role: 'tool', toolCallId: 1 }, { role: 'assistant', toolCalls: [null, { id: 7 }] }, { role: 'alien' }] };
    const fit = fitRequest(counter, junk as unknown as ContextRequest, { maxContextTokens: Number.NaN } as unknown as ContextBudget);
    expect(fit.request.system).toBe('42');
    expect(fit.request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(() => fitRequest(counter, undefined as unknown as ContextRequest, undefined as unknown as ContextBudget)).not.toThrow();
  });

  it('has per-provider defaults', () => {
    expect(CONTEXT_DEFAULTS.openai).toMatchObject({ maxContextTokens: 128_000, minMessagesToKeep: 2, reservedOutputTokens: 4096 });
    expect(CONTEXT_DEFAULTS.anthropic.maxContextTokens).toBe(200_000);
    expect(CONTEXT_DEFAULTS.rules.maxContextTokens).toBe(20_000);
  });
});

describe('recordFit', () => {
  it('counts the request, its size and each trim with the tokens saved', async () => {
    const metrics = createMetrics();
    const fit = fitRequest(counter, request([result('x', 'orphan'), { role: 'user', text: log(400) }]), budget({}));
    recordFit(metrics, 'argocd', fit);
    const text = await metrics.registry.metrics();
    expect(text).toContain(`${METRIC.contextRequests}{agent="argocd"} 1`);
    expect(text).toContain(`${METRIC.contextRequestTokens}_sum{agent="argocd"} ${fit.tokens}`);
    expect(text).toContain(`${METRIC.contextTrims}{agent="argocd",kind="user_text_capped"} 1`);
    expect(text).toContain(`${METRIC.contextTrims}{agent="argocd",kind="orphans_repaired"} 1`);
    const saved = fit.trims.find((t) => t.kind === 'user_text_capped')?.tokensSaved ?? 0;
    expect(text).toContain(`${METRIC.contextTokensSaved}{agent="argocd",kind="user_text_capped"} ${saved}`);
  });
});

describe('empty turns', () => {
  it('drops an empty or whitespace-only assistant turn from every request, and blanks whitespace beside tool calls', () => {
    const messages: Message[] = [
      { role: 'user', text: 'list apps' },
      { role: 'assistant', text: '' },
      { role: 'user', text: 'and now?' },
      { role: 'assistant', text: ' \n', toolCalls: [{ id: 'c1', name: 'list_apps', args: {} }] },
      result('c1', '[]'),
      { role: 'assistant', text: '   ' },
      { role: 'user', text: 'again' },
    ];
    const fitted = fitRequest(counter, request(messages), budget({}));
    expect(fitted.request.messages).toEqual([
      { role: 'user', text: 'list apps' },
      { role: 'user', text: 'and now?' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'list_apps', args: {} }] },
      result('c1', '[]'),
      { role: 'user', text: 'again' },
    ]);
    // Counted as a trim of its own (the empty_turns_dropped kind on the dashboard); a clean history takes none.
    expect(fitted.trims.map((t) => t.kind)).toEqual(['empty_turns_dropped']);
    // A clean history is returned as it was, not copied.
    const clean = fitted.request.messages;
    expect(dropEmptyTurns(clean)).toEqual({ messages: clean, dropped: 0 });
    expect(fitRequest(counter, request([...clean]), budget({})).trims).toEqual([]);
    expect(dropEmptyTurns(messages).dropped).toBe(2);
  });
});
