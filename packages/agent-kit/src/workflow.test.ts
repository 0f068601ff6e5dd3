import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '@flotilla/tokens';
import { boundedMemoryStore } from './memory-store.js';
import { createWorkflow, type AgentDomain, type AgentModel, type CallTool } from './workflow.js';

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
});
