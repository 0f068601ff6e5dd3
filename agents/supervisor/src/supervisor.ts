import { describeError, isFlotillaError, type Logger } from '@flotilla/core';
import { boundedMemoryStore, QUESTION_MAX_CHARS, redisMemoryStore, type BoundedMemoryStoreOptions, type MemoryStore } from '@flotilla/agent-kit';
import { readAct } from '@flotilla/query';
import type { FlotillaMetrics, TurnOutcome } from '@flotilla/metrics';
import type { RedisClient } from '@flotilla/state';
import type { TokenCounter } from '@flotilla/tokens';
import { delegate, type DelegationResult } from './delegate.js';
import type { AgentRegistry, RegisteredAgent } from './registry.js';
import { isFollowUp, route, type RoutingDecision } from './routing.js';

export const SUPERVISOR_LIMITS = {
  /** Agents one question is delegated to, at most. */
  maxDelegations: 4,
  /**
   * Time one delegation may take: longer than a domain agent's own turn deadline (60 s), so the agent's "I stopped
   * after 60 s" reaches the caller, and shorter than the supervisor's turn deadline (`turnTimeoutMs`).
   */
  callTimeoutMs: 75_000,
  /** The supervisor's own turn deadline: above the delegation timeout, below the Slack bot's 120 s. */
  turnTimeoutMs: 90_000,
  /** Tokens of one agent's reply passed on; with several agents, `answerMaxTokens` is shared among them. */
  replyMaxTokens: 4_000,
  answerMaxTokens: 6_000,
  /**
   * Conversations whose last agents are remembered (for follow-ups), and for how long: in this process, after it was
   * saved; in Redis (`--redis-url`), after its last use, the least recently used going past the count.
   */
  conversations: 10_000,
  conversationTtlMs: 60 * 60 * 1000,
  /**
   * Bytes of that memory in this process (each conversation's agent ids as JSON, and its contextId): 10,000
   * conversations with 256-character ids are ~3 MiB; past it the least recently used go. In Redis the count and the
   * entry cap bound it (10,000 × 2 KiB = 20 MiB at most).
   */
  conversationsMaxBytes: 4 * 1024 * 1024,
  /**
   * Largest memory of one conversation: a 256-character contextId in any script (≤ 1 KiB of UTF-8) and 4 agent ids
   * fit, in this process and in Redis (where the value is `{contextId, memory}` as JSON); a larger one is not
   * remembered, and the answer says so.
   */
  conversationMaxBytes: 2 * 1024,
  /** Agent ids in one remembered conversation read back from Redis, at most (a value past it is ignored). */
  conversationMaxAgents: 10,
  /** Follow-up options passed on. */
  maxOptions: 10,
} as const;


export interface SupervisorOptions {
  readonly registry: AgentRegistry;
  readonly counter: TokenCounter;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  readonly maxDelegations?: number;
  readonly callTimeoutMs?: number;
  readonly replyMaxTokens?: number;
  readonly answerMaxTokens?: number;
  /** The in-process conversation memory's caps (SUPERVISOR_LIMITS by default) and clock. */
  readonly conversationLimits?: Pick<BoundedMemoryStoreOptions, 'maxEntries' | 'maxBytes' | 'maxEntryBytes' | 'ttlMs' | 'now'>;
  /**
   * Where the conversation memory lives instead (`redisConversations`, shared by replicas, so "next page" asked of
   * any replica reaches the agent that answered); in this process, bounded by `conversationLimits`, when unset.
   */
  readonly conversations?: MemoryStore<readonly string[]> | undefined;
}

/** How the supervisor's turn ended (the `outcome` of `flotilla_agent_turns_total`), before any abort. */
export type SupervisorOutcome = Extract<TurnOutcome, 'answered' | 'tool_error' | 'failed'>;

export interface SupervisorAnswer {
  readonly answer: string;
  readonly options: readonly string[];
  readonly data: Readonly<Record<string, unknown>> | undefined;
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
  /**
   * `answered` when every part was answered (or nothing the agents it can reach cover was asked, and no agent that is
   * down may cover it); `failed` when no agent answered anything and one failed or is down (or none is left);
   * `tool_error` when some parts were answered and others failed, or this conversation's state could not be read or
   * kept (the answer says which).
   */
  readonly outcome: SupervisorOutcome;
}

/**
 * The supervisor's conversation memory in Redis, shared by its replicas under `keyPrefix`: SUPERVISOR_LIMITS' count,
 * entry size (a larger one is refused with `payload_too_large`, and the answer says it is not remembered) and TTL
 * (after the last use). A value that is not a short list of agent ids is treated as no memory.
 */
export function redisConversations(client: RedisClient, keyPrefix: string): MemoryStore<readonly string[]> {
  return redisMemoryStore<readonly string[]>({
    client,
    keyPrefix,
    ttlSeconds: SUPERVISOR_LIMITS.conversationTtlMs / 1000,
    maxConversations: SUPERVISOR_LIMITS.conversations,
    maxValueBytes: SUPERVISOR_LIMITS.conversationMaxBytes,
    parse: (value) =>
      Array.isArray(value) && value.length <= SUPERVISOR_LIMITS.conversationMaxAgents && value.every((id): id is string => typeof id === 'string') ? value : undefined,
  });
}

/** How an agent is named in an answer: its card's name, with the id it was configured or discovered as when they differ. */
function named(agent: Pick<RegisteredAgent, 'id' | 'name'>): string {
  return agent.name === agent.id ? agent.id : `the ${agent.name} (${agent.id})`;
}

/** Why an agent that is not ready cannot be asked (after "it" or "which"), from the registry's state and error. */
function whyDown(agent: RegisteredAgent): string {
  if (agent.state === 'refused') return `is left out (${agent.error ?? 'its card is refused'})`;
  if (agent.state === 'pending') return 'cannot be reached yet (its card is still being read)';
  return `cannot be reached (${agent.error ?? 'no answer'})`;
}

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The supervisor's turn: route the question by the agents' skills, delegate (in parallel when it spans
 * domains) with the conversation's contextId, relay progress, and merge every answer — each one kept, each within
 * its share of the budget, each failure named.
 */
export class Supervisor {
  /** Per conversation, the agents that answered its last question, the one with a continuable answer first. */
  private readonly conversations;

  constructor(private readonly options: SupervisorOptions) {
    this.conversations =
      options.conversations ??
      boundedMemoryStore<readonly string[]>({
        store: 'supervisor_conversation',
        maxEntries: SUPERVISOR_LIMITS.conversations,
        maxBytes: SUPERVISOR_LIMITS.conversationsMaxBytes,
        maxEntryBytes: SUPERVISOR_LIMITS.conversationMaxBytes,
        ttlMs: SUPERVISOR_LIMITS.conversationTtlMs,
        ...options.conversationLimits,
        metrics: options.metrics,
      });
  }

  async answer(question: string, contextId: string, progress: (note: string) => void = () => undefined, signal?: AbortSignal): Promise<SupervisorAnswer> {
    const all = this.options.registry.list();
    const ready = all.filter((a) => a.state === 'ready');
    if (readAct(question.slice(0, QUESTION_MAX_CHARS))?.kind === 'help') return this.capabilities(all);
    const recalled = await this.recall(contextId);
    if (recalled.unreadable !== undefined && isFollowUp(question)) {
      // Which agent to continue with is what could not be read: asking another would answer a different question.
      return {
        answer: `I could not continue this conversation: which agent answered it last is kept in the shared state, and ${recalled.unreadable}. Try again in a moment, or ask the whole question again.`,
        options: [],
        data: undefined,
        metadata: { path: 'followup', routed: '', failed: '', delegations: 0, remembered: false },
        outcome: 'failed',
      };
    }
    const readNote = recalled.unreadable === undefined ? undefined : `(I could not read this conversation's earlier turns, so I took this question on its own: ${recalled.unreadable}.)`;
    // Routed over every agent the supervisor knows, reachable or not (an unreachable one keeps its last card): a
    // question for an agent that is down is answered "cannot be reached", never "none of my agents covers that".
    const decision = route(question, all, recalled.last);
    if (decision.kind === 'none') return withNote(isFollowUp(question) && all.length > 0 ? this.nothingToContinue(ready) : this.nobody(ready, all), readNote);
    const parts = (decision.kind === 'fanout' ? decision.parts : [{ agentId: decision.agentId, question: decision.question }]).slice(0, this.options.maxDelegations ?? SUPERVISOR_LIMITS.maxDelegations);
    const total = this.options.answerMaxTokens ?? SUPERVISOR_LIMITS.answerMaxTokens;
    const perReply = Math.min(this.options.replyMaxTokens ?? SUPERVISOR_LIMITS.replyMaxTokens, Math.floor(total / parts.length));
    const agents = new Map(all.map((a) => [a.id, a]));
    progress(parts.length === 1 ? `Asking the ${agents.get(parts[0]?.agentId ?? '')?.name ?? 'agent'}…` : `Asking ${parts.length} agents in parallel…`);
    const notAsked = new Set<string>();
    const results = await Promise.all(
      parts.map((part) => {
        const agent = agents.get(part.agentId) as RegisteredAgent;
        if (agent.state === 'ready' && agent.client !== undefined) return this.ask(agent, part.question, contextId, perReply, progress, signal);
        notAsked.add(agent.id);
        return Promise.resolve(this.unreachable(agent, part.question, decision.kind));
      }),
    );
    const answered = results.filter((r) => r.outcome === 'ok' || r.outcome === 'rejected');
    // The agent whose answer can be continued ("next page") is remembered first.
    const continuable = [...answered].sort((a, b) => Number(b.options.length > 0) - Number(a.options.length > 0));
    const kept = answered.length > 0 ? await this.remember(contextId, continuable.map((r) => r.agentId)) : { note: undefined, failed: false };
    const merged = this.merge(decision, results, notAsked);
    // Agents that are down and whose cards were never read may cover part of this: the answer says it did not ask them.
    const unknown = all.filter((a) => a.state !== 'ready' && a.skills.length === 0 && !results.some((r) => r.agentId === a.id));
    const unknownNote =
      unknown.length === 0
        ? undefined
        : `(Not asked: ${unknown.map((a) => `${named(a)}, which ${whyDown(a)}`).join('; ')}. I have not read what ${unknown.length === 1 ? 'it covers' : 'they cover'}, so part of this may be for ${unknown.length === 1 ? 'it' : 'them'}.)`;
    const notes = [unknownNote, readNote, kept.note].filter((n): n is string => n !== undefined);
    const outcome: SupervisorOutcome =
      answered.length === 0 ? 'failed' : answered.length < results.length || recalled.unreadable !== undefined || kept.failed ? 'tool_error' : 'answered';
    const metadata = { ...merged.metadata, ...(kept.note === undefined ? {} : { remembered: false }), ...(unknown.length === 0 ? {} : { down: unknown.map((a) => a.id).join(',') }) };
    return { ...merged, answer: [merged.answer, ...notes].join('\n\n'), metadata, outcome };
  }

  /** The agents that answered this conversation last; what failed when the store could not be read (Redis down). */
  private async recall(contextId: string): Promise<{ readonly last: readonly string[]; readonly unreadable: string | undefined }> {
    try {
      return { last: (await this.conversations.load(contextId)) ?? [], unreadable: undefined };
    } catch (error) {
      this.options.logger.warn({ err: error }, 'conversation memory could not be read: this turn is routed without it');
      return { last: [], unreadable: describeError(error) };
    }
  }

  /**
   * Remembers who answered, for a follow-up. A note for the answer when it could not: the conversation is too large
   * to remember (a limit), or the store failed (`failed`: Redis is away).
   */
  private async remember(contextId: string, agents: readonly string[]): Promise<{ readonly note: string | undefined; readonly failed: boolean }> {
    try {
      await this.conversations.save(contextId, agents);
      return { note: undefined, failed: false };
    } catch (error) {
      const tooLarge = isFlotillaError(error) && error.code === 'payload_too_large';
      if (tooLarge) this.options.logger.warn({ bytes: error.details.bytes }, 'conversation too large to remember for follow-ups');
      else this.options.logger.warn({ err: error }, 'conversation memory could not be saved: no follow-up for this turn');
      // Forget the earlier turn too: a follow-up must not silently continue the question before this one.
      await this.conversations.save(contextId, undefined).catch(() => undefined);
      const remedy = tooLarge ? 'Start a new conversation (with a shorter id) for follow-ups.' : 'Ask your next question in full.';
      return { note: `(Not remembered for a follow-up such as "next page": ${describeError(error)}. ${remedy})`, failed: !tooLarge };
    }
  }

  private async ask(agent: RegisteredAgent, question: string, contextId: string, replyMaxTokens: number, progress: (note: string) => void, signal: AbortSignal | undefined): Promise<DelegationResult> {
    if (agent.client === undefined) throw new Error(`agent ${agent.id} is ready without a client`);
    const result = await delegate({
      client: agent.client,
      agentId: agent.id,
      agentName: agent.name,
      agentUrl: agent.url,
      question,
      contextId,
      timeoutMs: this.options.callTimeoutMs ?? SUPERVISOR_LIMITS.callTimeoutMs,
      replyMaxTokens,
      counter: this.options.counter,
      onProgress: progress,
      signal,
    });
    const { metrics } = this.options;
    metrics.supervisorDelegations.inc({ agent: agent.id, outcome: result.outcome });
    metrics.supervisorDelegationDuration.observe({ agent: agent.id }, result.seconds);
    metrics.supervisorReplyTokens.observe({ agent: agent.id }, result.replyTokens);
    if (result.truncated) metrics.supervisorReplyTruncations.inc({ agent: agent.id });
    if (result.outcome === 'failed' || result.outcome === 'timeout') {
      this.options.logger.warn({ agent: agent.id, outcome: result.outcome, answer: result.answer }, 'delegation failed');
      // Its card is read again before it gets more work; an agent that answered with a failure stays ready.
      if (result.unreachable) this.options.registry.markUnreachable(agent.id, result.reason ?? result.answer);
    }
    return result;
  }

  /** The part of an answer for an agent that is down: not asked, and said so (the agent named, and why). */
  private unreachable(agent: RegisteredAgent, question: string, kind: RoutingDecision['kind']): DelegationResult {
    this.options.metrics.supervisorDelegations.inc({ agent: agent.id, outcome: 'failed' });
    const role = kind === 'followup' ? 'answered this conversation last' : kind === 'fanout' ? 'covers this part' : 'covers this';
    return {
      agentId: agent.id,
      agentName: agent.name,
      question,
      outcome: 'failed',
      answer: `${named(agent)} ${role}, but I could not ask it: it ${whyDown(agent)}`,
      options: [],
      data: undefined,
      metadata: {},
      replyTokens: 0,
      truncated: false,
      seconds: 0,
      unreachable: true,
    };
  }

  /** "What can you do?": every agent the supervisor can ask, what each answers, and which are down. */
  private capabilities(all: readonly RegisteredAgent[]): SupervisorAnswer {
    const metadata = { path: 'help', routed: '', failed: '', delegations: 0 };
    if (all.length === 0) return { answer: 'No domain agent is configured or discovered yet, so I cannot answer anything right now.', options: [], data: undefined, metadata, outcome: 'failed' };
    const lines = all.map((a) => {
      const skills = a.skills.map((s) => `${s.name}: ${s.description}`).join(' ');
      const state = a.state === 'ready' ? '' : ` (not asked now: it ${whyDown(a)})`;
      return `- ${a.name}${state}${skills === '' ? (a.description === '' ? '' : `: ${a.description}`) : `: ${skills}`}`;
    });
    const examples = all.filter((a) => a.state === 'ready').flatMap((a) => a.skills.flatMap((s) => s.examples.slice(0, 1))).slice(0, 6);
    return {
      answer: `I route your questions to these agents and merge their answers (read-only):\n${lines.join('\n')}\n\nAsk in plain words; a question that spans them goes to each.`,
      options: examples,
      data: undefined,
      metadata,
      outcome: 'answered',
    };
  }

  /** One answer passes through; several become sections, each failure named in its own. The outcome is the caller's. */
  private merge(decision: RoutingDecision, results: readonly DelegationResult[], notAsked: ReadonlySet<string>): Omit<SupervisorAnswer, 'outcome'> {
    const routed = results.map((r) => r.agentId).join(',');
    const failed = results.filter((r) => r.outcome === 'failed' || r.outcome === 'timeout');
    const metadata = { path: decision.kind, routed, failed: failed.map((r) => r.agentId).join(','), delegations: results.length - notAsked.size };
    const only = results[0];
    if (results.length === 1 && only !== undefined) {
      const text =
        only.outcome === 'ok' || only.outcome === 'rejected'
          ? only.answer
          : notAsked.has(only.agentId)
            ? `${capitalized(only.answer)}. Try again in a moment; if it keeps failing, the agent needs attention.`
            : `I could not get an answer: ${only.answer}. Try again in a moment; if it keeps failing, the ${only.agentName} needs attention.`;
      return { answer: text, options: only.options, data: only.data, metadata: { ...metadata, ...scalars(only.metadata) } };
    }
    const sections = results.map((r) =>
      r.outcome === 'ok' || r.outcome === 'rejected'
        ? `*${r.agentName}* (asked: "${r.question}")\n${r.answer}`
        : `*${r.agentName}*: no answer — ${r.answer}. The other answers are complete; ask again later for this part.`,
    );
    const options = [...new Set(results.flatMap((r) => r.options))].slice(0, SUPERVISOR_LIMITS.maxOptions);
    const data = { agents: results.map((r) => ({ id: r.agentId, name: r.agentName, outcome: r.outcome, truncated: r.truncated, data: r.data ?? null })) };
    return { answer: sections.join('\n\n'), options, data, metadata };
  }

  /**
   * Nothing the supervisor knows covers the question. Every agent that is down is named with why; one whose card
   * was never read may be the one, so the turn fails (it is not answered) rather than claim nobody covers it.
   */
  /** "next page" in a conversation this supervisor has no earlier answer of: nothing to continue, said as such. */
  private nothingToContinue(ready: readonly RegisteredAgent[]): SupervisorAnswer {
    const examples = ready.flatMap((a) => a.skills.flatMap((s) => s.examples.slice(0, 1))).slice(0, 6);
    return {
      answer: 'There is no earlier answer in this conversation for me to continue, so I asked no agent. Ask the question itself, for example one of these.',
      options: examples,
      data: undefined,
      metadata: { path: 'none', routed: '', failed: '', delegations: 0 },
      outcome: 'answered',
    };
  }

  private nobody(ready: readonly RegisteredAgent[], all: readonly RegisteredAgent[]): SupervisorAnswer {
    if (all.length === 0) {
      return {
        answer: 'No domain agent is available right now (none is configured or discovered yet). Try again in a moment.',
        options: [],
        data: undefined,
        metadata: { path: 'none', routed: '', failed: '', delegations: 0 },
        outcome: 'failed',
      };
    }
    const down = all.filter((a) => a.state !== 'ready');
    const unknown = down.filter((a) => a.skills.length === 0);
    const sentences = down.map((a) => `I could not ask ${named(a)}: it ${whyDown(a)}.`);
    sentences.push(
      ready.length === 0
        ? 'No agent I can reach is left to ask; try again in a moment.'
        : `None of the agents I can reach covers this. I can ask: ${ready.map((a) => `${a.name} (${a.skills.map((s) => s.name).join(', ')})`).join('; ')}.`,
    );
    if (unknown.length > 0) {
      const one = unknown.length === 1;
      sentences.push(`I have not read what ${unknown.map(named).join(' or ')} ${one ? 'covers, so it' : 'cover, so one of them'} may be the one for this: ask again when ${one ? 'it is' : 'they are'} back.`);
    }
    const examples = ready.flatMap((a) => a.skills.flatMap((s) => s.examples.slice(0, 1))).slice(0, 6);
    const failed = unknown.length > 0 || ready.length === 0;
    // `failed` names the agents the answer depended on (callers count a turn with one as a failure), `down` every one.
    const ids = (agents: readonly RegisteredAgent[]): string => agents.map((a) => a.id).join(',');
    return {
      answer: sentences.join(' '),
      options: examples,
      data: undefined,
      metadata: { path: 'none', routed: '', failed: failed ? ids(unknown.length > 0 ? unknown : down) : '', delegations: 0, ...(down.length === 0 ? {} : { down: ids(down) }) },
      outcome: failed ? 'failed' : 'answered',
    };
  }
}

/** The answer with a note after it (what the turn could not do), when there is one. */
function withNote(answer: SupervisorAnswer, note: string | undefined): SupervisorAnswer {
  if (note === undefined) return answer;
  return { ...answer, answer: `${answer.answer}\n\n${note}`, outcome: answer.outcome === 'answered' ? 'tool_error' : answer.outcome };
}

function scalars(metadata: Readonly<Record<string, unknown>>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (key === 'options') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[`agent_${key}`] = value;
  }
  return out;
}
