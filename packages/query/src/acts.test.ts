import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ACT_LIMITS, readAct, type ConversationAct } from './index.js';

/**
 * The model the sentences are drawn from: how people ask for each act (a head phrase), the politeness and pronouns
 * that may wrap it, and the words of a domain, any of which turns the sentence into a question about the estate.
 */
const HEADS: readonly (readonly [string, ConversationAct])[] = [
  ['next', { kind: 'page', to: 'next' }],
  ['next page', { kind: 'page', to: 'next' }],
  ['the next batch', { kind: 'page', to: 'next' }],
  ['more', { kind: 'page', to: 'next' }],
  ['more of them', { kind: 'page', to: 'next' }],
  ['the next 20', { kind: 'page', to: 'next' }],
  ['20 more', { kind: 'page', to: 'next' }],
  ['continue', { kind: 'page', to: 'next' }],
  ['keep going', { kind: 'page', to: 'next' }],
  ['go on', { kind: 'page', to: 'next' }],
  ['carry on', { kind: 'page', to: 'next' }],
  ['the rest', { kind: 'page', to: 'next' }],
  ['the rest of them', { kind: 'page', to: 'next' }],
  ['the remaining ones', { kind: 'page', to: 'next' }],
  ['previous page', { kind: 'page', to: 'previous' }],
  ['go back', { kind: 'page', to: 'previous' }],
  ['the one before', { kind: 'page', to: 'previous' }],
  ['prev', { kind: 'page', to: 'previous' }],
  ['first page', { kind: 'page', to: 1 }],
  ['back to the start', { kind: 'page', to: 1 }],
  ['page 3', { kind: 'page', to: 3 }],
  ['page number 12', { kind: 'page', to: 12 }],
  ['batch two', { kind: 'page', to: 2 }],
  ['the second page', { kind: 'page', to: 2 }],
  ['list them', { kind: 'page', to: 1 }],
  ['show those', { kind: 'page', to: 1 }],
  ['show them all', { kind: 'all' }],
  ['all of them', { kind: 'all' }],
  ['get all', { kind: 'all' }],
  ['the full analysis', { kind: 'all' }],
  ['everything', { kind: 'all' }],
  ['a quick look', { kind: 'sample' }],
  ['just a sample', { kind: 'sample' }],
  ['a rough idea', { kind: 'sample' }],
  ['try again', { kind: 'retry' }],
  ['retry', { kind: 'retry' }],
  ['ask it again', { kind: 'retry' }],
  ['summary', { kind: 'summary' }],
  ['just the counts', { kind: 'summary' }],
  ['the totals only', { kind: 'summary' }],
  ['an overview', { kind: 'summary' }],
  ['help', { kind: 'help' }],
  ['what can you do', { kind: 'help' }],
  ['how do i use you', { kind: 'help' }],
  ['what do you support', { kind: 'help' }],
  ['what can i ask', { kind: 'help' }],
  ['which agents can i ask', { kind: 'help' }],
  ['what agents are there', { kind: 'help' }],
  ['hi, what can you help with', { kind: 'help' }],
];
const OPENERS = ['', 'please', 'ok', 'ok,', 'can you', 'could you please', 'and', 'now', 'show me', 'give me', 'i want to see', 'yes', 'thanks,', 'ok now'] as const;
const CLOSERS = ['', 'please', 'thanks', 'now', 'instead', '?', '.', '!', 'pls'] as const;
/** Words of the estates: any one of them makes the sentence a question the domain reads. */
const DOMAIN_WORDS = ['apps', 'applications', 'degraded', 'switches', 'ams1', 'payments-api-prod', 'prod', 'cluster', 'interfaces', 'sync', 'delete', 'devices', 'healthy', 'offline', 'site', 'staging', 'vlans', 'images', 'repo', 'failed', 'deployed', 'racks', 'tenant', 'owner', 'why', 'cost', 'errors', 'in'] as const;

/** A head that reads the same with a closer after it: the sentence people type ("next page please"). */
const sentence = (opener: string, head: string, closer: string): string => [opener, head, closer].filter((w) => w !== '').join(' ').replace(/ ([?.!])$/, '$1');

describe('conversation acts', () => {
  it('reads every act of the model, wrapped in any politeness, as that act', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HEADS), fc.constantFrom(...OPENERS), fc.constantFrom(...CLOSERS), fc.boolean(), ([head, act], opener, closer, upper) => {
        // "instead" follows an alternative, not a page ("next page instead" is odd but harmless; kept).
        const text = sentence(opener, head, closer);
        expect(readAct(upper ? text.toUpperCase() : text)).toEqual(act);
      }),
      { numRuns: 600, seed: 31 },
    );
  });

  it('reads no act when a word of the domain is anywhere in the sentence', () => {
    fc.assert(
      fc.property(fc.constantFrom(...HEADS), fc.constantFrom(...OPENERS), fc.constantFrom(...DOMAIN_WORDS), fc.nat(), ([head], opener, word, at) => {
        const words = sentence(opener, head, '').split(' ');
        words.splice(at % (words.length + 1), 0, word);
        expect(readAct(words.join(' '))).toBeUndefined();
      }),
      { numRuns: 600, seed: 32 },
    );
  });

  it('reads questions that begin with an act word as questions', () => {
    for (const q of ['more degraded apps', 'next sync of payments-api', 'what can you tell me about ams1-sw-001', 'help me find payments', 'summary of prod apps', 'all apps in prod', 'top 5 sites by devices', 'list all', 'the last page', 'show me apps', 'page', 'back up the database', 'everything in ams1', 'retry the sync of guestbook', 'which agents are down', 'what do you have on ams1', 'who deployed guestbook', 'how do i sync an app']) {
      expect(readAct(q), q).toBeUndefined();
    }
  });

  it('reads a lone question mark as help, and nothing longer than its word limit as an act', () => {
    expect(readAct('?')).toEqual({ kind: 'help' });
    expect(readAct('')).toBeUndefined();
    expect(readAct(`${'please '.repeat(ACT_LIMITS.maxWords)}next page`)).toBeUndefined();
  });
});
