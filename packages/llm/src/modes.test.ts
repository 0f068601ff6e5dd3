import { describe, expect, it } from 'vitest';
import type { AnswerTurn, Classification } from '@flotilla/agent-kit';
import { createMetrics } from '@flotilla/metrics';
import { hybridAnswerTurn, reasoningWords, REASONING_WORDS, routeDecision, type HybridOptions, type ListOwner, type SharedConversation } from './modes.js';

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

describe('hybrid mode shares one conversation record between the rules and the model', () => {
  type Next = 'list_apps' | 'next_page' | 'unknown';
  /** A record in memory (what the model's history store keeps), the rules and a model that say who answered. */
  function shared(options: { readonly failRecord?: boolean; readonly rulesRemember?: boolean } = {}) {
    const records = new Map<string, { lastList: ListOwner | undefined; turns: string[] }>();
    const conversation: SharedConversation = {
      lastList: (contextId) => Promise.resolve(records.get(contextId)?.lastList),
      recordRulesTurn(contextId, turn) {
        if (options.failRecord === true) return Promise.reject(new Error('the shared state store cannot be reached'));
        const record = records.get(contextId) ?? { lastList: undefined, turns: [] };
        records.set(contextId, { lastList: turn.listed ? 'rules' : record.lastList, turns: [...record.turns, `${turn.question} -> ${turn.answer}`] });
        return Promise.resolve();
      },
    };
    const classify = (question: string): Classification<Next> =>
      question === 'next page'
        ? { intent: 'next_page', entities: {}, confidence: 0.98, complexity: 'simple', alternatives: [], unused: [] }
        : { intent: 'list_apps', entities: {}, confidence: 0.95, complexity: 'simple', alternatives: [], unused: [] };
    let fastCalls = 0;
    const fast: HybridOptions<Next>['fast'] = (question) => {
      fastCalls += 1;
      const nothing = question === 'next page' && options.rulesRemember !== true;
      return Promise.resolve({ reply: { answer: nothing ? 'There is no list to continue yet.' : `rules: ${question}`, options: [], metadata: {} }, failed: nothing, listed: !nothing });
    };
    const discovery: AnswerTurn = (question, contextId) => {
      // The model listed: its path owns the record's last list now (the LLM agent sets it from its tool results).
      const record = records.get(contextId) ?? { lastList: undefined, turns: [] };
      records.set(contextId, { ...record, lastList: 'model' });
      return Promise.resolve({ answer: `model: ${question}`, options: [], metadata: {} });
    };
    const metrics = createMetrics();
    const turn = hybridAnswerTurn<Next>({ agent: 'argocd', classify, fast, discovery, metrics, conversation, continuations: ['next_page'] });
    return { turn, records, metrics, fastCalls: () => fastCalls };
  }

  it('records a fast answer in the shared record, with whether it listed', async () => {
    const { turn, records } = shared();
    await turn('list apps', 'c1', () => undefined);
    expect(records.get('c1')).toEqual({ lastList: 'rules', turns: ['list apps -> rules: list apps'] });
  });

  it('sends "next page" to the model when the model produced the last list, without asking the rules', async () => {
    const { turn, records, fastCalls, metrics } = shared({ rulesRemember: true });
    records.set('c1', { lastList: 'model', turns: [] });
    const reply = await turn('next page', 'c1', () => undefined);
    expect([reply.answer, reply.metadata.route, reply.metadata.route_reason, fastCalls()]).toEqual(['model: next page', 'discovery', 'continues_model_list', 0]);
    expect(await metrics.registry.getSingleMetricAsString('flotilla_hybrid_routes_total')).toContain('route="discovery",reason="continues_model_list"} 1');
    // Once the rules list again, "next page" is theirs.
    await turn('list apps', 'c1', () => undefined);
    expect((await turn('next page', 'c1', () => undefined)).metadata).toMatchObject({ route: 'fast', route_reason: 'rules_execute_fully' });
  });

  it('sends "next page" with nothing to continue to the model as a failed fast path', async () => {
    const { turn } = shared();
    const reply = await turn('next page', 'c2', () => undefined);
    expect([reply.answer, reply.metadata.route, reply.metadata.route_reason]).toEqual(['model: next page', 'fallback', 'fast_path_failed']);
  });

  it('keeps a fast answer whose record could not be written, and says what that means for the next question', async () => {
    const { turn } = shared({ failRecord: true });
    const reply = await turn('list apps', 'c3', () => undefined);
    expect(reply.answer).toMatch(/^rules: list apps\n\n\(I could not keep this answer in the conversation's record \(the shared state store cannot be reached\)/);
    expect(reply.metadata.route).toBe('fast');
  });
});
