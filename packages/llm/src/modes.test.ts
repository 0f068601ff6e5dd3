import { describe, expect, it } from 'vitest';
import type { AnswerTurn, Classification } from '@flotilla/agent-kit';
import { createMetrics } from '@flotilla/metrics';
import { hybridAnswerTurn, type HybridOptions } from './modes.js';

type Intent = 'list_apps' | 'unknown';

/** The hybrid router over a fast path and a model that record what they were given; the rules read `confident` questions. */
function setup() {
  const given: (Classification<Intent> | undefined)[] = [];
  let classified = 0;
  const classify = (question: string): Classification<Intent> => {
    classified += 1;
    return question.includes('apps')
      ? { intent: 'list_apps', entities: {}, confidence: 1, complexity: 'simple', alternatives: [] }
      : { intent: 'unknown', entities: {}, confidence: 0, complexity: 'simple', alternatives: [] };
  };
  const fast: HybridOptions<Intent>['fast'] = (_question, _contextId, _progress, _signal, classification) => {
    given.push(classification);
    return Promise.resolve({ reply: { answer: 'by the rules', options: [], metadata: {} }, failed: false });
  };
  const discovery: AnswerTurn = () => Promise.resolve({ answer: 'by the model', options: [], metadata: {} });
  const turn = hybridAnswerTurn<Intent>({ agent: 'argocd', classify, fast, discovery, metrics: createMetrics() });
  return { turn, given, classified: () => classified };
}

describe('hybrid mode', () => {
  it('classifies a question once and hands that classification to the fast path, which need not classify it again', async () => {
    const { turn, given, classified } = setup();
    const reply = await turn('list apps', 'c1', () => undefined);
    expect([reply.answer, reply.metadata.route]).toEqual(['by the rules', 'fast']);
    expect(classified()).toBe(1);
    expect(given).toHaveLength(1);
    expect(given[0]).toMatchObject({ intent: 'list_apps', confidence: 1 });
  });

  it('sends a question the rules cannot answer to the model, without the fast path', async () => {
    const { turn, given, classified } = setup();
    const reply = await turn('what is broken', 'c1', () => undefined);
    expect([reply.answer, reply.metadata.route, classified(), given.length]).toEqual(['by the model', 'discovery', 1, 0]);
  });
});
