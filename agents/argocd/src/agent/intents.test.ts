import { describe, expect, it } from 'vitest';
import { misreading, type IntentCase } from '@flotilla/agent-host/testing';
import { createArgoCdClassifier, type ArgoIntent } from './intents.js';

const classifier = createArgoCdClassifier();

/** Phrasings engineers actually type, with the intent and the entities each must yield. */
const TABLE: readonly IntentCase<ArgoIntent>[] = [
  ['status of payments-api-prod', 'application_details', { application: 'payments-api-prod' }],
  ['show me checkout-web-staging', 'application_details', { application: 'checkout-web-staging' }],
  ['is billing-worker-prod healthy?', 'application_details', { application: 'billing-worker-prod', health: 'Healthy' }],
  ["what's wrong with search-indexer-dev", 'application_details', { application: 'search-indexer-dev' }],
  ['describe ledger-api-qa', 'application_details', { application: 'ledger-api-qa' }],
  ['why is fraud-consumer-prod out of sync', 'application_details', { application: 'fraud-consumer-prod', sync: 'OutOfSync' }],
  ['details for app identity-auth-prod', 'application_details', { application: 'identity-auth-prod' }],
  ['payments-gateway-prod?', 'application_details', { application: 'payments-gateway-prod' }],
  ['resources of catalog-cache-staging', 'application_details', { application: 'catalog-cache-staging' }],
  ['find payments', 'search', { query: 'payments' }],
  ['anything about checkout?', 'search', { query: 'checkout' }],
  ['search for git.example.com/billing', 'search', { query: 'git.example.com/billing' }],
  ['where is the ledger service deployed', 'search', { query: 'ledger' }],
  ['look for fraud', 'search', { query: 'fraud' }],
  ['everything related to inventory', 'search', { query: 'inventory' }],
  ['what is the weather in Amsterdam', 'unknown', {}],
  ['restart the payments pods', 'unknown', {}],
];

describe('Argo CD rules classifier', () => {
  it(`classifies ${TABLE.length} realistic phrasings`, () => {
    expect(TABLE.map((row) => misreading(classifier, row)).filter((failure) => failure !== undefined)).toEqual([]);
    expect(TABLE.length).toBeGreaterThanOrEqual(15);
  });

  it('does not take parts of names for environments or statuses', () => {
    const got = classifier.classify('status of payments-api-prod');
    expect(got.entities.env).toBeUndefined();
    expect(classifier.classify('show me checkout-web-staging').entities.env).toBeUndefined();
  });

  it('is deterministic and bounded on long input', () => {
    const long = `${'which apps are out of sync '.repeat(500)}in prod`;
    expect(classifier.classify(long)).toEqual(classifier.classify(long));
    expect(classifier.classify('').intent).toBe('unknown');
  });
});

describe('one application named with the singular noun (issue 21)', () => {
  it('asks for that application, not a list of every application', () => {
    const table = [
      'show the payments-api-prod application',
      'show application payments-api-prod',
      'details of payments-api-prod',
      'the payments-api-prod app',
      'show me the payments-api-prod app',
      'tell me about the payments-api-prod application',
      // A possessive is its word: "app's" is understood, so the question is not sent to a model for it.
      "the payments-api-prod app's status",
    ];
    const got = table.map((q) => {
      const c = classifier.classify(q);
      return [q, c.intent, c.entities.application, c.confidence >= 0.8, c.unused];
    });
    expect(got).toEqual(table.map((q) => [q, 'application_details', 'payments-api-prod', true, []]));
  });

  it('leaves plural nouns and names that are not hyphenated to the typed reading (a list), not one application', () => {
    for (const q of ['show the payments apps', 'apps in project payments-prod', 'list applications in namespace billing-prod']) expect(classifier.classify(q).intent, q).not.toBe('application_details');
  });
});

describe('entity extraction: names next to "project"', () => {
  it('takes the name before "project" when the word after it is not a name', async () => {
    const { createArgoCdClassifier } = await import('./intents.js');
    const c = createArgoCdClassifier().classify('which apps in the payments-prod project are out of sync?');
    expect(c.entities).toMatchObject({ project: 'payments-prod', sync: 'OutOfSync' });
    expect(createArgoCdClassifier().classify('apps in project checkout').entities).toMatchObject({ project: 'checkout' });
  });
});

describe('every word accounted for (issue 17)', () => {
  const now = Date.parse('2025-11-20T09:30:00Z');
  const c = createArgoCdClassifier({ now: () => now });

  it('returns the words it did not understand instead of dropping them', () => {
    expect(c.classify('which app costs the most').unused).toEqual(['costs', 'most']);
    expect(c.classify('apps created by alice').unused).toEqual(['created', 'alice']);
    expect(c.classify('restart payments-api-prod').unused).toEqual(['restart']);
    expect(c.classify('top 5 apps').unused).toEqual(['top', '5']);
    // A time window with nothing Argo CD's list can measure it on stays unused.
    expect(c.classify('which apps went out of sync in the last hour').unused).toEqual(expect.arrayContaining(['went', 'hour']));
    expect(c.classify('apps reconciled in the last hour').unused).toContain('reconciled');
  });

  it('reads typos as the words they miss, and says so', () => {
    const got = c.classify('whcih apps are out of snyc in prod');
    expect(got.entities).toMatchObject({ sync: 'OutOfSync', env: 'prod' });
    expect(got.unused).toEqual([]);
    expect(got.corrected).toEqual([
      { from: 'whcih', to: 'which' },
      { from: 'snyc', to: 'sync' },
    ]);
    expect(c.classify('how many aplications are degarded?').corrected).toEqual([
      { from: 'aplications', to: 'applications' },
      { from: 'degarded', to: 'degraded' },
    ]);
    // Never towards a word that applies nothing ("helm" is not "help"); four letters: two swapped only.
    expect(c.classify('which apps use helm?').unused).toContain('helm');
    expect(c.classify('lost apps in prod').corrected).toEqual([]);
    // Names are never corrected.
    expect(c.classify('status of paymnets-api-prod').entities.application).toBe('paymnets-api-prod');
  });
});
