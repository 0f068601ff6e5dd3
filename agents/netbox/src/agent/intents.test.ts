import { describe, expect, it } from 'vitest';
import { CONFIDENCE_THRESHOLD } from '@flotilla/agent-kit';
import { createNetBoxClassifier, type NetBoxIntent } from './intents.js';

const classifier = createNetBoxClassifier();

/** Phrasings engineers type, with the intent and the entities they must give. */
const CASES: readonly (readonly [string, NetBoxIntent, Record<string, string>])[] = [
  ['list sites', 'list_sites', {}],
  ['which data centers do we have?', 'list_sites', {}],
  ['show all sites', 'list_sites', {}],
  ['devices in ams1', 'list_devices', { site: 'ams1' }],
  ['list all devices', 'list_devices', {}],
  ['which switches are offline in fra1?', 'list_devices', { site: 'fra1', role: 'switch', status: 'offline' }],
  ['show me the firewalls at lon1', 'list_devices', { site: 'lon1', role: 'firewall' }],
  ['devices tagged pci', 'list_devices', { tag: 'pci' }],
  ['how many routers are there', 'list_devices', { role: 'router' }],
  ['interfaces of every switch in ams1', 'site_interfaces', { site: 'ams1', role: 'switch' }],
  ['interfaces of all devices at ams1', 'site_interfaces', { site: 'ams1' }],
  ['just a quick look at the interfaces of every device in ams1', 'site_interfaces', { site: 'ams1', quick: 'yes' }],
  ['show me ports for each server in sin1', 'site_interfaces', { site: 'sin1', role: 'server' }],
  ['interfaces of ams1-sw-001', 'device_interfaces', { device: 'ams1-sw-001' }],
  ['show device ams1-sw-001', 'device_details', { device: 'ams1-sw-001' }],
  ['interfaces and ips of fra1-rtr-01', 'device_details', { device: 'fra1-rtr-01' }],
  ['ams1-fw-01', 'device_details', { device: 'ams1-fw-01' }],
  ['tell me about lon1-sw-010', 'device_details', { device: 'lon1-sw-010' }],
  ['cables of ams1', 'list_cables', { site: 'ams1' }],
  ['show cabling for ams1-sw-001', 'list_cables', { device: 'ams1-sw-001' }],
  ['vlans of fra1', 'list_vlans', { site: 'fra1' }],
  ['which site has vlan 120', 'list_vlans', { vid: '120' }],
  ['prefixes at nyc1', 'list_prefixes', { site: 'nyc1' }],
  ['free ips in 10.1.2.0/24', 'prefix_free', { prefix: '10.1.2.0/24' }],
  ['how full is 10.4.0.0/24', 'prefix_free', { prefix: '10.4.0.0/24' }],
  ['used ips in 10.1.2.0/24', 'prefix_used', { prefix: '10.1.2.0/24' }],
  ['which addresses are assigned in 10.1.2.0/24?', 'prefix_used', { prefix: '10.1.2.0/24' }],
  ['find core', 'search', { query: 'core' }],
  ['search for 10.1.2.5', 'search', { query: '10.1.2.5' }],
  ['next batch', 'next_page', { page: 'next' }],
  ['more', 'next_page', { page: 'next' }],
  ['batch 3', 'next_page', { page: '3' }],
  ['only the uncabled ones', 'refine', { state: 'cabled=false' }],
  ['only the offline ones', 'refine', { status: 'offline' }],
  ['summary instead', 'summary', {}],
  ['just the counts', 'summary', {}],
  ['what can you do?', 'help', {}],
];

describe('NetBox intents', () => {
  it.each(CASES)('%s → %s', (question, intent, entities) => {
    const c = classifier.classify(question);
    expect(c.intent).toBe(intent);
    expect(c.confidence).toBeGreaterThanOrEqual(CONFIDENCE_THRESHOLD);
    for (const [name, value] of Object.entries(entities)) expect(c.entities[name]).toBe(value);
  });

  it('is unsure about questions it cannot answer', () => {
    for (const question of ['reboot ams1-sw-001', 'what is the weather', 'delete vlan', 'asdf qwerty']) {
      const c = classifier.classify(question);
      expect(c.confidence < CONFIDENCE_THRESHOLD || c.intent === 'unknown', question).toBe(true);
    }
  });

  it('complex intents route to planning', () => {
    expect(classifier.classify('interfaces of every switch in ams1').complexity).toBe('complex');
    expect(classifier.classify('show device ams1-sw-001').complexity).toBe('complex');
    expect(classifier.classify('list sites').complexity).toBe('simple');
  });
});
