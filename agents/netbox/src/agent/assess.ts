// Detection before anything is read: count probes for the plan's first list call (two for a list per device), the
// limitations they reveal, the handling chosen for them, and the plan adjusted to it (a batch, a sample, nothing).
import { performance } from 'node:perf_hooks';
import { oneValue, WORKFLOW_LIMITS, type AgentDomain, type Assessment, type CallTool, type ToolCall, type ToolResult } from '@flotilla/agent-kit';
import {
  chooseHandling,
  DETECTION_DEFAULTS,
  detectLimitations,
  optimalBatchSize,
  type DetectionLimits,
  type Handling,
  type PlanStep,
  type ProgressiveSession,
  type RateState,
} from '@flotilla/limitations';
import type { NetBoxIntent } from './intents.js';
import { COUNT_FILTERS, defined, LIST_TOOLS } from './lists.js';
import { PRESENTATION } from './present.js';

/** Estimated tokens of one row as the tools return it (measured on the simulator's estate, rounded up). */
export const ITEM_TOKENS: Readonly<Record<string, number>> = {
  sites: 45,
  devices: 60,
  interfaces: 40,
  cables: 45,
  vlans: 30,
  prefixes: 35,
  ip_addresses: 40,
  modules: 35,
};

/** Longest the rate limiter may make a question wait, by default, before the answer falls back instead. */
export const MAX_RATE_WAIT_MS = 30_000;

/** What detection reads besides the probes. */
export interface AssessOptions {
  /** The shared upstream rate limiter's state, when the tools run in this process (for rate-limit pressure). */
  readonly rate?: () => RateState | undefined;
  readonly detection?: Partial<DetectionLimits>;
  /** Longest the rate limiter may make a question wait before the answer falls back instead. */
  readonly maxWaitMs?: number;
}

/** Count queries for the plan's first call, and the steps detection reads. */
async function probe(call: ToolCall, callTool: CallTool): Promise<{ steps: PlanStep[]; probes: ToolResult[] } | undefined> {
  const model = LIST_TOOLS[call.tool];
  if (model === undefined || Number(call.args.offset ?? 0) > 0) return undefined;
  const filters = Object.fromEntries(COUNT_FILTERS.filter((k) => call.args[k] !== undefined).map((k) => [k, call.args[k]]));
  const relation = call.tool === 'list_interfaces' && (call.args.site !== undefined || Array.isArray(call.args.device_id));
  if (!relation) {
    const counted = await callTool({ tool: 'count_netbox_objects', args: { object_type: model, ...filters } });
    if (counted.isError) return { steps: [], probes: [counted] };
    return { steps: [{ kind: 'list', step: call.tool, total: Number(counted.body.count ?? 0), itemTokens: ITEM_TOKENS[model] ?? 40 }], probes: [counted] };
  }
  const parentFilters = defined({ site: call.args.site, role: call.args.role, device_id: call.args.device_id });
  const [parents, children] = await Promise.all([
    callTool({ tool: 'count_netbox_objects', args: { object_type: 'devices', ...parentFilters } }),
    callTool({ tool: 'count_netbox_objects', args: { object_type: 'interfaces', ...filters } }),
  ]);
  if (parents.isError || children.isError) return { steps: [], probes: [parents, children] };
  return {
    steps: [
      {
        kind: 'relation',
        step: call.tool,
        parents: Number(parents.body.count ?? 0),
        total: Number(children.body.count ?? 0),
        itemTokens: ITEM_TOKENS.interfaces ?? 40,
        pushdown: call.args.device_id === undefined,
      },
    ],
    probes: [parents, children],
  };
}

/** The plan's first call as the handling wants it: nothing, one batch (sampled or not), or the whole short list. */
function adjust(call: ToolCall, handling: Handling | undefined, total: number): ToolCall[] {
  if (handling?.fetch === 'none') return [];
  const model = LIST_TOOLS[call.tool] ?? 'default';
  const limit = handling?.present === 'progressive' ? Math.min(PRESENTATION.batchMax, optimalBatchSize(model, total)) : Math.min(PRESENTATION.batchMax, Math.max(1, total));
  return [{ tool: call.tool, args: { ...call.args, limit, offset: 0, ...(handling?.fetch === 'sampled' ? { sample: true } : {}) } }];
}

/** The domain's `assess`: probes, detection and handling, within the limits of `options`. */
export function createAssess(options: AssessOptions = {}): NonNullable<AgentDomain<NetBoxIntent, ProgressiveSession>['assess']> {
  const limits: DetectionLimits = { ...DETECTION_DEFAULTS, budgetTokens: WORKFLOW_LIMITS.answerMaxTokens, largeResultThreshold: PRESENTATION.showWholeMax, ...options.detection };
  const maxWaitMs = options.maxWaitMs ?? MAX_RATE_WAIT_MS;
  return async ({ classification, plan, callTool }): Promise<Assessment> => {
    const first = plan[0];
    const none: Assessment = { limitations: [], handling: undefined, plan, probes: [], detectSeconds: 0 };
    if (first === undefined || classification.intent === 'next_page' || classification.intent === 'summary') return none;
    const probed = await probe(first, callTool);
    if (probed === undefined) return none;
    if (probed.steps.length === 0) return { ...none, plan: [], probes: probed.probes };
    const started = performance.now();
    const limitations = detectLimitations(probed.steps, limits, options.rate?.());
    const e = classification.entities;
    const handling =
      limitations.length === 0
        ? undefined
        : chooseHandling(limitations, { quickLook: oneValue(e.quick) !== undefined, wantsAll: oneValue(e.all) !== undefined, summaryOnly: false }, maxWaitMs);
    const detectSeconds = (performance.now() - started) / 1000;
    const total = probed.steps[0]?.kind === 'object' ? 1 : (probed.steps[0]?.total ?? 0);
    return { limitations, handling, plan: adjust(first, handling, total), probes: probed.probes, detectSeconds };
  };
}
