import { QUESTION_MAX_CHARS, questionParts } from '@flotilla/agent-kit';
import { FuzzyIndex, readAct, type Parser, type ReadWord } from '@flotilla/query';
import type { SkillView } from './registry.js';

/**
 * The supervisor's rules router. An agent whose card declares its typed query's domain (entities, fields, words and
 * the live names it holds) is scored by reading the question with that domain's parser: the words its query applies,
 * weighed by what they are (an entity's noun, a name the estate holds, a declared value, a field...). An agent with
 * no such card is scored by its card's vocabulary (skill tags, names, examples, descriptions). The decision is one
 * agent, several in parallel (a question that spans domains), the agent that answered last (a follow-up such as
 * "next page"), or none. Deterministic and offline; an LLM router can replace it behind the same decision type.
 */
export interface RoutableAgent {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly skills: readonly SkillView[];
  /** The agent's typed-query parser, from its card: when present, the question is scored by its reading. */
  readonly parser?: Parser | undefined;
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

/**
 * What a word the domain's reading applied weighs: the system's own name, its entity's noun and a name its estate
 * holds say most; a declared value, a phrase or an action a little less; a field's word less again; a word only
 * shaped like a name (any domain would take it for one) almost nothing.
 */
export const READ_WEIGHTS: Readonly<Record<ReadWord['as'], number>> = { system: 3, entity: 3, live: 3, value: 2, phrase: 2, action: 2, field: 1.5, timeverb: 1.5, guess: 0.5 };

/**
 * A domain's typed reading of the question: the words it applied (none when it reads nothing of it), and whether the
 * question points back at the answer before it ("what about …", "only …", "of those", a leading "and", no subject).
 */
export function typedReading(question: string, parser: Parser, now: number = Date.now()): { readonly words: readonly ReadWord[]; readonly continues: boolean } {
  const parsed = parser.parse(question.slice(0, ROUTING.maxChars), now);
  const e = parsed.edit;
  return { words: parsed.kind === 'empty' ? [] : parsed.read, continues: e.about || e.only || e.anaphora || e.leadingAnd || e.subjectless };
}

/**
 * One agent's score of a question; whether its reading names a thing of its domain (an entity or a held name); whether
 * it only guessed a word to be a name; whether the question points back at the conversation's last answer.
 */
interface Scored {
  readonly id: string;
  readonly score: number;
  readonly names: boolean;
  readonly guesses: boolean;
  readonly continues: boolean;
}

/**
 * The agents' readings weighed against each other: a word shaped like a name that another agent's estate holds (or
 * its domain declares as a value) is that agent's ("ams1-sw-001" is a device, not an unknown application), and a word
 * another agent reads as written counts a quarter where it was only read as a typo ("platforms" is NetBox's field, not
 * a typo of a team).
 */
function weigh(readings: readonly { readonly id: string; readonly words?: readonly ReadWord[]; readonly continues?: boolean; readonly vocabulary?: number }[]): Scored[] {
  // Word by word: "connection" is read as written when another agent reads the phrase "connection errors".
  const exact = new Set<string>();
  const held = new Set<string>();
  for (const r of readings) {
    for (const w of r.words ?? []) {
      if (w.corrected === true) continue;
      for (const part of w.text.split(' ')) exact.add(part);
      if (w.as === 'live' || w.as === 'value') held.add(w.text);
    }
  }
  return readings.map((r) => {
    if (r.words === undefined) return { id: r.id, score: r.vocabulary ?? 0, names: true, guesses: false, continues: false };
    const seen = new Set<string>();
    let score = 0;
    let names = false;
    let guesses = false;
    for (const w of r.words) {
      if (seen.has(w.text)) continue;
      seen.add(w.text);
      let weight = READ_WEIGHTS[w.as];
      if (w.as === 'guess' && held.has(w.text)) weight = 0;
      else if (w.corrected === true && w.text.split(' ').every((part) => exact.has(part))) weight *= 0.25;
      if (weight > 0 && (w.as === 'entity' || w.as === 'live' || w.as === 'system')) names = true;
      if (weight > 0 && w.as === 'guess') guesses = true;
      score += weight;
    }
    return { id: r.id, score, names, guesses, continues: r.continues === true };
  });
}

/**
 * A follow-up that continues what the last agent answered: a conversation act ("next page", "try again", "just the
 * counts", @flotilla/query `readAct`), which names nothing of any domain. Edits of the last answer ("only the
 * switches", "what about staging?") are told by the agents' typed readings (`continues`).
 */
export function isFollowUp(question: string): boolean {
  const act = readAct(question.slice(0, ROUTING.maxChars));
  return act !== undefined && act.kind !== 'help';
}

/**
 * Clauses of a question that may belong to different agents: the parts the domain agents answer one by one
 * (@flotilla/agent-kit `questionParts`: "... and which ...", "...; ...", "...? ..."), so a part routed to an agent is
 * one that agent reads as a part.
 */
export function clauses(question: string): string[] {
  return questionParts(question);
}

export function route(question: string, agents: readonly RoutableAgent[], last: readonly string[] = []): RoutingDecision {
  if (agents.length === 0) return { kind: 'none', reason: 'no_agents' };
  const available = new Set(agents.map((a) => a.id));
  const lastAvailable = last.filter((id) => available.has(id));
  const now = Date.now();
  // An agent's typed reading; the card's vocabulary only for an agent whose card declares no domain.
  const readers = agents.map((agent) => {
    const parser = agent.parser;
    if (parser !== undefined) return (text: string) => ({ id: agent.id, ...typedReading(text, parser, now) });
    const vocab = vocabulary(agent);
    return (text: string) => ({ id: agent.id, vocabulary: score(text, vocab) });
  });
  const ranked = (text: string): Scored[] => weigh(readers.map((read) => read(text))).sort((a, b) => b.score - a.score);
  const whole = ranked(question);
  const best = whole[0];
  // A conversation act goes to the agent that answered last.
  if (isFollowUp(question) && lastAvailable[0] !== undefined) return { kind: 'followup', agentId: lastAvailable[0], question };
  // An edit of the last answer ("what about staging?", "only the switches", "and how many of those…") stays with the
  // agent that gave it while that agent reads something of it; one only another agent reads has moved on ("what
  // about lon1?" after an Argo CD answer).
  const lastReading = whole.find((r) => r.id === lastAvailable[0]);
  if (lastReading !== undefined && lastReading.continues && (lastReading.score > 0 || (best?.score ?? 0) < ROUTING.minScore)) return { kind: 'followup', agentId: lastReading.id, question };
  // Clauses that go to different agents: each agent gets its own part.
  const parts = clauses(question).map((text) => ({ text, top: ranked(text)[0] }));
  const byAgent = new Map<string, string[]>();
  for (const part of parts) {
    if (part.top === undefined || part.top.score < ROUTING.minScore) continue;
    byAgent.set(part.top.id, [...(byAgent.get(part.top.id) ?? []), part.text]);
  }
  if (byAgent.size > 1) return { kind: 'fanout', parts: [...byAgent.entries()].map(([agentId, texts]) => ({ agentId, question: texts.join('; ') })) };
  // Nothing matches: in a conversation, the agent it is with answers (it says so when it cannot); a name no estate is
  // known to hold is asked of every agent that would read it as one (each says whether it has it); else nobody.
  if (best === undefined || best.score < ROUTING.minScore) {
    if (lastAvailable[0] !== undefined) return { kind: 'followup', agentId: lastAvailable[0], question };
    const guessing = whole.filter((r) => r.guesses);
    if (guessing.length === 1 && guessing[0] !== undefined) return { kind: 'single', agentId: guessing[0].id, question };
    if (guessing.length > 1) return { kind: 'fanout', parts: guessing.map((r) => ({ agentId: r.id, question })) };
    return { kind: 'none', reason: 'no_match' };
  }
  // One question that spans domains: every agent close to the best one that names a thing of its own is asked it.
  const close = whole.filter((r) => r.score >= ROUTING.minScore && r.score >= best.score * ROUTING.closeShare && (r === best || r.names));
  if (close.length > 1) return { kind: 'fanout', parts: close.map((r) => ({ agentId: r.id, question })) };
  return { kind: 'single', agentId: best.id, question };
}
