import { describe, expect, it } from 'vitest';
import type { AnswerTurn, Classification } from '@flotilla/agent-kit';
import { createMetrics } from '@flotilla/metrics';
import { hybridAnswerTurn, reasoningWords, REASONING_WORDS, routeDecision, type HybridOptions } from './modes.js';

type Intent = 'list_apps' | 'site_interfaces' | 'unknown';

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
    expect(reply.metadata.route_reason).toBe('low_confidence');
  });

  it('sends a confident question with a reasoning word to the model, and says which words', async () => {
    const { turn, given } = setup();
    const reply = await turn('which team has the worst apps, and why?', 'c1', () => undefined);
    expect([reply.answer, reply.metadata.route, reply.metadata.route_reason, reply.metadata.route_words, given.length]).toEqual(['by the model', 'discovery', 'reasoning_words', 'worst,why', 0]);
  });
});

const classification = (intent: Intent, extra: Partial<Classification<Intent>> = {}): Classification<Intent> => ({
  intent,
  entities: {},
  confidence: 0.96,
  complexity: 'simple',
  alternatives: [],
  unused: [],
  ...extra,
});

describe('routeDecision: the fast path takes what the rules execute completely', () => {
  it('takes a complex intent the domain declares fully executed (the flagship NetBox plan)', () => {
    const complex = classification('site_interfaces', { complexity: 'complex' });
    expect(routeDecision('interfaces of every switch in ams1', complex)).toEqual({ route: 'fast', reason: 'rules_execute_fully', words: [] });
    expect(routeDecision('interfaces of every switch in ams1', complex, new Set<Intent>(['site_interfaces']))).toMatchObject({ route: 'fast' });
  });

  it('sends an intent the domain does not declare fully executed to the model', () => {
    expect(routeDecision('interfaces of every switch in ams1', classification('site_interfaces'), new Set<Intent>(['list_apps']))).toEqual({ route: 'model', reason: 'intent_not_fully_executed', words: [] });
  });

  it('sends unused words, low confidence and the unknown intent to the model, each with its reason', () => {
    expect(routeDecision('apps with foo bar', classification('list_apps', { unused: ['foo', 'bar'] }))).toEqual({ route: 'model', reason: 'unused_words', words: ['foo', 'bar'] });
    expect(routeDecision('apps maybe', classification('list_apps', { confidence: 0.79 }))).toMatchObject({ route: 'model', reason: 'low_confidence' });
    expect(routeDecision('the weather', classification('unknown', { confidence: 1 }))).toMatchObject({ route: 'model', reason: 'unknown_intent' });
  });

  it('finds reasoning words whole, whatever their case, multi-word ones across spaces', () => {
    expect(reasoningWords('Why is it DEGRADED, how  come, and what is the Root Cause?')).toEqual(['why', 'how come', 'root cause']);
    expect(reasoningWords('payments vs. search, or prod versus staging; prioritize and prioritise them')).toEqual(['vs.', 'versus', 'prioritize', 'prioritise']);
    // Inside a word or a name they are no reasoning word: "planned", "because", "risk-engine-prod", "showcase".
    expect(reasoningWords('planned devices because of risk-engine-prod and fraud-risk in showcase')).toEqual([]);
    for (const word of ['why', 'compare', 'versus', 'vs', 'plan', 'worst', 'best', 'should', 'recommend', 'risk', 'prioritise', 'prioritize', 'explain', 'analyse', 'analyze', 'root cause', 'how come']) {
      expect(REASONING_WORDS).toContain(word);
      expect(reasoningWords(`apps ${word} now`)).toEqual([word]);
    }
  });
});
