/**
 * Labelled series exist only once something sets them, and Prometheus' `increase()` and `rate()` cannot count a
 * series' first sample: the first 429 burst, the first failed turn or the first large read after every start would
 * never alert. So each process creates, at zero, every series its alerts and dashboards read, for the label values it
 * knows at start (its tools, its upstream operations, its agent and skills) or as soon as it learns them (a
 * supervisor's agents). Gauges and cardinality stay bounded: the label values are the process's own, never a user's.
 */
import type { Histogram } from 'prom-client';
import {
  A2A_REJECT_REASONS,
  DELEGATION_OUTCOMES,
  HYBRID_ROUTES,
  HYBRID_ROUTE_REASONS,
  LIMITATION_KINDS,
  LIMITATION_STRATEGIES,
  SLACK_ANSWER_OUTCOMES,
  SLACK_API_METHODS,
  SLACK_EVENT_KINDS,
  TOOL_OUTCOMES,
  TRIM_KINDS,
  TURN_OUTCOMES,
  UPSTREAM_OUTCOMES,
  WORKFLOW_PATHS,
  upstreamSystem,
  type UpstreamSystem,
} from './names.js';
import type { FlotillaMetrics, SlackMetrics } from './registry.js';

/** Tools whose series each registry already has (a histogram's `zero()` resets a series, so it runs once per tool). */
const zeroedTools = new WeakMap<FlotillaMetrics, Set<string>>();

/**
 * Counters and histograms of one MCP tool, at zero: calls by outcome, spills, truncations, result sizes. Once per
 * registry and tool: an MCP server over HTTP registers its tools again for every request, and must not reset them.
 */
export function zeroToolSeries(metrics: FlotillaMetrics, tool: string): void {
  const tools = zeroedTools.get(metrics) ?? new Set<string>();
  zeroedTools.set(metrics, tools);
  if (tools.has(tool)) return;
  tools.add(tool);
  for (const outcome of TOOL_OUTCOMES) metrics.toolCalls.inc({ tool, outcome }, 0);
  for (const counter of [metrics.toolSpills, metrics.toolBudgetTruncations, metrics.searchCapHits]) counter.inc({ tool }, 0);
  const histograms: readonly Histogram<'tool'>[] = [metrics.toolDuration, metrics.toolResultBytes, metrics.toolResultTokens, metrics.toolRawResultBytes];
  for (const histogram of histograms) histogram.zero({ tool });
}

/**
 * Requests of one upstream system by operation and outcome, at zero (the error, 429 and circuit alerts read them).
 * Every upstream client calls it at start, so a system name that is no label name (`upstreamSystem`) is refused there.
 */
export function zeroUpstreamSeries(metrics: FlotillaMetrics, system: UpstreamSystem, operations: readonly string[]): void {
  upstreamSystem(system);
  for (const operation of operations) for (const outcome of UPSTREAM_OUTCOMES) metrics.upstreamRequests.inc({ system, operation, outcome }, 0);
}

/**
 * An agent's turns by skill, path and outcome (its skills, plus `none` for turns that end before routing), its A2A
 * refusals, limitations, trims and hybrid routes, at zero. The turn-duration histogram is left to its first turn: a
 * latency quantile needs many turns anyway, and its buckets per skill and path would dwarf the rest of /metrics.
 */
export function zeroAgentSeries(metrics: FlotillaMetrics, agent: string, skills: readonly string[]): void {
  for (const skill of new Set([...skills, 'none'])) {
    for (const path of WORKFLOW_PATHS) for (const outcome of TURN_OUTCOMES) metrics.agentTurns.inc({ agent, skill, path, outcome }, 0);
  }
  for (const reason of A2A_REJECT_REASONS) metrics.a2aRejected.inc({ agent, reason }, 0);
  for (const kind of LIMITATION_KINDS) metrics.limitationsDetected.inc({ agent, kind }, 0);
  for (const strategy of LIMITATION_STRATEGIES) metrics.limitationStrategies.inc({ agent, strategy }, 0);
  for (const kind of TRIM_KINDS) {
    metrics.contextTrims.inc({ agent, kind }, 0);
    metrics.contextTokensSaved.inc({ agent, kind }, 0);
  }
  metrics.contextRequests.inc({ agent }, 0);
  for (const route of HYBRID_ROUTES) for (const reason of HYBRID_ROUTE_REASONS[route]) metrics.hybridRoutes.inc({ agent, route, reason }, 0);
}

/** The supervisor's delegations to one agent by outcome, at zero: called when the agent joins the registry. */
export function zeroDelegationSeries(metrics: FlotillaMetrics, agent: string): void {
  for (const outcome of DELEGATION_OUTCOMES) metrics.supervisorDelegations.inc({ agent, outcome }, 0);
  metrics.supervisorReplyTruncations.inc({ agent }, 0);
}

/** The Slack bot's events, answers and API failures by every label value, at zero. */
export function zeroSlackSeries(metrics: SlackMetrics): void {
  for (const kind of SLACK_EVENT_KINDS) metrics.events.inc({ kind }, 0);
  for (const outcome of SLACK_ANSWER_OUTCOMES) metrics.answers.inc({ outcome }, 0);
  for (const method of SLACK_API_METHODS) metrics.apiFailures.inc({ method }, 0);
}
