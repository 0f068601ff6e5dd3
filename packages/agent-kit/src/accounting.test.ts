import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '@flotilla/tokens';
import { AnswerCache } from './answer-cache.js';
import { createRulesClassifier, editDistance, MEANING_CHANGERS, TYPO_LIMITS, type EntityExtractor, type Extracted, type RulesClassifierOptions } from './rules.js';
import type { AgentDomain, CachedTurn, CallTool, ToolCall, ToolResult } from './domain.js';
import { accountingNote, createWorkflow, notApplied, rulesModel, unappliedEntities } from './workflow.js';

/**
 * Every word of a question is accounted for: used by an entity, understood, corrected (and said so) or reported as
 * not understood; a word that changes the question left unused stops the turn before any tool call; filters asked
 * for and in no tool call are named; such answers are never cached. A toy domain over a counting `callTool`.
 */
type Intent = 'list_apps' | 'unknown';

/** Group 1 of `pattern` as the value, the whole match as the span read. */
const read =
  (name: string, pattern: RegExp): EntityExtractor => ({
    name,
    extract: (_q, t): Extracted | undefined => {
      const m = pattern.exec(t);
      return m?.[1] === undefined ? undefined : { value: m[1], spans: [[m.index, m.index + m[0].length]] };
    },
  });

const LONG_24 = 'abcdefghijklmnopqrstuvwx';
const LONG_25 = `${LONG_24}y`;
/** One transposition away from each: a typo by every measure, but only one of them is short enough to correct. */
const swapFirst = (word: string): string => `${word[1] ?? ''}${word[0] ?? ''}${word.slice(2)}`;

const UNDERSTOOD = ['list', 'show', 'which', 'the', 'all', 'apps', 'applications', 'are', 'of', 'for', 'in', 'ok', 'sync', 'health', 'unhealthy', 'stage', LONG_24, LONG_25];
const options: RulesClassifierOptions<Intent> = {
  rules: [{ intent: 'list_apps', complexity: 'simple', patterns: [{ pattern: /\b(?:apps|applications)\b/, weight: 0.9 }] }],
  entities: [
    read('project', /\bproject ([\w.-]+)/),
    read('env', /\bin (prod|staging)\b/),
    read('team', /\bteam ([\w-]+)/),
    read('url', /(https?:\/\/\S+)/),
    read('label', /\blabel ([\w.=-]+)/),
  ],
  fallback: 'unknown',
  understood: [new RegExp(`\\b(?:${UNDERSTOOD.join('|')})\\b`)],
  vocabulary: ['which', 'list', 'sync', 'apps', 'applications', 'health', 'unhealthy', 'stage', LONG_24, LONG_25],
  namePrefixes: ['project'],
  known: ['state'],
};
const classifier = createRulesClassifier(options);
const classify = (question: string) => classifier.classify(question);
const correctedOf = (question: string) => classify(question).corrected ?? [];

describe('editDistance (optimal string alignment, early stop)', () => {
  it('counts insertions, deletions, substitutions and a swap of neighbours as one edit each', () => {
    expect(editDistance('sync', 'sync', 2)).toBe(0);
    expect(editDistance('snyc', 'sync', 2)).toBe(1);
    expect(editDistance('lsit', 'list', 2)).toBe(1);
    expect(editDistance('healty', 'health', 2)).toBe(1);
    expect(editDistance('aplications', 'applications', 2)).toBe(1);
    expect(editDistance('kitten', 'sitting', 5)).toBe(3);
    expect(editDistance('', 'abc', 5)).toBe(3);
    expect(editDistance('abc', '', 5)).toBe(3);
    // Optimal string alignment, not full Damerau: a swapped pair is not edited again.
    expect(editDistance('ca', 'abc', 5)).toBe(3);
  });

  it('stops early past max and says so with max + 1', () => {
    expect(editDistance('kitten', 'sitting', 2)).toBe(3);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
    expect(editDistance('abcdef', 'uvwxyz', 10)).toBe(6);
    // Lengths further apart than max: no table at all.
    expect(editDistance('a', 'abcdefgh', 3)).toBe(4);
    expect(editDistance('sync', 'sync', 0)).toBe(0);
    expect(editDistance('snyc', 'sync', 0)).toBe(1);
  });
});

describe('typo correction', () => {
  it('reads a typo as the one nearest meaningful word, and reports it', () => {
    const c = classify('lsit apps out of snyc');
    expect(c.corrected).toEqual([
      { from: 'lsit', to: 'list' },
      { from: 'snyc', to: 'sync' },
    ]);
    expect(c.unused).toEqual(['out']);
  });

  it('reads a four-letter word only as one with two letters swapped', () => {
    expect(correctedOf('lsit apps')).toEqual([{ from: 'lsit', to: 'list' }]);
    // One substitution away from "list", one deletion from "apps": not read as either.
    expect(correctedOf('lust apps')).toEqual([]);
    expect(classify('lust apps').unused).toEqual(['lust']);
    expect(correctedOf('list appps')).toEqual([{ from: 'appps', to: 'apps' }]);
  });

  it('never corrects a word of fewer than four letters', () => {
    expect(correctedOf('aps')).toEqual([]);
    expect(classify('list aps').unused).toEqual(['aps']);
  });

  it('allows one edit for 5-7 letters and two from 8', () => {
    expect(correctedOf('apps healty')).toEqual([{ from: 'healty', to: 'health' }]);
    expect(correctedOf('apps heelty')).toEqual([]);
    expect(correctedOf('apps unhaelty')).toEqual([{ from: 'unhaelty', to: 'unhealthy' }]);
    expect(correctedOf('apps uxhxxlthy')).toEqual([]);
  });

  it(`corrects words of up to TYPO_LIMITS.maxWordChars (${TYPO_LIMITS.maxWordChars}) letters, no longer`, () => {
    expect(LONG_24).toHaveLength(TYPO_LIMITS.maxWordChars);
    expect(correctedOf(`apps ${swapFirst(LONG_24)}`)).toEqual([{ from: swapFirst(LONG_24), to: LONG_24 }]);
    expect(correctedOf(`apps ${swapFirst(LONG_25)}`)).toEqual([]);
    expect(classify(`apps ${swapFirst(LONG_25)}`).unused).toEqual([swapFirst(LONG_25)]);
  });

  it(`corrects within the first TYPO_LIMITS.maxWords (${TYPO_LIMITS.maxWords}) words only`, () => {
    const filler = (n: number): string => 'ok '.repeat(n);
    expect(correctedOf(`${filler(TYPO_LIMITS.maxWords - 1)}snyc`)).toEqual([{ from: 'snyc', to: 'sync' }]);
    expect(correctedOf(`${filler(TYPO_LIMITS.maxWords)}snyc`)).toEqual([]);
  });

  it('never corrects a name: after a name prefix, inside a name, a URL or k=v', () => {
    const project = classify('apps of project snyc');
    expect(project.corrected).toEqual([]);
    expect(project.entities.project).toBe('snyc');
    for (const name of ['snyc-web', 'web-snyc', 'snyc.io', 'snyc_web']) {
      const c = classify(`apps of ${name}`);
      expect(c.corrected).toEqual([]);
      expect(c.unused).toEqual([name]);
    }
    const url = classify('apps of https://snyc.example.com/helth');
    expect(url.corrected).toEqual([]);
    expect(url.entities.url).toBe('https://snyc.example.com/helth');
    const label = classify('apps with label tier=snyc');
    expect(label.corrected).toEqual([]);
    expect(label.entities.label).toBe('tier=snyc');
    // A full stop ending the sentence is no name.
    expect(correctedOf('apps out of snyc.')).toEqual([{ from: 'snyc', to: 'sync' }]);
  });

  it('never corrects a known word, nor towards a tie', () => {
    expect(correctedOf('apps in state')).toEqual([]);
    expect(classify('apps in state').unused).toEqual(['state']);
    // Without `known`, "state" would be read as "stage".
    expect(createRulesClassifier({ ...options, known: [] }).classify('apps in state').corrected).toEqual([{ from: 'state', to: 'stage' }]);
    // "lsit" is one swap from both "list" and "slit": neither is chosen.
    expect(createRulesClassifier({ ...options, vocabulary: ['list', 'slit'] }).classify('lsit apps').corrected).toEqual([]);
  });

  it('keeps a typo read as a word nothing used as not understood, spelt as asked', () => {
    const c = createRulesClassifier({ ...options, understood: [/\bapps\b/] }).classify('apps healty');
    expect(c.corrected).toEqual([]);
    // The word typed, never the word it was misread as.
    expect(c.unused).toEqual(['healty']);
    expect(accountingNote(c)).toMatch(/^I did not understand "healty" in your question/);
  });

  it('corrects nothing without a vocabulary', () => {
    const c = createRulesClassifier({ ...options, vocabulary: undefined }).classify('lsit apps');
    expect(c.corrected).toEqual([]);
    expect(c.unused).toEqual(['lsit']);
  });
});

describe('unused words', () => {
  it('are the words neither an entity nor understood, in order, without repeats', () => {
    expect(classify('which apps cost the most cost').unused).toEqual(['cost', 'most']);
    expect(classify('list apps of project web in prod').unused).toEqual([]);
    // A possessive is its name.
    expect(classify("apps of project web's").unused).toEqual([]);
  });

  it('are not reported at all when the classifier does not account for words', () => {
    const c = createRulesClassifier({ ...options, understood: undefined }).classify('which apps cost the most');
    expect(c.unused).toBeUndefined();
    expect(c.corrected).toBeUndefined();
  });
});

describe('accountingNote, unappliedEntities, notApplied', () => {
  const base = { intent: 'list_apps' as const, entities: {}, confidence: 0.9, complexity: 'simple' as const, alternatives: [] };

  it('names the words not understood, a meaning changer as a refusal, and the typos read', () => {
    expect(accountingNote(undefined)).toBe('');
    expect(accountingNote(base)).toBe('');
    expect(accountingNote({ ...base, unused: ['cost'] })).toBe('I did not understand "cost" in your question, so this answer does not take it into account.');
    expect(accountingNote({ ...base, unused: ['cost', 'most'] })).toBe('I did not understand "cost", "most" in your question, so this answer does not take them into account.');
    expect(accountingNote({ ...base, unused: ['not', 'cost'] })).toBe(
      'I did not understand "not", "cost" in your question, and without "not" an answer would be the opposite or only part of what you asked, so I did not run it.',
    );
    expect(accountingNote({ ...base, unused: [], corrected: [{ from: 'lsit', to: 'list' }, { from: 'snyc', to: 'sync' }] })).toBe('(Read "lsit" as "list", "snyc" as "sync".)');
  });

  const call = (tool: string, args: Record<string, unknown>): ToolResult => ({ call: { tool, args }, isError: false, body: {} });

  it('names filter entities whose values are in no tool call (any argument, case-insensitive, {key: value} and k=v)', () => {
    const c = {
      ...base,
      entities: { project: 'Web', env: 'prod', team: 'a', state: 'cabled=false', status: 'offline', role: ['switch', 'router'], vid: '100', site: 'ams1' },
    };
    const names = ['project', 'env', 'team', 'state', 'status', 'role', 'vid', 'site', 'not-asked'];
    const results = [
      call('list_interfaces', { project: 'web', cabled: false, vid: 100, role: ['switch'], scope: { site: 'AMS1' } }),
      call('read_result', { result_id: 'r1', filter: 'status=offline' }),
    ];
    expect(unappliedEntities(c, names, results)).toEqual(['env prod', 'team a', 'role switch, router']);
    // A k=v list applies each of its values.
    expect(unappliedEntities(c, ['env', 'team'], [call('list_applications', { selector: 'env=prod,team=a' })])).toEqual([]);
    expect(unappliedEntities(c, ['state'], [call('list_interfaces', { cabled: true })])).toEqual(['state cabled=false']);
  });

  it('names nothing when nothing ran, nothing was asked, or no names are filters', () => {
    const c = { ...base, entities: { env: 'prod' } };
    expect(unappliedEntities(c, ['env'], [])).toEqual([]);
    expect(unappliedEntities(c, [], [call('x', {})])).toEqual([]);
    expect(unappliedEntities(undefined, ['env'], [call('x', {})])).toEqual([]);
    expect(unappliedEntities(c, ['env'], [call('x', {})])).toEqual(['env prod']);
  });

  it('reads a domain answer\'s not_applied list', () => {
    expect(notApplied(undefined)).toEqual([]);
    expect(notApplied({ not_applied: 'group_by' })).toEqual([]);
    expect(notApplied({ not_applied: ['group_by role', 3] })).toEqual(['group_by role', '3']);
  });
});

describe('the workflow accounts for every word', () => {
  /** A toy domain: one list call with project and env (team is never applied), after a count probe. */
  const domain: AgentDomain<Intent, undefined> = {
    filterEntities: ['project', 'env', 'team'],
    plan: (c) => (c.intent === 'list_apps' ? [{ tool: 'list_apps', args: { project: c.entities.project, env: c.entities.env } }] : []),
    assess: async ({ plan, callTool }) => {
      const probe = await callTool({ tool: 'count_apps', args: {} });
      return { limitations: [], handling: undefined, plan, probes: [probe], detectSeconds: 0 };
    },
    respond: ({ results, limitations }) => ({ text: limitations.length > 0 ? 'Not answered.' : `Listed with ${results.length} call(s).`, options: [], memory: undefined }),
  };

  async function setup(classifierOptions: RulesClassifierOptions<Intent> = options) {
    const calls: ToolCall[] = [];
    const callTool: CallTool = (c) => {
      calls.push(c);
      return Promise.resolve({ call: c, isError: false, body: { total: 1 } });
    };
    const cache = new AnswerCache<CachedTurn<Intent, undefined>>();
    const workflow = createWorkflow({
      model: rulesModel(createRulesClassifier(classifierOptions)),
      domain,
      callTool,
      counter: await loadTokenCounter(),
      answerCache: { cache, cacheableIntents: ['list_apps'] },
    });
    let n = 0;
    return { calls, ask: (question: string) => workflow.ask(question, `c${(n += 1)}`) };
  }

  it('answers a question whose meaning changer it did not understand without any tool call', async () => {
    const { calls, ask } = await setup();
    for (const word of MEANING_CHANGERS) {
      const turn = await ask(`list apps ${word} in prod`);
      expect(turn.toolCalls, word).toBe(0);
      expect(turn.strategy, word).toBe('limitation_aware');
      expect(turn.limitations, word).toEqual([{ kind: 'unsupported', detail: `not understood: ${word}` }]);
      expect(turn.answer, word).toContain(`without "${word}" an answer would be the opposite or only part of what you asked, so I did not run it.`);
      expect(turn.data?.not_applied, word).toEqual([`"${word}"`]);
    }
    // Neither the probe nor the plan ran.
    expect(calls).toEqual([]);
    // Understood, the same word is no obstacle.
    const knowing = await setup({ ...options, understood: [...(options.understood ?? []), /\bnot\b/] });
    const turn = await knowing.ask('list apps not in prod');
    expect(turn.toolCalls).toBe(1);
    expect(knowing.calls.map((c) => c.tool)).toEqual(['count_apps', 'list_apps']);
  });

  it('answers with another word not understood, and says it did not take it into account', async () => {
    const { calls, ask } = await setup();
    const turn = await ask('list costly apps in prod');
    expect(calls.map((c) => c.tool)).toEqual(['count_apps', 'list_apps']);
    expect(turn.answer).toBe('I did not understand "costly" in your question, so this answer does not take it into account.\nListed with 1 call(s).');
    expect(turn.data?.not_applied).toEqual(['"costly"']);
  });

  it('names a filter entity no tool call applied, in the answer and in not_applied', async () => {
    const { ask } = await setup();
    const turn = await ask('list apps of team payments in prod');
    expect(turn.answer).toBe('I did not apply team payments: this answer is not filtered by it.\nListed with 1 call(s).');
    expect(turn.data?.not_applied).toEqual(['team payments']);
    const applied = await ask('list apps of project web in prod');
    expect(applied.answer).toBe('Listed with 1 call(s).');
    expect(applied.data).toBeUndefined();
  });

  it('answers a question that asks for reasoning with the data, says it did not reason, and never shares it through the cache', async () => {
    const { calls, ask } = await setup({ ...options, understood: [...(options.understood ?? []), /\b(?:tell|me|what|to|do|about|them|and|why)\b/] });
    const turn = await ask('list apps in prod and tell me what to do about them');
    expect(calls.map((c) => c.tool)).toEqual(['count_apps', 'list_apps']);
    expect(turn.answer).toBe('"what to do" asks for reasoning I do not do: I answer from the data alone, without a model, so this answer shows what the data says and leaves the rest to you.\nListed with 1 call(s).');
    expect(turn.data?.not_applied).toEqual(['reasoning "what to do"']);
    // The plain question is answered anew (not with the note), and the reasoning one is never answered from the cache.
    const plain = await ask('list apps in prod');
    expect([plain.cached, plain.answer]).toEqual([false, 'Listed with 1 call(s).']);
    const again = await ask('list apps in prod and tell me what to do about them');
    expect(again.cached).toBe(false);
    expect(again.answer).toContain('asks for reasoning I do not do');
    expect((await ask('why list apps in prod')).answer).toMatch(/^"why" asks for reasoning/);
  });

  it('never caches, nor answers from the cache, a question with a word not understood or corrected', async () => {
    const { calls, ask } = await setup();
    const lists = (): number => calls.filter((c) => c.tool === 'list_apps').length;
    expect((await ask('list apps in prod')).cached).toBe(false);
    expect((await ask('list apps in prod')).cached).toBe(true);
    expect(lists()).toBe(1);
    // Same intent and entities as the cached question, but a typo: answered afresh, the correction said.
    const typo = await ask('lsit apps in prod');
    expect(typo.cached).toBe(false);
    expect(typo.answer).toContain('(Read "lsit" as "list".)');
    expect((await ask('lsit apps in prod')).cached).toBe(false);
    expect(lists()).toBe(3);
    // Same again with a word not understood.
    const costly = await ask('list costly apps in prod');
    expect(costly.cached).toBe(false);
    expect(costly.answer).toContain('"costly"');
    expect((await ask('list costly apps in prod')).cached).toBe(false);
    expect(lists()).toBe(5);
    // The clean question is still served from the cache, its answer unchanged.
    const again = await ask('list apps in prod');
    expect(again.cached).toBe(true);
    expect(again.answer).toBe('Listed with 1 call(s).');
    expect(lists()).toBe(5);
  });
});
