import { describe, expect, it } from 'vitest';
import { clauses, isFollowUp, route, words, type RoutableAgent } from './routing.js';

const agent = (id: string, tags: string[], examples: string[], description = ''): RoutableAgent => ({
  id,
  name: `${id} agent`,
  description,
  skills: [{ id, name: id, description, tags, examples }],
});
const argocd = agent('argocd', ['argocd', 'gitops', 'kubernetes'], ['which apps are out of sync in prod?', 'status of payments-api-prod'], 'Argo CD applications, sync and health');
const netbox = agent('netbox', ['netbox', 'dcim', 'interfaces'], ['interfaces of every switch in ams1', 'devices in ams1', 'vlans of fra1'], 'NetBox devices, interfaces, cables');
const agents = [argocd, netbox];

describe('supervisor routing', () => {
  it('normalises words (plurals, stop words)', () => {
    expect(words('Which apps are out of sync on the switches?')).toEqual(['app', 'out', 'sync', 'switch']);
  });

  it('routes a question to the agent whose skills match it', () => {
    expect(route('which applications are degraded in argocd?', agents)).toMatchObject({ kind: 'single', agentId: 'argocd' });
    expect(route('list the vlans of ams2', agents)).toMatchObject({ kind: 'single', agentId: 'netbox' });
  });

  it('splits clauses that belong to different agents', () => {
    expect(clauses('which apps are out of sync and which switches are offline in ams1?')).toEqual(['which apps are out of sync', 'which switches are offline in ams1?']);
    expect(route('which apps are out of sync in prod and which devices are offline in ams1?', agents)).toEqual({
      kind: 'fanout',
      parts: [
        { agentId: 'argocd', question: 'which apps are out of sync in prod' },
        { agentId: 'netbox', question: 'which devices are offline in ams1?' },
      ],
    });
  });

  it('asks every close agent a question that spans domains', () => {
    const decision = route('is the app payments deployed on the switches in ams1?', agents);
    expect(decision.kind).toBe('fanout');
    expect(decision.kind === 'fanout' ? decision.parts.map((p) => p.agentId).sort() : []).toEqual(['argocd', 'netbox']);
  });

  it('sends follow-ups to the agent that answered last, and routes nowhere without a match', () => {
    expect(isFollowUp('next page')).toBe(true);
    expect(route('next page', agents, ['netbox'])).toMatchObject({ kind: 'followup', agentId: 'netbox' });
    // "next page" is an example of another agent's skill: the follow-up still goes to the agent that answered last.
    const pager = agent('argocd', ['argocd'], ['which apps are out of sync in prod?', 'next page'], 'Argo CD applications');
    expect(route('next page', [pager, netbox], ['netbox'])).toMatchObject({ kind: 'followup', agentId: 'netbox' });
    expect(route('next batch', [pager, netbox], ['netbox'])).toMatchObject({ kind: 'followup', agentId: 'netbox' });
    expect(route('only the uncabled ones', agents, ['netbox'])).toMatchObject({ kind: 'followup', agentId: 'netbox' });
    expect(route('next page', agents, [])).toMatchObject({ kind: 'none' });
    expect(route('order pizza', agents)).toEqual({ kind: 'none', reason: 'no_match' });
    // In a conversation, an unmatched question stays with the agent it is with.
    expect(route('find ledger', agents, ['argocd'])).toMatchObject({ kind: 'followup', agentId: 'argocd' });
    expect(route('anything', [])).toEqual({ kind: 'none', reason: 'no_agents' });
  });
});

describe('routing with the real agent cards', () => {
  it('sends everyday questions of each domain to its agent', async () => {
    const { ARGOCD_AGENT_CARD } = await import('@flotilla/agent-argocd');
    const { NETBOX_AGENT_CARD } = await import('@flotilla/agent-netbox');
    const real = [
      { id: 'argocd', name: ARGOCD_AGENT_CARD.name, description: ARGOCD_AGENT_CARD.description, skills: ARGOCD_AGENT_CARD.skills },
      { id: 'netbox', name: NETBOX_AGENT_CARD.name, description: NETBOX_AGENT_CARD.description, skills: NETBOX_AGENT_CARD.skills },
    ] as RoutableAgent[];
    const expected: readonly (readonly [string, string])[] = [
      ['which apps are out of sync in prod?', 'argocd'],
      ['list projects', 'argocd'],
      ['list clusters', 'argocd'],
      ['interfaces of every switch in ams1', 'netbox'],
      ['how many routers are there', 'netbox'],
      ['show me the firewalls at lon1', 'netbox'],
      ['prefixes at nyc1', 'netbox'],
    ];
    for (const [question, agentId] of expected) expect(route(question, real), question).toMatchObject({ kind: 'single', agentId });
  });
});
