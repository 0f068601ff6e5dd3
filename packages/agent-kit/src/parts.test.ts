import { describe, expect, it } from 'vitest';
import { questionParts, QUESTION_PARTS } from './parts.js';
import { QUESTION_MAX_CHARS } from './rules.js';

/**
 * `questionParts`: a question in several parts is split where a new question starts, never inside one question's
 * filters; bounded in parts (QUESTION_PARTS.max), in how short a part may be (QUESTION_PARTS.minChars) and in the
 * text it reads (QUESTION_MAX_CHARS).
 */
describe('questionParts', () => {
  it('splits "…, and which …?" into two questions', () => {
    expect(questionParts('how many apps are in project x, and which are unhealthy?')).toEqual(['how many apps are in project x', 'which are unhealthy?']);
  });

  it('keeps two filters of one question joined by "and" whole', () => {
    expect(questionParts('apps that are degraded and are in prod')).toEqual(['apps that are degraded and are in prod']);
    expect(questionParts('apps that are degraded, and are in prod')).toEqual(['apps that are degraded, and are in prod']);
    expect(questionParts('apps in prod and staging')).toEqual(['apps in prod and staging']);
  });

  it('splits after "?", at ";", at ", also " and at "and also"/"plus" before a question word', () => {
    expect(questionParts('which apps are degraded? which are in prod?')).toEqual(['which apps are degraded', 'which are in prod?']);
    expect(questionParts('list projects; list clusters')).toEqual(['list projects', 'list clusters']);
    expect(questionParts('list projects, also the clusters')).toEqual(['list projects', 'the clusters']);
    expect(questionParts('list projects and also show the clusters')).toEqual(['list projects', 'show the clusters']);
    expect(questionParts('count the apps plus list the clusters')).toEqual(['count the apps', 'list the clusters']);
  });

  it('is one part for one question, the text trimmed and its whitespace collapsed', () => {
    expect(questionParts('  list   all\n\tapplications  ')).toEqual(['list all applications']);
  });

  it(`answers at most QUESTION_PARTS.max (${QUESTION_PARTS.max}) parts: the rest stays in the last one`, () => {
    const asked = ['list projects', 'list clusters', 'list applications', 'list application sets', 'list repositories'];
    const parts = questionParts(asked.join('; '));
    expect(parts).toHaveLength(QUESTION_PARTS.max);
    expect(parts.slice(0, QUESTION_PARTS.max - 1)).toEqual(asked.slice(0, QUESTION_PARTS.max - 1));
    expect(parts[QUESTION_PARTS.max - 1]).toBe(asked.slice(QUESTION_PARTS.max - 1).join('; '));
    // Exactly max parts are all answered separately.
    expect(questionParts(asked.slice(0, QUESTION_PARTS.max).join('; '))).toEqual(asked.slice(0, QUESTION_PARTS.max));
  });

  it(`does not split off a piece shorter than QUESTION_PARTS.minChars (${QUESTION_PARTS.minChars})`, () => {
    const short = 'x'.repeat(QUESTION_PARTS.minChars - 1);
    const long = 'y'.repeat(QUESTION_PARTS.minChars);
    expect(questionParts(`list all applications; ${short}`)).toEqual([`list all applications; ${short}`]);
    expect(questionParts(`list all applications; ${long}`)).toEqual(['list all applications', long]);
    // Empty pieces ("a;;b", a trailing ";") are no parts.
    expect(questionParts('list projects;; list clusters;')).toEqual(['list projects', 'list clusters']);
  });

  it('is bounded on pathological input: 100,000 spaces, and text past QUESTION_MAX_CHARS is not read', () => {
    expect(questionParts(' '.repeat(100_000))).toEqual(['']);
    // A run of spaces is one space: it neither slows the split nor hides the question after it.
    expect(questionParts(`list projects${' '.repeat(100_000)}; list clusters`)).toEqual(['list projects', 'list clusters']);
    // A question that starts after the cut is not read at all.
    const filler = 'x'.repeat(QUESTION_MAX_CHARS);
    const cut = questionParts(`list projects ${filler}; list clusters`);
    expect(cut).toHaveLength(1);
    expect(cut[0]).toBe(`list projects ${filler}`.slice(0, QUESTION_MAX_CHARS));
    const long = questionParts('apps and '.repeat(50_000));
    expect(long).toHaveLength(1);
    expect(long[0]?.length).toBeLessThanOrEqual(QUESTION_MAX_CHARS);
    const many = questionParts('list apps; '.repeat(50_000));
    expect(many).toHaveLength(QUESTION_PARTS.max);
    expect(many.join('; ').length).toBeLessThanOrEqual(QUESTION_MAX_CHARS);
  });
});
