import type { Logger } from '@flotilla/core';
import type { FlotillaMetrics } from '@flotilla/metrics';
import type { TokenCounter } from '@flotilla/tokens';
import { delegate, type DelegationResult } from './delegate.js';
import type { AgentRegistry, RegisteredAgent } from './registry.js';
import { route, type RoutingDecision } from './routing.js';

export const SUPERVISOR_LIMITS = {
  /** Agents one question is delegated to, at most. */
  maxDelegations: 4,
  /** Time one delegation may take. */
  callTimeoutMs: 60_000,
  /** Tokens of one agent's reply passed on; with several agents, `answerMaxTokens` is shared among them. */
  replyMaxTokens: 4_000,
  answerMaxTokens: 6_000,
  /** Conversations whose last agents are remembered (for follow-ups), and for how long. */
  conversations: 10_000,
  conversationTtlMs: 60 * 60 * 1000,
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
}

export interface SupervisorAnswer {
  readonly answer: string;
  readonly options: readonly string[];
  readonly data: Readonly<Record<string, unknown>> | undefined;
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
}

interface Conversation {
  /** Agents that answered the last question, the one with a continuable answer first. */
  agents: string[];
  at: number;
}

/**
 * The supervisor's turn: route the question by the agents' skills, delegate (in parallel when it spans
 * domains) with the conversation's contextId, relay progress, and merge every answer — each one kept, each within
 * its share of the budget, each failure named.
 */
export class Supervisor {
  private readonly conversations = new Map<string, Conversation>();

  constructor(private readonly options: SupervisorOptions) {}

  async answer(question: string, contextId: string, progress: (note: string) => void = () => undefined): Promise<SupervisorAnswer> {
    const ready = this.options.registry.ready();
    const last = this.recall(contextId);
    const decision = route(question, ready, last);
    if (decision.kind === 'none') return this.nobody(decision.reason, ready);
    const parts = (decision.kind === 'fanout' ? decision.parts : [{ agentId: decision.agentId, question: decision.question }]).slice(0, this.options.maxDelegations ?? SUPERVISOR_LIMITS.maxDelegations);
    const total = this.options.answerMaxTokens ?? SUPERVISOR_LIMITS.answerMaxTokens;
    const perReply = Math.min(this.options.replyMaxTokens ?? SUPERVISOR_LIMITS.replyMaxTokens, Math.floor(total / parts.length));
    const agents = new Map(ready.map((a) => [a.id, a]));
    progress(parts.length === 1 ? `Asking the ${agents.get(parts[0]?.agentId ?? '')?.name ?? 'agent'}…` : `Asking ${parts.length} agents in parallel…`);
    const results = await Promise.all(
      parts.map((part) => {
        const agent = agents.get(part.agentId) as RegisteredAgent;
        return this.ask(agent, part.question, contextId, perReply, progress);
      }),
    );
    const answered = results.filter((r) => r.outcome === 'ok' || r.outcome === 'rejected');
    // The agent whose answer can be continued ("next page") is remembered first.
    const continuable = [...answered].sort((a, b) => Number(b.options.length > 0) - Number(a.options.length > 0));
    if (answered.length > 0) this.remember(contextId, continuable.map((r) => r.agentId));
    return this.merge(decision, results);
  }

  private async ask(agent: RegisteredAgent, question: string, contextId: string, replyMaxTokens: number, progress: (note: string) => void): Promise<DelegationResult> {
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

  private merge(decision: RoutingDecision, results: readonly DelegationResult[]): SupervisorAnswer {
    const routed = results.map((r) => r.agentId).join(',');
    const failed = results.filter((r) => r.outcome === 'failed' || r.outcome === 'timeout');
    const metadata = { path: decision.kind, routed, failed: failed.map((r) => r.agentId).join(','), delegations: results.length };
    const only = results[0];
    if (results.length === 1 && only !== undefined) {
      const text = only.outcome === 'ok' || only.outcome === 'rejected' ? only.answer : `I could not get an answer: ${only.answer}. Try again in a moment; if it keeps failing, the ${only.agentName} needs attention.`;
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

  private nobody(reason: 'no_agents' | 'no_match', ready: readonly RegisteredAgent[]): SupervisorAnswer {
    const all = this.options.registry.list();
    if (reason === 'no_agents') {
      const down = all.filter((a) => a.state !== 'ready').map((a) => `${a.id} (${a.state}${a.error === undefined ? '' : `: ${a.error}`})`);
      return {
        answer: `No domain agent is available right now${down.length > 0 ? `: ${down.join('; ')}` : ' (none is configured or discovered)'}. Try again in a moment.`,
        options: [],
        data: undefined,
        metadata: { path: 'none', routed: '', failed: '', delegations: 0 },
      };
    }
    const examples = ready.flatMap((a) => a.skills.flatMap((s) => s.examples.slice(0, 1))).slice(0, 6);
    return {
      answer: `None of my agents covers that. I can ask: ${ready.map((a) => `${a.name} (${a.skills.map((s) => s.name).join(', ')})`).join('; ')}.`,
      options: examples,
      data: undefined,
      metadata: { path: 'none', routed: '', failed: '', delegations: 0 },
    };
  }

  private recall(contextId: string): string[] {
    const known = this.conversations.get(contextId);
    if (known === undefined || Date.now() - known.at > SUPERVISOR_LIMITS.conversationTtlMs) return [];
    return known.agents;
  }

  private remember(contextId: string, agents: string[]): void {
    this.conversations.delete(contextId);
    this.conversations.set(contextId, { agents, at: Date.now() });
    while (this.conversations.size > SUPERVISOR_LIMITS.conversations) {
      const oldest = this.conversations.keys().next().value;
      if (oldest === undefined) break;
      this.conversations.delete(oldest);
    }
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
