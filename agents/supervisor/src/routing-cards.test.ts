import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ARGOCD_AGENT_CARD, ARGOCD_DOMAIN } from '@flotilla/agent-argocd';
import { NETBOX_AGENT_CARD, NETBOX_DOMAIN } from '@flotilla/agent-netbox';
import { domainWords } from '@flotilla/query';
import { route, type RoutableAgent } from './routing.js';

/**
 * Routing by the real agents' cards, whose tags carry each domain's declared words: a question naming a thing of one
 * domain by any of its declared words (or a typo of one) goes to that domain's agent. Words both domains declare
 * ("services", "hosts" may be either) are left out: such a question is asked of both.
 */
const asRoutable = (id: string, card: typeof ARGOCD_AGENT_CARD): RoutableAgent => ({
  id,
  name: card.name,
  description: card.description,
  skills: card.skills.map((s) => ({ id: s.id, name: s.name, description: s.description, tags: s.tags ?? [], examples: s.examples ?? [] })),
});
const agents = [asRoutable('argocd', ARGOCD_AGENT_CARD), asRoutable('netbox', NETBOX_AGENT_CARD)];
const argoWords = domainWords(ARGOCD_DOMAIN, ['applications'], ['health', 'sync']);
const netboxWords = domainWords(NETBOX_DOMAIN, ['devices', 'interfaces', 'sites'], ['role']);
const only = (mine: readonly string[], theirs: readonly string[]): string[] => mine.filter((w) => !theirs.includes(w) && w.length >= 4);
const TEMPLATES = ['list the {w} in {place}', 'how many {w} are there in {place}?', 'show me {w} on {place}', '{w} at {place}'];
/** A typo: two neighbouring letters swapped. */
const swapped = (w: string, at: number): string => {
  const i = 1 + (at % Math.max(1, w.length - 2));
  // Letters only: a hyphen moved makes other words ("ins-ync"), not a typo of one.
  if (w[i] === '-' || w[i + 1] === '-') return w;
  return `${w.slice(0, i)}${w[i + 1] ?? ''}${w[i] ?? ''}${w.slice(i + 2)}`;
};

describe('supervisor routing by the agents\' declared words', () => {
  for (const [id, mine, theirs, places] of [
    ['argocd', argoWords, netboxWords, ['qa-eu-1', 'prod-us-1', 'staging']],
    ['netbox', netboxWords, argoWords, ['tyo1', 'ams1', 'fra2']],
  ] as const) {
    it(`routes a question naming ${id}'s things to ${id}, misspelt or not`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...only(mine, theirs)), fc.constantFrom(...TEMPLATES), fc.constantFrom(...places), fc.boolean(), fc.nat(), (word, template, place, typo, at) => {
          const w = typo && word.length >= 6 ? swapped(word, at) : word;
          const question = template.replace('{w}', w).replace('{place}', place);
          expect(route(question, agents), question).toMatchObject({ kind: 'single', agentId: id });
        }),
        { numRuns: 300 },
      );
    });
  }
});
