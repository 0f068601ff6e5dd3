import { describe, expect, it } from 'vitest';
import { createParser, type Query } from '@flotilla/query';
import { generateNetBoxEstate } from '@flotilla/simulators';
import { NETBOX_DOMAIN } from '../query/declare.js';
import { detailsClassification, listClassification, listOfQuery } from './typed-list.js';

/**
 * A device or site list is read by the typed reading and, when NetBox's list applies all of it, planned as that list
 * (batched progressively, the filters said). The names are the estate's, as the agent's lexicon reads them.
 */
const estate = generateNetBoxEstate();
const distinct = (xs: readonly string[]): string[] => [...new Set(xs)];
const parser = createParser(NETBOX_DOMAIN, {
  devices: {
    site: distinct(estate.sites.map((s) => s.slug)),
    role: distinct(estate.devices.map((d) => d.role.slug ?? '')),
    tag: distinct(estate.devices.flatMap((d) => d.tags.map((t) => t.slug))),
    name: distinct(estate.devices.map((d) => d.name)),
  },
});

describe('a typed device or site list, planned as NetBox\'s list', () => {
  it('reads the phrasings engineers type as the list they mean, every word applied', () => {
    const table: readonly (readonly [string, string, Record<string, string>])[] = [
      ['list sites', 'list_sites', {}],
      ['which data centers do we have?', 'list_sites', {}],
      ['show all sites', 'list_sites', {}],
      ['devices in ams1', 'list_devices', { site: 'ams1' }],
      ['list all devices', 'list_devices', {}],
      ['which switches are offline in fra1?', 'list_devices', { site: 'fra1', role: 'switch', status: 'offline' }],
      ['show me the firewalls at lon1', 'list_devices', { site: 'lon1', role: 'firewall' }],
      ['devices tagged pci', 'list_devices', { tag: 'pci' }],
      ['sites in apac', 'list_sites', { region: 'asia-pacific' }],
    ];
    for (const [question, intent, entities] of table) {
      const c = listClassification(parser.parse(question, 0));
      expect(c?.intent, question).toBe(intent);
      expect(c?.entities, question).toEqual(entities);
    }
  });

  it('leaves counts, negations, ORs and other fields to the query tool', () => {
    expect(listClassification(parser.parse('how many routers are there', 0))).toBeUndefined();
    expect(parser.parse('how many routers are there', 0).query).toEqual({ entity: 'devices', where: { op: 'eq', field: 'role', value: 'router' }, what: { kind: 'count' } });
    const cases: readonly Query[] = [
      { entity: 'devices', where: { op: 'not', of: { op: 'eq', field: 'status', value: 'active' } }, what: { kind: 'list' } },
      { entity: 'devices', where: { op: 'or', of: [{ op: 'eq', field: 'site', value: 'ams1' }, { op: 'eq', field: 'site', value: 'lon1' }] }, what: { kind: 'list' } },
      { entity: 'devices', where: { op: 'eq', field: 'manufacturer', value: 'cisco' }, what: { kind: 'list' } },
      { entity: 'devices', where: { op: 'in', field: 'role', values: ['switch', 'router'] }, what: { kind: 'list' } },
      { entity: 'interfaces', what: { kind: 'list' } },
      { entity: 'sites', what: { kind: 'breakdown', by: ['region'] } },
    ];
    for (const query of cases) expect(listOfQuery(query), JSON.stringify(query)).toBeUndefined();
  });

  it('reads one device asked for as a whole as the device view, and a field of it as the typed projection', () => {
    const names = distinct(estate.devices.map((d) => d.name)).slice(0, 40);
    const asks = ['show device {d}', 'tell me about {d}', '{d}', 'details of {d}', 'describe {d}', 'what is {d}?', 'info about device {d}', 'inspect {d} please'];
    for (const [i, name] of names.entries()) {
      const ask = asks[i % asks.length] ?? '{d}';
      const question = ask.replace('{d}', name);
      const c = detailsClassification(parser.parse(question, 0));
      expect(c?.intent, question).toBe('device_details');
      expect(c?.entities, question).toEqual({ device: name });
      expect(c?.unused, question).toEqual([]);
    }
    for (const question of [`rack of ${names[0] ?? ''}`, `status of ${names[1] ?? ''}`, `interfaces of ${names[2] ?? ''}`, 'devices in ams1', `serial number of ${names[3] ?? ''}`]) {
      expect(detailsClassification(parser.parse(question, 0)), question).toBeUndefined();
    }
  });
});
