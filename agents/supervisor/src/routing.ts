import { QUESTION_MAX_CHARS } from '@flotilla/agent-kit';
import { FuzzyIndex } from '@flotilla/query';
import type { SkillView } from './registry.js';

/**
 * The supervisor's rules router: each agent's vocabulary comes from its card (skill tags, names, examples and
 * descriptions), a question's words are scored against it, and the decision is one agent, several in parallel
 * (a question that spans domains), the agent that answered last (a follow-up such as "next page"), or none.
 * Deterministic and offline; an LLM router can replace it behind the same decision type.
 */
export interface RoutableAgent {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly skills: readonly SkillView[];
}

export type RoutingDecision =
  | { readonly kind: 'single'; readonly agentId: string; readonly question: string }
  | { readonly kind: 'fanout'; readonly parts: readonly { readonly agentId: string; readonly question: string }[] }
  | { readonly kind: 'followup'; readonly agentId: string; readonly question: string }
  | { readonly kind: 'none'; readonly reason: 'no_agents' | 'no_match' };

export const ROUTING = {
  /** A score below this routes nowhere. */
  minScore: 1.5,
  /** A second agent within this share of the best one is asked too (the question spans domains). */
  closeShare: 0.6,
  /** Longest question scored (bounded regex and word work): the longest an agent classifies. */
  maxChars: QUESTION_MAX_CHARS,
} as const;

const STOP = new Set(
  (
    'a an the of in on at to for from by with and or is are was were be been do does did it its this that these those ' +
    'which what who whom whose where when why how any all every each some me my our us we you your i show list give get find ' +
    'tell please can could would should will there here them they than then into about whats what\'s'
  ).split(' '),
);

/** Lower-case tokens without stop words, as written. */
function tokens(text: string): string[] {
  return text
    .slice(0, ROUTING.maxChars)
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP.has(w));
}

/** A word with a plural `s` dropped (apps → app, switches → switch). */
const stem = (w: string): string => (w.length > 4 && w.endsWith('es') && /(sh|ch|x|s)es$/.test(w) ? w.slice(0, -2) : w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);

/** Lower-case words without stop words, with a plural `s` dropped (apps → app, switches → switche → switch). */
export function words(text: string): string[] {
  return tokens(text).map(stem);
}

/** Weight of each word in an agent's vocabulary: tags 3, skill names 2, examples 1.5, descriptions 1. */
export function vocabulary(agent: RoutableAgent): Map<string, number> {
  const vocab = new Map<string, number>();
  const index = new FuzzyIndex();
  const add = (text: string, weight: number): void => {
    for (const raw of tokens(text)) {
      const w = stem(raw);
      vocab.set(w, Math.max(vocab.get(w) ?? 0, weight));
      // Typos are corrected against the words as written and as stemmed ("swicthes" → "switches" → switch).
      index.add(raw);
      index.add(w);
    }
  };
  add(`${agent.name} ${agent.description}`, 1);
  for (const skill of agent.skills) {
    add(skill.description, 1);
    for (const example of skill.examples) add(example, 1.5);
    add(skill.name, 2);
    for (const tag of skill.tags) add(tag, 3);
  }
  typoIndexes.set(vocab, index);
  return vocab;
}

/** Each vocabulary's typo index (its words as written and stemmed), built with it. */
const typoIndexes = new WeakMap<ReadonlyMap<string, number>, FuzzyIndex>();

/**
 * The question's words weighed by the vocabulary; a misspelt word ("swiches") counts as the word it is nearest to
 * (several as near are all this agent's words: any of them).
 */
export function score(question: string, vocab: ReadonlyMap<string, number>): number {
  const index = typoIndexes.get(vocab);
  let sum = 0;
  const seen = new Set<string>();
  for (const raw of tokens(question)) {
    if (seen.has(stem(raw))) continue;
    seen.add(stem(raw));
    const exact = vocab.get(stem(raw));
    if (exact !== undefined) {
      sum += exact;
      continue;
    }
    const fixed = index?.correct(raw, () => true);
    if (fixed !== undefined) sum += vocab.get(stem(fixed.word)) ?? vocab.get(fixed.word) ?? 0;
  }
  return sum;
}

/** Follow-ups that continue what the last agent answered. */
const FOLLOW_UP =
  /^(next|more|continue|keep going|previous|prev|back|page \d+|batch \d+|next (page|batch)|only\b|just\b|and only\b|summary|just the counts|the counts|get all|all of them|try again|retry|quick look|filter\b|narrow\b)/;

export function isFollowUp(question: string): boolean {
  return FOLLOW_UP.test(question.trim().toLowerCase());
}

/** Clauses of a question that may belong to different agents: "... and which ...", "...; ...". */
export function clauses(question: string): string[] {
  return question
    .split(/\s*;\s*|,?\s+(?:and|also|plus)\s+(?=(?:which|what|how|list|show|are|is|do|does|find|where|who|give|get)\b)/i)
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
}

export function route(question: string, agents: readonly RoutableAgent[], last: readonly string[] = []): RoutingDecision {
  if (agents.length === 0) return { kind: 'none', reason: 'no_agents' };
  const available = new Set(agents.map((a) => a.id));
  const lastAvailable = last.filter((id) => available.has(id));
  const vocabs = agents.map((agent) => ({ agent, vocab: vocabulary(agent) }));
  const ranked = (text: string) =>
    vocabs
      .map(({ agent, vocab }) => ({ id: agent.id, score: score(text, vocab) }))
      .sort((a, b) => b.score - a.score);
  const whole = ranked(question);
  const best = whole[0];
  // A follow-up goes to the agent that answered last, unless the rest of it (the follow-up words themselves
  // left out: "next page" is in every agent's examples) clearly names another agent's domain.
  if (isFollowUp(question) && lastAvailable[0] !== undefined) {
    const rest = question.trim().toLowerCase().replace(FOLLOW_UP, '');
    const other = ranked(rest)[0];
    if (other === undefined || lastAvailable.includes(other.id) || other.score < ROUTING.minScore * 2) return { kind: 'followup', agentId: lastAvailable[0], question };
  }
  // Clauses that go to different agents: each agent gets its own part.
  const parts = clauses(question).map((text) => ({ text, top: ranked(text)[0] }));
  const byAgent = new Map<string, string[]>();
  for (const part of parts) {
    if (part.top === undefined || part.top.score < ROUTING.minScore) continue;
    byAgent.set(part.top.id, [...(byAgent.get(part.top.id) ?? []), part.text]);
  }
  if (byAgent.size > 1) return { kind: 'fanout', parts: [...byAgent.entries()].map(([agentId, texts]) => ({ agentId, question: texts.join('; ') })) };
  // Nothing matches: in a conversation, the agent it is with answers (it says so when it cannot); else nobody.
  if (best === undefined || best.score < ROUTING.minScore) {
    return lastAvailable[0] !== undefined ? { kind: 'followup', agentId: lastAvailable[0], question } : { kind: 'none', reason: 'no_match' };
  }
  // One question that spans domains: every agent close to the best one is asked it.
  const close = whole.filter((r) => r.score >= ROUTING.minScore && r.score >= best.score * ROUTING.closeShare);
  if (close.length > 1) return { kind: 'fanout', parts: close.map((r) => ({ agentId: r.id, question })) };
  return { kind: 'single', agentId: best.id, question };
}
