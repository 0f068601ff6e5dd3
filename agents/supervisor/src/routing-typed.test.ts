import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { QUERY_DOMAIN_EXTENSION, queryDomainExtension, startA2AServer } from '@flotilla/agent-kit';
import { ARGOCD_AGENT_SETTINGS, ARGOCD_DOMAIN, startArgoCdAgent, type RunningAgent } from '@flotilla/agent-argocd';
import { NETBOX_AGENT_SETTINGS, NETBOX_DOMAIN, startNetBoxAgent, type RunningNetBoxAgent } from '@flotilla/agent-netbox';
import { parseSettings, silentLogger } from '@flotilla/core';
import { createMetrics } from '@flotilla/metrics';
import { createParser, DOMAIN_CARD_LIMITS, domainCard, readDomainCard, type DomainCard, type DomainDecl } from '@flotilla/query';
import { startArgoCdSimulator, startNetBoxSimulator, type RunningNetBoxSimulator, type RunningSimulator } from '@flotilla/simulators';
import { staticAgentSource } from './discovery/types.js';
import { AgentRegistry, type RegisteredAgent } from './registry.js';
import { READ_WEIGHTS, route, typedReading } from './routing.js';

/**
 * Routing by the typed query: each domain agent's card declares its domain (entities, fields, words) and the names
 * its lexicon read from the estate; the supervisor reads the card and scores a question by what each domain's parser
 * applies of it. The questions are generated from the two cards themselves: words and names only one domain has,
 * in templates, misspelt or not, alone or with the other domain's in one question.
 */
const TOKEN = 'typed-routing-token-012345';

describe('the query-domain card', () => {
  const words = (domain: DomainDecl): string[] => domain.entities.flatMap((e) => [...e.words, ...e.fields.flatMap((f) => [...(f.words ?? []), ...(f.values ?? []).flatMap((v) => v.words ?? [v.value])])]);
  for (const domain of [ARGOCD_DOMAIN, NETBOX_DOMAIN]) {
    it(`reads ${domain.name}'s declaration back as the parser it was made from (patterns aside)`, () => {
      const card = readDomainCard(JSON.parse(JSON.stringify(domainCard(domain))));
      expect(card).toBeDefined();
      const original = createParser(domain);
      const read = createParser((card as DomainCard).domain);
      const patternFree = (w: string): boolean => !/[/:=.]/.test(w);
      fc.assert(
        fc.property(fc.constantFrom(...words(domain).filter(patternFree)), fc.constantFrom(...words(domain).filter(patternFree)), fc.constantFrom('how many {a} {b}', '{a} by {b}', 'list {a} that are not {b}', 'which {a} have the most {b}'), (a, b, template) => {
          const question = template.replace('{a}', a).replace('{b}', b);
          const [x, y] = [original.parse(question, 0), read.parse(question, 0)];
          expect({ query: y.query, unapplied: y.unapplied, read: y.read }, question).toEqual({ query: x.query, unapplied: x.unapplied, read: x.read });
        }),
        { numRuns: 300 },
      );
    });
  }

  it('refuses what is not a domain card, and never throws on any value', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(readDomainCard(value)).toBeUndefined();
      }),
    );
    const good = JSON.parse(JSON.stringify(domainCard(ARGOCD_DOMAIN))) as { domain: { entities: { phrases: { where: unknown }[] }[]; defaultEntity: string } };
    const undeclared = structuredClone(good);
    const phrase = undeclared.domain.entities[0]?.phrases[0];
    if (phrase !== undefined) phrase.where = { op: 'eq', field: 'no_such_field', value: 'x' };
    expect(readDomainCard(undeclared)).toBeUndefined();
    const noDefault = structuredClone(good);
    noDefault.domain.defaultEntity = 'boats';
    expect(readDomainCard(noDefault)).toBeUndefined();
    const tooMany = structuredClone(good);
    tooMany.domain.entities = Array.from({ length: DOMAIN_CARD_LIMITS.entities + 1 }, () => good.domain.entities[0] as never);
    expect(readDomainCard(tooMany)).toBeUndefined();
  });

  it('carries at most its bounds of live names', () => {
    const many = Array.from({ length: DOMAIN_CARD_LIMITS.liveValuesPerField + 500 }, (_, i) => `app-${i}`);
    const parser = createParser(ARGOCD_DOMAIN, { applications: { name: many, namespace: many, project: many, cluster: many, team: many, repo: many, env: many } });
    const card = domainCard(ARGOCD_DOMAIN, parser.lexicon);
    const counts = Object.values(card.live).flatMap((fields) => Object.values(fields).map((v) => v.length));
    expect(Math.max(...counts)).toBe(DOMAIN_CARD_LIMITS.liveValuesPerField);
    expect(counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(DOMAIN_CARD_LIMITS.liveValues);
    expect(card.names).toBe('read');
    expect(domainCard(ARGOCD_DOMAIN).names).toBe('pending');
  });
});

describe('supervisor routing by the agents\' typed readings', () => {
  let argoSim: RunningSimulator;
  let netboxSim: RunningNetBoxSimulator;
  let argocd: RunningAgent;
  let netbox: RunningNetBoxAgent;
  let registry: AgentRegistry;
  let agents: RegisteredAgent[];
  const cards = new Map<string, DomainCard>();

  beforeAll(async () => {
    [argoSim, netboxSim] = await Promise.all([startArgoCdSimulator({ token: TOKEN }), startNetBoxSimulator({ token: TOKEN })]);
    argocd = await startArgoCdAgent(parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': argoSim.url, 'argocd-token': TOKEN, 'log-level': 'silent' }, {}, 'a'), silentLogger());
    netbox = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': netboxSim.url, 'netbox-token': TOKEN, 'log-level': 'silent' }, {}, 'n'), silentLogger());
    registry = new AgentRegistry({ sources: [staticAgentSource([{ id: 'argocd', url: argocd.url }, { id: 'netbox', url: netbox.url }])], logger: silentLogger(), metrics: createMetrics(), selfName: 'Flotilla supervisor' });
    await registry.start();
    agents = registry.list();
    for (const [id, url] of [
      ['argocd', argocd.url],
      ['netbox', netbox.url],
    ] as const) {
      const card = await (await new ClientFactory().createFromUrl(url)).getAgentCard();
      const read = readDomainCard(card.capabilities?.extensions?.find((e) => e.uri === QUERY_DOMAIN_EXTENSION)?.params);
      if (read !== undefined) cards.set(id, read);
    }
  }, 60_000);
  afterAll(async () => {
    await registry?.close();
    await Promise.all([argocd?.close(), netbox?.close()]);
    await Promise.all([argoSim?.close(), netboxSim?.close()]);
  });

  it('reads each agent\'s domain and the names its estate holds from its card', () => {
    for (const agent of agents) expect(agent.parser, agent.id).toBeDefined();
    expect(cards.get('argocd')?.names).toBe('read');
    expect(cards.get('netbox')?.names).toBe('read');
    expect(Object.keys(cards.get('argocd')?.live.applications ?? {})).toEqual(expect.arrayContaining(['name', 'cluster', 'project']));
    expect(Object.keys(cards.get('netbox')?.live.devices ?? {})).toEqual(expect.arrayContaining(['name', 'site', 'role']));
  });

  /** A domain's live names and entity words that the other domain's card holds in no form (lower-case, as read). */
  const exclusive = (mine: string, theirs: string): { names: string[]; nouns: string[] } => {
    const card = (id: string): DomainCard => cards.get(id) as DomainCard;
    const all = (c: DomainCard): Set<string> =>
      new Set([
        ...Object.values(c.live).flatMap((fields) => Object.values(fields).flat()),
        ...c.domain.entities.flatMap((e) => [...e.words, ...e.fields.flatMap((f) => [...(f.words ?? []), ...(f.values ?? []).flatMap((v) => [v.value.toLowerCase(), ...(v.words ?? [])])])]),
        ...(c.domain.words ?? []),
      ]);
    const other = all(card(theirs));
    const ok = (w: string): boolean => !other.has(w) && /^[a-z][a-z0-9-]{3,40}$/.test(w) && !w.split('-').some((part) => other.has(part));
    const names = [...new Set(Object.values(card(mine).live).flatMap((fields) => Object.values(fields).flat()))].filter((w) => ok(w) && /[0-9-]/.test(w));
    const nouns = card(mine).domain.entities.flatMap((e) => e.words).filter((w) => ok(w) && !w.includes(' '));
    return { names, nouns };
  };
  const TEMPLATES = ['{noun} in {name}', 'how many {noun} does {name} have?', 'show me the {noun} on {name}', 'tell me about {name}', 'status of {name}', 'what about {name}?', 'list the {noun}', 'is {name} ok?'];
  /** A typo: two neighbouring letters swapped (never a hyphen). */
  const swapped = (w: string, at: number): string => {
    const i = 1 + (at % Math.max(1, w.length - 2));
    if (w[i] === '-' || w[i + 1] === '-') return w;
    return `${w.slice(0, i)}${w[i + 1] ?? ''}${w[i] ?? ''}${w.slice(i + 2)}`;
  };

  for (const [mine, theirs] of [
    ['argocd', 'netbox'],
    ['netbox', 'argocd'],
  ] as const) {
    it(`sends a question naming only ${mine}'s things to ${mine}, a noun misspelt or not`, () => {
      const { names, nouns } = exclusive(mine, theirs);
      expect(names.length).toBeGreaterThan(5);
      expect(nouns.length).toBeGreaterThan(2);
      fc.assert(
        fc.property(fc.constantFrom(...TEMPLATES), fc.constantFrom(...names), fc.constantFrom(...nouns), fc.boolean(), fc.nat(), (template, name, noun, typo, at) => {
          const question = template.replace('{name}', name).replace('{noun}', typo && noun.length >= 6 ? swapped(noun, at) : noun);
          expect(route(question, agents), question).toMatchObject({ kind: 'single', agentId: mine });
        }),
        { numRuns: 300 },
      );
    });
  }

  it('asks both agents when a question has a part for each, and keeps an edit of the last answer with the agent that gave it', () => {
    const a = exclusive('argocd', 'netbox');
    const n = exclusive('netbox', 'argocd');
    fc.assert(
      fc.property(fc.constantFrom(...a.nouns), fc.constantFrom(...a.names), fc.constantFrom(...n.nouns), fc.constantFrom(...n.names), (an, aname, nn, nname) => {
        const both = route(`which ${an} are in ${aname} and which ${nn} are in ${nname}?`, agents);
        expect(both.kind, `${an} ${aname} / ${nn} ${nname}`).toBe('fanout');
        expect(both.kind === 'fanout' ? both.parts.map((p) => p.agentId).sort() : []).toEqual(['argocd', 'netbox']);
        // "what about <a name of the other estate>?" has moved on; "only the <own noun>" stays.
        expect(route(`what about ${nname}?`, agents, ['argocd'])).toMatchObject({ agentId: 'netbox' });
        expect(route(`only the ${an}`, agents, ['argocd'])).toMatchObject({ kind: 'followup', agentId: 'argocd' });
      }),
      { numRuns: 150 },
    );
  });

  it('asks every agent of a name no estate is known to hold, and nobody of what no domain reads', () => {
    const both = route('tell me about zq-unheard-of-77', agents);
    expect(both.kind).toBe('fanout');
    expect(route('order a pizza', agents)).toEqual({ kind: 'none', reason: 'no_match' });
  });
});

describe('a card whose agent has not read its names yet', () => {
  it('is read again soon, and the names route once the agent has them', async () => {
    const domain: DomainDecl = {
      name: 'fleet',
      words: ['fleet'],
      defaultEntity: 'boats',
      entities: [{ name: 'boats', singular: 'boat', plural: 'boats', words: ['boats', 'boat'], nameField: 'name', fields: [{ name: 'name', label: 'name', type: 'name', live: true, exec: 'tool' }] }],
    };
    const agent = await startA2AServer({
      agent: { name: 'Fleet agent', description: 'Fleet agent for tests', version: '0.0.1', skills: [{ id: 'fleet', name: 'Fleet', description: 'Boats', tags: ['fleet'], examples: ['list boats'] }] },
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      answer: () => Promise.resolve({ answer: 'ok', options: [], metadata: {} }),
    });
    agent.setExtension(queryDomainExtension(domain));
    const registry = new AgentRegistry({ sources: [staticAgentSource([{ id: 'fleet', url: agent.url }])], logger: silentLogger(), metrics: createMetrics(), selfName: 'Flotilla supervisor' });
    try {
      await registry.start();
      // Names not read: a name-shaped word is only a guess, asked of the one agent that would read it as a name.
      expect(route('is sea-otter-9 afloat?', registry.list())).toMatchObject({ kind: 'single', agentId: 'fleet' });
      expect(typedScoreOf(registry, 'sea-otter-9')).toBe(READ_WEIGHTS.guess);
      agent.setExtension(queryDomainExtension(domain, createParser(domain, { boats: { name: ['sea-otter-9'] } }).lexicon));
      // Re-read within REGISTRY_LIMITS.pendingNamesMs (2 s), not the minute of a card whose names are read.
      await vi.waitFor(() => expect(typedScoreOf(registry, 'sea-otter-9')).toBe(READ_WEIGHTS.live), { timeout: 20_000, interval: 100 });
    } finally {
      await registry.close();
      await agent.close();
    }
  });
});

/** What the registered agent's parser reads of a question, weighed. */
function typedScoreOf(registry: AgentRegistry, question: string): number {
  const parser = registry.list()[0]?.parser;
  if (parser === undefined) return -1;
  return typedReading(question, parser).words.reduce((sum, w) => sum + READ_WEIGHTS[w.as], 0);
}
