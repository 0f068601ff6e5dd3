import { describe, expect, it } from 'vitest';
import { misreading, type IntentCase } from '@flotilla/agent-host/testing';
import { CONFIDENCE_THRESHOLD } from '@flotilla/agent-kit';
import { createNetBoxClassifier, type NetBoxIntent } from './intents.js';

const classifier = createNetBoxClassifier();

/**
 * Phrasings engineers type for each intent, with the entities they must give: every intent but `unknown` has some (a
 * new intent does not compile until it does); what NetBox cannot answer is below.
 */
// The typed query's intents, and the device and site lists it plans (typed-list.ts), come from the typed reader
// (agent.ts), not from the rules: they have no phrasings here (see typed-list.test.ts); nor have the conversation's
// acts (pages, summaries, help, a sample, the whole: @flotilla/query `readAct`, acts.test.ts), the edits of a list,
// and one device's view or interfaces (typed-list.test.ts, typed.test.ts).
const PHRASINGS: Readonly<Record<Exclude<NetBoxIntent, 'unknown' | 'query' | 'query_followup' | 'list_sites' | 'list_devices' | 'next_page' | 'summary' | 'help' | 'refine' | 'device_details'>, readonly (readonly [question: string, entities: Readonly<Record<string, string>>])[]>> = {
  site_interfaces: [
    ['interfaces of every switch in ams1', { site: 'ams1', role: 'switch' }],
    ['interfaces of all devices at ams1', { site: 'ams1' }],
    ['just a quick look at the interfaces of every device in ams1', { site: 'ams1', quick: 'yes' }],
    ['show me ports for each server in sin1', { site: 'sin1', role: 'server' }],
  ],
  prefix_free: [['free ips in 10.1.2.0/24', { prefix: '10.1.2.0/24' }], ['how full is 10.4.0.0/24', { prefix: '10.4.0.0/24' }]],
  prefix_used: [['used ips in 10.1.2.0/24', { prefix: '10.1.2.0/24' }], ['which addresses are assigned in 10.1.2.0/24?', { prefix: '10.1.2.0/24' }]],
  search: [['find core', { query: 'core' }], ['search for 10.1.2.5', { query: '10.1.2.5' }]],
};
const CASES: readonly IntentCase<NetBoxIntent>[] = Object.entries(PHRASINGS).flatMap(([intent, rows]) => rows.map(([question, entities]) => [question, intent as NetBoxIntent, entities] as const));

describe('NetBox intents', () => {
  it.each(CASES)('%s → %s', (...row) => {
    expect(misreading(classifier, row)).toBeUndefined();
  });

  it('is unsure about questions it cannot answer', () => {
    for (const question of ['reboot ams1-sw-001', 'what is the weather', 'delete vlan', 'asdf qwerty']) {
      const c = classifier.classify(question);
      expect(c.confidence < CONFIDENCE_THRESHOLD || c.intent === 'unknown', question).toBe(true);
    }
  });

  it('complex intents route to planning', () => {
    expect(classifier.classify('interfaces of every switch in ams1').complexity).toBe('complex');
    expect(classifier.classify('free ips in 10.1.2.0/24').complexity).toBe('simple');
  });
});
