import { describe, expect, it } from 'vitest';
import { CLASSIFICATION_MEMO, createRulesClassifier, type EntityExtractor, type RulesClassifierOptions } from './rules.js';

/**
 * The same question is classified once per classifier (CLASSIFICATION_MEMO): the many askers of a cached answer share
 * one reading. Counted through the extractors, which run once per classification made.
 */
type Intent = 'list_apps' | 'unknown';

function counting(): { readonly options: RulesClassifierOptions<Intent>; readonly runs: { env: number; window: number }; now: number } {
  const state = { runs: { env: 0, window: 0 }, now: 1_000_000 };
  const env: EntityExtractor = {
    name: 'env',
    extract: (_q, t) => {
      state.runs.env += 1;
      return /\bin (prod|staging)\b/.exec(t)?.[1];
    },
  };
  // "in the last hour" ends at the time of asking: read from the clock.
  const window: EntityExtractor = {
    name: 'window',
    clock: true,
    extract: (_q, t) => {
      state.runs.window += 1;
      return /\blast hour\b/.test(t) ? String(state.now - 3_600_000) : undefined;
    },
  };
  const options: RulesClassifierOptions<Intent> = {
    rules: [{ intent: 'list_apps', complexity: 'simple', patterns: [{ pattern: /\bapps\b/, weight: 0.9 }] }],
    entities: [env, window],
    fallback: 'unknown',
  };
  return Object.assign(state, { options });
}

describe('the classification memo', () => {
  it('reads a question once and hands every caller the same frozen classification', () => {
    const c = counting();
    const classifier = createRulesClassifier(c.options);
    const first = classifier.classify('which apps are out of sync in prod');
    const again = classifier.classify('which apps are out of sync in prod');
    expect(again).toBe(first);
    expect(c.runs.env).toBe(1);
    expect(first.entities.env).toBe('prod');
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.entities)).toBe(true);
    expect(Object.isFrozen(first.alternatives)).toBe(true);
    // Another text is another question.
    classifier.classify('which apps are out of sync in staging');
    expect(c.runs.env).toBe(2);
  });

  it('never keeps a classification that read the clock: each asking has its own window', () => {
    const c = counting();
    const classifier = createRulesClassifier(c.options);
    const early = classifier.classify('apps synced in the last hour');
    c.now += 60_000;
    const later = classifier.classify('apps synced in the last hour');
    expect(c.runs.window).toBe(2);
    expect(later.entities.window).not.toBe(early.entities.window);
    expect(Number(later.entities.window) - Number(early.entities.window)).toBe(60_000);
  });

  it('holds at most its entries, forgetting the least recently asked first, and no long question', () => {
    const c = counting();
    const classifier = createRulesClassifier(c.options);
    const first = classifier.classify('apps 0');
    for (let i = 1; i <= CLASSIFICATION_MEMO.entries; i += 1) classifier.classify(`apps ${i}`);
    const runs = c.runs.env;
    // "apps 0" was pushed out by the entries after it: read again, a new object.
    const reread = classifier.classify('apps 0');
    expect(c.runs.env).toBe(runs + 1);
    expect(reread).not.toBe(first);
    expect(reread).toEqual(first);
    const long = `apps ${'x'.repeat(CLASSIFICATION_MEMO.maxChars)}`;
    classifier.classify(long);
    classifier.classify(long);
    expect(c.runs.env).toBe(runs + 3);
  });
});
