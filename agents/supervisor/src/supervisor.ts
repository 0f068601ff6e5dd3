import { isFlotillaError, type Logger } from '@flotilla/core';
import { boundedMemoryStore, type BoundedMemoryStoreOptions } from '@flotilla/agent-kit';
import type { FlotillaMetrics } from '@flotilla/metrics';
import type { TokenCounter } from '@flotilla/tokens';
import { delegate, type DelegationResult } from './delegate.js';
import type { AgentRegistry, RegisteredAgent } from './registry.js';
import { route, type RoutingDecision } from './routing.js';

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
  /** Conversations whose last agents are remembered (for follow-ups), and for how long. */
  conversations: 10_000,
  conversationTtlMs: 60 * 60 * 1000,
  /**
   * Bytes of that memory (each conversation's agent ids as JSON, and its contextId): 10,000 conversations with
   * 256-character ids are ~3 MiB; past it the least recently used go.
   */
  conversationsMaxBytes: 4 * 1024 * 1024,
  /**
   * Largest memory of one conversation: a 256-character contextId in any script (≤ 1 KiB of UTF-8) and 4 agent ids
   * fit; a larger one is not remembered, and the answer says so.
   */
  conversationMaxBytes: 2 * 1024,
  /** Follow-up options passed on. */
  maxOptions: 10,
} as const;

/** Questions about the supervisor itself, answered from the agents' cards without asking any agent. */
const CAPABILITY_QUESTION =
  /^(?:(?:hi|hello|hey)[,!.]?\s+)?(?:help|\?|what can you (?:do|answer|help with)|what do you (?:know|support|do)|how (?:do|can) i (?:use|ask)(?: you)?|(?:who|which agents|what agents) can (?:i|you) ask|what agents (?:are there|do you have))(?:\s+(?:for me|for us|here))?\s*[?.!]*$/;

export interface SupervisorOptions {
  readonly registry: AgentRegistry;
  readonly counter: TokenCounter;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  readonly maxDelegations?: number;
  readonly callTimeoutMs?: number;
  readonly replyMaxTokens?: number;
  readonly answerMaxTokens?: number;
  /** The conversation memory's caps (SUPERVISOR_LIMITS by default) and clock. */
  readonly conversationLimits?: Pick<BoundedMemoryStoreOptions, 'maxEntries' | 'maxBytes' | 'maxEntryBytes' | 'ttlMs' | 'now'>;
}

export interface SupervisorAnswer {
  readonly answer: string;
  readonly options: readonly string[];
  readonly data: Readonly<Record<string, unknown>> | undefined;
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
}

/**
 * The supervisor's turn: route the question by the agents' skills, delegate (in parallel when it spans
 * domains) with the conversation's contextId, relay progress, and merge every answer — each one kept, each within
 * its share of the budget, each failure named.
 */
export class Supervisor {
  /** Per conversation, the agents that answered its last question, the one with a continuable answer first. */
  private readonly conversations;

  constructor(private readonly options: SupervisorOptions) {
    this.conversations = boundedMemoryStore<readonly string[]>({
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
    if (CAPABILITY_QUESTION.test(question.trim().toLowerCase())) return this.capabilities(all);
    const last = (await this.conversations.load(contextId)) ?? [];
    // Routed over every agent the supervisor knows, reachable or not (an unreachable one keeps its last card): a
    // question for an agent that is down is answered "cannot be reached", never "none of my agents covers that".
    const decision = route(question, all, last);
    if (decision.kind === 'none') return this.nobody(decision.reason, ready, all);
    const parts = (decision.kind === 'fanout' ? decision.parts : [{ agentId: decision.agentId, question: decision.question }]).slice(0, this.options.maxDelegations ?? SUPERVISOR_LIMITS.maxDelegations);
    const total = this.options.answerMaxTokens ?? SUPERVISOR_LIMITS.answerMaxTokens;
    const perReply = Math.min(this.options.replyMaxTokens ?? SUPERVISOR_LIMITS.replyMaxTokens, Math.floor(total / parts.length));
    const agents = new Map(all.map((a) => [a.id, a]));
    progress(parts.length === 1 ? `Asking the ${agents.get(parts[0]?.agentId ?? '')?.name ?? 'agent'}…` : `Asking ${parts.length} agents in parallel…`);
    const results = await Promise.all(
      parts.map((part) => {
        const agent = agents.get(part.agentId) as RegisteredAgent;
        if (agent.state !== 'ready' || agent.client === undefined) return Promise.resolve(this.unreachable(agent, part.question));
        return this.ask(agent, part.question, contextId, perReply, progress, signal);
      }),
    );
    const answered = results.filter((r) => r.outcome === 'ok' || r.outcome === 'rejected');
    // The agent whose answer can be continued ("next page") is remembered first.
    const continuable = [...answered].sort((a, b) => Number(b.options.length > 0) - Number(a.options.length > 0));
    const forgotten = answered.length > 0 ? await this.remember(contextId, continuable.map((r) => r.agentId)) : undefined;
    const merged = this.merge(decision, results);
    return forgotten === undefined ? merged : { ...merged, answer: `${merged.answer}\n\n${forgotten}`, metadata: { ...merged.metadata, remembered: false } };
  }

  /** Remembers who answered, for a follow-up; a note for the answer when the conversation is too large to remember. */
  private async remember(contextId: string, agents: readonly string[]): Promise<string | undefined> {
    try {
      await this.conversations.save(contextId, agents);
      return undefined;
    } catch (error) {
      if (!isFlotillaError(error) || error.code !== 'payload_too_large') throw error;
      this.options.logger.warn({ bytes: error.details.bytes }, 'conversation too large to remember for follow-ups');
      // Forget the earlier turn too: a follow-up must not silently continue the question before this one.
      await this.conversations.save(contextId, undefined).catch(() => undefined);
      return `(Not remembered for a follow-up such as "next page": ${error.message}. Start a new conversation (with a shorter id) for follow-ups.)`;
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
      if (result.unreachable) this.options.registry.markUnreachable(agent.id, result.answer);
    }
    return result;
  }

  /** The part of an answer for an agent that is down: not asked, and said so. */
  private unreachable(agent: RegisteredAgent, question: string): DelegationResult {
    this.options.metrics.supervisorDelegations.inc({ agent: agent.id, outcome: 'failed' });
    const why = agent.error === undefined ? (agent.state === 'pending' ? 'it has not answered yet since I started' : `it is ${agent.state}`) : agent.error;
    return {
      agentId: agent.id,
      agentName: agent.name,
      question,
      outcome: 'failed',
      answer: `the ${agent.name} cannot be reached right now (${why}), so I did not ask it`,
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
    if (all.length === 0) return { answer: 'No domain agent is configured or discovered yet, so I cannot answer anything right now.', options: [], data: undefined, metadata };
    const lines = all.map((a) => {
      const skills = a.skills.map((s) => `${s.name}: ${s.description}`).join(' ');
      const state = a.state === 'ready' ? '' : ` (cannot be reached right now${a.error === undefined ? '' : `: ${a.error}`})`;
      return `- ${a.name}${state}${skills === '' ? (a.description === '' ? '' : `: ${a.description}`) : `: ${skills}`}`;
    });
    const examples = all.filter((a) => a.state === 'ready').flatMap((a) => a.skills.flatMap((s) => s.examples.slice(0, 1))).slice(0, 6);
    return {
      answer: `I route your questions to these agents and merge their answers (read-only):\n${lines.join('\n')}\n\nAsk in plain words; a question that spans them goes to each.`,
      options: examples,
      data: undefined,
      metadata,
    };
  }

  private merge(decision: RoutingDecision, results: readonly DelegationResult[]): SupervisorAnswer {
    const routed = results.map((r) => r.agentId).join(',');
    const failed = results.filter((r) => r.outcome === 'failed' || r.outcome === 'timeout');
    const metadata = { path: decision.kind, routed, failed: failed.map((r) => r.agentId).join(','), delegations: results.length };
    const only = results[0];
    if (results.length === 1 && only !== undefined) {
      const text =
        only.outcome === 'ok' || only.outcome === 'rejected'
          ? only.answer
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

  private nobody(reason: 'no_agents' | 'no_match', ready: readonly RegisteredAgent[], all: readonly RegisteredAgent[]): SupervisorAnswer {
    const downAgents = all.filter((a) => a.state !== 'ready');
    if (reason === 'no_agents' || ready.length === 0) {
      const down = all.filter((a) => a.state !== 'ready').map((a) => `${a.id} (${a.state}${a.error === undefined ? '' : `: ${a.error}`})`);
      return {
        answer: `No domain agent is available right now${down.length > 0 ? `: ${down.join('; ')}` : ' (none is configured or discovered)'}. Try again in a moment.`,
        options: [],
        data: undefined,
        metadata: { path: 'none', routed: '', failed: '', delegations: 0 },
      };
    }
    const examples = ready.flatMap((a) => a.skills.flatMap((s) => s.examples.slice(0, 1))).slice(0, 6);
    // An agent that is down may be the one that covers it: say so rather than "nobody covers that".
    const down =
      downAgents.length === 0
        ? ''
        : ` ${downAgents.map((a) => `The ${a.name} cannot be reached right now${a.error === undefined ? '' : ` (${a.error})`}`).join('; ')}, and it may be the one that covers this: try again in a moment.`;
    return {
      answer: `None of the agents I can reach covers that. I can ask: ${ready.map((a) => `${a.name} (${a.skills.map((s) => s.name).join(', ')})`).join('; ')}.${down}`,
      options: examples,
      data: undefined,
      metadata: { path: 'none', routed: '', failed: '', delegations: 0 },
    };
  }
}

function scalars(metadata: Readonly<Record<string, unknown>>): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (key === 'options') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[`agent_${key}`] = value;
  }
  return out;
}
