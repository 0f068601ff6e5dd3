import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '@flotilla/tokens';
import { AnswerCache, ANSWER_CACHE_DEFAULTS } from './answer-cache.js';
import { questionParts, QUESTION_PARTS } from './parts.js';
import { createRulesClassifier, editDistance, MEANING_CHANGERS, TYPO_LIMITS } from './rules.js';
import { createWorkflow, rulesModel, unappliedEntities, type AgentDomain, type CachedTurn, type CallTool, type ToolResult } from './workflow.js';

/**
 * Issue 17: every word of a question accounted for. A toy classifier (list intent, a colour entity with its span)
 * and a toy domain that lists "things" filtered by colour, over a tool whose calls are counted.
 */
type Intent = 'list' | 'unknown';
const classifier = createRulesClassifier<Intent>({
  rules: [{ intent: 'list', complexity: 'simple', patterns: [{ pattern: /\bthings\b/, weight: 0.9 }] }],
  entities: [
    {
      name: 'colour',
      extract: (_q, t) => {
        const m = /\b(red|green|blue)\b/.exec(t);
        return m?.[1] === undefined ? undefined : { value: m[1], spans: [[m.index, m.index + m[0].length]] };
      },
    },
  ],
  fallback: 'unknown',
  understood: [/\b(?:show|list|the|all|things|me|which|are|please)\b/g],
  vocabulary: ['things', 'green', 'yellow', 'purple'],
  known: ['show', 'list', 'the', 'all', 'which', 'are', 'please'],
  namePrefixes: ['named'],
});

describe('the rules classifier accounts for every word', () => {
  it('returns the words neither an entity nor the understood words cover', () => {
    expect(classifier.classify('show me the red things').unused).toEqual([]);
    expect(classifier.classify('show me the red things in Amsterdam').unused).toEqual(['in', 'amsterdam']);
    expect(classifier.classify('show the things colours').unused).toEqual(['colours']);
  });

  it('corrects a typo towards a word that carries meaning, and says so', () => {
    const got = classifier.classify('show the greeen thnigs');
    expect(got.entities.colour).toBe('green');
    expect(got.corrected).toEqual([
      { from: 'greeen', to: 'green' },
      { from: 'thnigs', to: 'things' },
    ]);
    expect(got.unused).toEqual([]);
  });

  it('reports the word typed, not the word it was misread as, when nothing uses the correction', () => {
    const got = classifier.classify('show the purpel things');
    expect(got.unused).toEqual(['purpel']);
    expect(got.corrected).toEqual([]);
  });

  it('corrects a four-letter word only by a swap, nothing after a name prefix, nothing inside a name or URL', () => {
    // Four letters: "gren" is one insertion from "green", not a swap of any word: left as it is.
    expect(classifier.classify('show the gren things').corrected).toEqual([]);
    expect(classifier.classify('show the grene things').corrected).toEqual([{ from: 'grene', to: 'green' }]);
    expect(classifier.classify('show the thnigs named gren').corrected).toEqual([{ from: 'thnigs', to: 'things' }]);
    expect(classifier.classify('show the things at gren-1.example.com').corrected).toEqual([]);
    expect(classifier.classify('show the things purpel-api').corrected).toEqual([]);
  });

  it(`corrects words of ${TYPO_LIMITS.maxWordChars} letters at most, and the first ${TYPO_LIMITS.maxWords} words only`, () => {
    expect(classifier.classify(`things ${'y'.repeat(TYPO_LIMITS.maxWordChars + 1)}`).corrected).toEqual([]);
    const many = `${'list '.repeat(TYPO_LIMITS.maxWords)}greeen things`;
    expect(classifier.classify(many).corrected).toEqual([]);
    expect(classifier.classify(`${'list '.repeat(TYPO_LIMITS.maxWords - 2)}greeen things`).corrected).toEqual([{ from: 'greeen', to: 'green' }]);
  });

  it('measures edit distance with swaps, and stops early past the bound', () => {
    expect(editDistance('snyc', 'sync', 1)).toBe(1);
    expect(editDistance('degarded', 'degraded', 2)).toBe(1);
    expect(editDistance('kitten', 'sitting', 5)).toBe(3);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
    expect(editDistance('a', 'abcdef', 2)).toBe(3);
  });
});

describe('questionParts', () => {
  it('splits a question in several parts where a new question starts, and keeps one question whole', () => {
    expect(questionParts('how many apps are in project x, and which are unhealthy?')).toEqual(['how many apps are in project x', 'which are unhealthy?']);
    expect(questionParts('list sites? show devices in ams1')).toEqual(['list sites', 'show devices in ams1']);
    expect(questionParts('show apps that are degraded and are in prod')).toEqual(['show apps that are degraded and are in prod']);
    // A piece shorter than QUESTION_PARTS.minChars stays with the part before it.
    expect(questionParts('list sites; ok')).toEqual(['list sites; ok']);
  });

  it(`answers at most ${QUESTION_PARTS.max} parts (the rest stays in the last) and is bounded on any input`, () => {
    const parts = questionParts('list a; list b; list c; list d; list e');
    expect(parts).toHaveLength(QUESTION_PARTS.max);
    expect(parts[QUESTION_PARTS.max - 1]).toBe('list c; list d; list e');
    const spaces = questionParts(`list sites${' '.repeat(100_000)}and which devices`);
    expect(spaces).toEqual(['list sites', 'which devices']);
  });
});

describe('the workflow never answers the rest of a question it did not understand', () => {
  const domain: AgentDomain<Intent, undefined> = {
    filterEntities: ['colour'],
    plan: (c) => (c.intent === 'list' ? [{ tool: 'list_things', args: { limit: 5 } }] : []),
    respond: ({ results, limitations }) => ({ text: limitations.length > 0 ? "I can't answer that." : `${results.length} lists read.`, options: [], memory: undefined }),
  };

  async function setup() {
    let calls = 0;
    const callTool: CallTool = (call) => {
      calls += 1;
      return Promise.resolve({ call, isError: false, body: {} });
    };
    const cache = new AnswerCache<CachedTurn<Intent, undefined>>(ANSWER_CACHE_DEFAULTS);
    const workflow = createWorkflow({ model: rulesModel(classifier), domain, callTool, counter: await loadTokenCounter(), answerCache: { cache, cacheableIntents: ['list'] } });
    return { workflow, calls: () => calls, cache };
  }

  it('runs no tool call when a word that changes the question is not understood, and says why', async () => {
    expect(MEANING_CHANGERS.has('not')).toBe(true);
    const { workflow, calls } = await setup();
    const turn = await workflow.ask('show the things not red', 'c1');
    expect(calls()).toBe(0);
    expect(turn.answer).toMatch(/^I did not understand "not" in your question, and without "not" an answer would be the opposite/);
    expect(turn.data?.not_applied).toEqual(['"not"']);
  });

  it('names a filter no tool call applied, and answers the rest', async () => {
    const { workflow, calls } = await setup();
    const turn = await workflow.ask('show the red things', 'c2');
    expect(calls()).toBe(1);
    expect(turn.answer).toMatch(/^I did not apply colour red: this answer is not filtered by it\.\n1 lists read\./);
  });

  it('never serves a cached answer to a question with words not understood or typos', async () => {
    const { workflow } = await setup();
    expect((await workflow.ask('list all things', 'c3')).cached).toBe(false);
    expect((await workflow.ask('list all things', 'c4')).cached).toBe(true);
    expect((await workflow.ask('list all things in Amsterdam', 'c5')).cached).toBe(false);
    expect((await workflow.ask('list all thnigs', 'c6')).cached).toBe(false);
  });

  it('finds applied values in any argument, k=v filters and {key: value} pairs included', () => {
    const c = classifier.classify('show the red things');
    const result = (args: Record<string, unknown>): ToolResult => ({ call: { tool: 't', args }, isError: false, body: {} });
    expect(unappliedEntities(c, ['colour'], [result({ colour: 'red' })])).toEqual([]);
    expect(unappliedEntities(c, ['colour'], [result({ filter: 'colour=red' })])).toEqual([]);
    expect(unappliedEntities(c, ['colour'], [result({ nested: { values: ['RED'] } })])).toEqual([]);
    expect(unappliedEntities(c, ['colour'], [result({ colour: 'blue' })])).toEqual(['colour red']);
    expect(unappliedEntities(c, ['colour'], [])).toEqual([]);
  });
});
