import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '@flotilla/tokens';
import { AnswerCache } from './answer-cache.js';
import { boundedMemoryStore } from './memory-store.js';
import type { AgentDomain, AgentModel, CachedTurn, CallTool } from './domain.js';
import { answerTokens, createWorkflow } from './workflow.js';

/**
 * The workflow around a toy domain whose memory grows with the question: a memory over the store's per-conversation
 * cap loses the follow-ups, never the answer, and the answer says so; the turn's abort signal reaches every tool call.
 */
type Intent = 'echo';
const model: AgentModel<Intent> = {
  kind: 'rules',
  classify: () => Promise.resolve({ intent: 'echo', entities: {}, confidence: 1, complexity: 'simple', alternatives: [] }),
};
const domain: AgentDomain<Intent, { readonly asked: string }> = {
  plan: () => [{ tool: 'echo', args: {} }],
  respond: ({ question }) => ({ text: `You asked ${question.length} characters.`, options: [], memory: { asked: question } }),
};

describe('the workflow', () => {
  it('answers when its memory is too large to keep, and says follow-ups will not work', async () => {
    const store = boundedMemoryStore<{ readonly asked: string }>({ maxEntryBytes: 1_024 });
    const callTool: CallTool = (call) => Promise.resolve({ call, isError: false, body: {} });
    const workflow = createWorkflow({ model, domain, callTool, counter: await loadTokenCounter(), memoryStore: store });

    const small = await workflow.ask('short question', 'c1');
    expect(small.answer).toBe('You asked 14 characters.');
    expect(await store.load('c1')).toEqual({ asked: 'short question' });

    const large = await workflow.ask('x'.repeat(2_000), 'c1');
    expect(large.error).toBeUndefined();
    expect(large.answer).toMatch(/^You asked 2000 characters\.\n\n\(I could not keep this conversation's state for follow-ups/);
    expect(large.answer).toContain('1024 bytes');
    // The previous memory is forgotten too: a follow-up must not continue the question before.
    expect(await store.load('c1')).toBeUndefined();
  });

  it('passes the turn signal to every tool call: aborting the turn stops the call in flight', async () => {
    let started!: () => void;
    let toolSawAbort = false;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    const callTool: CallTool = (call, signal) =>
      new Promise((resolve, reject) => {
        started();
        // Never answers on its own: only the turn's signal ends it.
        signal?.addEventListener(
          'abort',
          () => {
            toolSawAbort = true;
            reject(new Error('tool call aborted'));
          },
          { once: true },
        );
        if (signal === undefined) resolve({ call, isError: false, body: { unsignalled: true } });
      });
    const workflow = createWorkflow({ model, domain, callTool, counter: await loadTokenCounter() });
    const controller = new AbortController();
    const turn = workflow.ask('hello', 'c2', controller.signal).then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    );
    await inFlight;
    controller.abort();
    const { result, error } = await turn;
    // The abort reached the tool call itself (the graph alone would stop waiting but leave the call running).
    expect(toolSawAbort).toBe(true);
    expect(result?.error?.message ?? String(error)).toMatch(/abort/i);
  });

  it('classifies a question once, counts its answer once, and answers it again from the cache without a tool call or a count', async () => {
    const real = await loadTokenCounter();
    let counts = 0;
    let classified = 0;
    let toolCalls = 0;
    const counter = { ...real, count: (text: string) => ((counts += 1), real.count(text)) };
    const counting: AgentModel<Intent> = { kind: 'rules', classify: (q) => ((classified += 1), model.classify(q)) };
    const callTool: CallTool = (call) => ((toolCalls += 1), Promise.resolve({ call, isError: false, body: {} }));
    const cache = new AnswerCache<CachedTurn<Intent, { readonly asked: string }>>();
    const workflow = createWorkflow({ model: counting, domain, callTool, counter, answerCache: { cache, cacheableIntents: ['echo'] } });

    const first = await workflow.ask('which apps are out of sync in prod', 'c1');
    expect([first.cached, toolCalls, classified]).toEqual([false, 1, 1]);
    // The answer's tokens are the budget check's count: reading them counts nothing more.
    const afterFirst = counts;
    expect(answerTokens(first, counter)).toBe(real.count(first.answer));
    expect(counts).toBe(afterFirst);

    const again = await workflow.ask('which apps are out of sync in prod', 'c2');
    expect(again.cached).toBe(true);
    expect(again.answer).toBe(first.answer);
    expect(answerTokens(again, counter)).toBe(real.count(first.answer));
    expect([toolCalls, classified, counts]).toEqual([1, 2, afterFirst]);
    // An answer rebuilt from the turn (a caller's own text) is counted, not read from the turn.
    expect(answerTokens({ ...again, answer: `1. ${again.answer}` }, counter)).toBe(real.count(`1. ${first.answer}`));
    expect(counts).toBe(afterFirst + 1);
  });

  it('uses a classification the caller made: the question is not classified again, with the answer cache or without', async () => {
    let classified = 0;
    const counting: AgentModel<Intent> = { kind: 'rules', classify: (q) => ((classified += 1), model.classify(q)) };
    const callTool: CallTool = (call) => Promise.resolve({ call, isError: false, body: {} });
    const counter = await loadTokenCounter();
    const given = await model.classify('which apps are out of sync');
    const plain = createWorkflow({ model: counting, domain, callTool, counter });
    expect((await plain.ask('which apps are out of sync', 'c1', undefined, given)).intent).toBe('echo');
    const cache = new AnswerCache<CachedTurn<Intent, { readonly asked: string }>>();
    const cached = createWorkflow({ model: counting, domain, callTool, counter, answerCache: { cache, cacheableIntents: ['echo'] } });
    expect((await cached.ask('which apps are out of sync', 'c2', undefined, given)).cached).toBe(false);
    expect((await cached.ask('which apps are out of sync', 'c3', undefined, given)).cached).toBe(true);
    expect(classified).toBe(0);
    // Without one, the turn classifies the question itself, once.
    await plain.ask('which apps are out of sync', 'c4');
    expect(classified).toBe(1);
  });
});
