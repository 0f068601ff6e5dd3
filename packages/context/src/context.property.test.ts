import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadTokenCounter, type TokenCounter } from '@flotilla/tokens';
import { countRequest, dropEmptyTurns, fitRequest, type ContextRequest, type Message, type ToolDefinition } from './index.js';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadTokenCounter();
});

const WORDS = ['pod', 'restarted', 'sync', 'failed.', 'namespace', 'argocd', '{"status":"ok"}', 'netbox', 'device\n', 'rack-42', 'exit', '137!'];
/** Text of about `size` words, varied by `seed`. */
const text = fc
  .tuple(fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 60 }) }, { weight: 1, arbitrary: fc.integer({ min: 150, max: 1200 }) }), fc.nat(100))
  .map(([size, seed]) => Array.from({ length: size }, (_, i) => WORDS[(seed + i * 7) % WORDS.length]).join(' '));
const args = fc.dictionary(fc.constantFrom('limit', 'name', 'site'), fc.oneof(fc.nat(100), fc.constantFrom('a', 'prod')), { maxKeys: 2 });

/** A well-formed turn: a user message, an assistant answer, or an assistant tool call block with its results. */
const turn = fc.oneof(
  text.map((t): Message[] => [{ role: 'user', text: t }]),
  text.map((t): Message[] => [{ role: 'assistant', text: t }]),
  fc.tuple(text, fc.array(fc.tuple(fc.constantFrom('list_apps', 'get_device'), args, text), { minLength: 1, maxLength: 3 })).map(([t, calls]): Message[] => [
    { role: 'assistant', text: t, toolCalls: calls.map(([name, a], i) => ({ id: `call_${i}`, name, args: a })) },
    ...calls.map(([name, , result], i): Message => ({ role: 'tool', toolCallId: `call_${i}`, name, text: result })),
  ]),
);
const history = fc.array(turn, { maxLength: 10 }).map((turns) => turns.flat());
const tools: ToolDefinition[] = [{ name: 'list_apps', description: 'List applications.', inputSchema: { type: 'object', properties: { limit: { type: 'integer' } } } }];
const requestArb = fc.record({ system: fc.constantFrom('', 'You are the ArgoCD agent.'), messages: history }).map((r): ContextRequest => ({ ...r, tools }));
const budgetArb = fc.record({
  maxContextTokens: fc.integer({ min: 0, max: 8000 }),
  reservedOutputTokens: fc.integer({ min: 0, max: 1500 }),
  minMessagesToKeep: fc.integer({ min: 1, max: 5 }),
  safetyMargin: fc.double({ min: 0, max: 0.5, noNaN: true }),
  userTextMaxTokens: fc.integer({ min: 8, max: 3000 }),
  toolResultKeepRecent: fc.integer({ min: 0, max: 4 }),
});
/** Arbitrary message soup: orphan results, calls without results, reused ids. */
const soup = fc.array(
  fc.oneof(
    text.map((t): Message => ({ role: 'user', text: t })),
    fc.tuple(text, fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 })).map(([t, ids]): Message => ({ role: 'assistant', text: t, toolCalls: ids.map((id) => ({ id, name: 'x', args: null })) })),
    fc.tuple(text, fc.constantFrom('a', 'b', 'c', 'z')).map(([t, id]): Message => ({ role: 'tool', toolCallId: id, name: 'x', text: t })),
  ),
  { maxLength: 12 },
);

/** Every call is answered in the tool block right after its message, and every tool result answers such a call. */
function paired(messages: readonly Message[]): boolean {
  for (let i = 0; i < messages.length; i += 1) {
    const m = messages[i] as Message;
    if (m.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && messages[j]?.role === 'tool') j -= 1;
      const owner = messages[j];
      if (owner?.role !== 'assistant' || !(owner.toolCalls ?? []).some((c) => c.id === m.toolCallId)) return false;
    }
    if (m.role === 'assistant') {
      const answered = new Set<string>();
      for (let j = i + 1; j < messages.length && messages[j]?.role === 'tool'; j += 1) {
        const r = messages[j] as Extract<Message, { role: 'tool' }>;
        if (answered.has(r.toolCallId)) return false;
        answered.add(r.toolCallId);
      }
      if ((m.toolCalls ?? []).some((c) => !answered.has(c.id))) return false;
    }
  }
  return true;
}

/** The newest `keep` messages, widened back so no tool result loses its call. */
function newestWindow(messages: readonly Message[], keep: number): readonly Message[] {
  let start = Math.max(0, messages.length - keep);
  while (start > 0 && messages[start]?.role === 'tool') start -= 1;
  return messages.slice(start);
}

const RUNS = { numRuns: 100, seed: 7 };

describe('fitRequest properties', () => {
  it('fits the budget by an independent recount unless overBudget, and overBudget only when the budget is tiny', () => {
    fc.assert(
      fc.property(requestArb, budgetArb, (request, budget) => {
        const fit = fitRequest(counter, request, budget);
        const recount = countRequest(counter, fit.request, budget.safetyMargin);
        expect(recount).toBe(fit.tokens);
        const available = budget.maxContextTokens - budget.reservedOutputTokens;
        expect(fit.overBudget).toBe(recount > available);
        if (countRequest(counter, { ...request, messages: [] }, budget.safetyMargin) + 600 <= available) expect(fit.overBudget).toBe(false);
      }),
      RUNS,
    );
  });

  it('keeps every tool call with its result, for well-formed and broken histories', () => {
    fc.assert(
      fc.property(fc.oneof(history, soup), budgetArb, (messages, budget) => {
        const fit = fitRequest(counter, { system: 's', tools: [], messages }, budget);
        expect(paired(fit.request.messages)).toBe(true);
        if (paired(messages)) expect(fit.trims.some((t) => t.kind === 'orphans_repaired')).toBe(false);
        else expect(fit.trims.some((t) => t.kind === 'orphans_repaired')).toBe(true);
      }),
      RUNS,
    );
  });

  it('keeps the newest minMessagesToKeep messages unchanged when they fit', () => {
    fc.assert(
      fc.property(requestArb, budgetArb, (generated, budget) => {
        // Empty assistant turns are never sent (no provider needs them; Anthropic refuses them): the window is of the rest.
        const request = { ...generated, messages: dropEmptyTurns(generated.messages).messages };
        const window = newestWindow(request.messages, budget.minMessagesToKeep);
        const lastUser = request.messages.findLastIndex((m) => m.role === 'user');
        const capped = lastUser >= request.messages.length - window.length && counter.count(request.messages[lastUser]?.text ?? '') > budget.userTextMaxTokens;
        const windowFits = countRequest(counter, { ...request, messages: window }, budget.safetyMargin) + budget.reservedOutputTokens <= budget.maxContextTokens;
        const fit = fitRequest(counter, request, budget);
        if (windowFits && !capped) expect(fit.request.messages.slice(fit.request.messages.length - window.length)).toEqual(window);
      }),
      RUNS,
    );
  });

  it('keeps the system prompt and tools, and is deterministic', () => {
    fc.assert(
      fc.property(requestArb, budgetArb, (request, budget) => {
        const fit = fitRequest(counter, request, budget);
        expect(fit.request.system).toBe(request.system);
        expect(fit.request.tools).toEqual(request.tools);
        expect(fitRequest(counter, request, budget)).toEqual(fit);
        for (const trim of fit.trims) expect(trim.tokensSaved).toBeGreaterThanOrEqual(0);
      }),
      RUNS,
    );
  });
});
