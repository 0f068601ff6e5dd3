import { performance } from 'node:perf_hooks';
import {
  countLines,
  helpText,
  markdownTable,
  toolErrorText,
  WORKFLOW_LIMITS,
  type AgentDomain,
  type Answer,
  type Assessment,
  type CallTool,
  type Classification,
  type Entities,
  type Limitation,
  type ToolCall,
  type ToolResult,
} from '@flotilla/agent-kit';
import {
  advance,
  chooseHandling,
  DETECTION_DEFAULTS,
  detectLimitations,
  explain,
  filterOption,
  newSession,
  OPTIONS,
  optimalBatchSize,
  type DetectedLimitation,
  type DetectionLimits,
  type Handling,
  type LimitationOption,
  type PlanStep,
  type ProgressiveSession,
  type RateState,
} from '@flotilla/limitations';
import type { NetBoxIntent } from './intents.js';

/** Presentation rules, applied by code. */
export const PRESENTATION = {
  /** Up to this many items an answer shows them all; above it, progressive disclosure in batches. */
  showWholeMax: 50,
  /** A batch never exceeds a list tool's page. */
  batchMax: 100,
} as const;

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

const LIST_TOOLS: Readonly<Record<string, string>> = {
  list_sites: 'sites',
  list_devices: 'devices',
  list_interfaces: 'interfaces',
  list_cables: 'cables',
  list_vlans: 'vlans',
  list_prefixes: 'prefixes',
  list_ip_addresses: 'ip_addresses',
  list_modules: 'modules',
};

/** Filters count_netbox_objects takes (list tools take a few more). */
const COUNT_FILTERS = ['site', 'role', 'status', 'tag', 'device', 'device_id', 'parent', 'vid', 'q'] as const;

const COLUMNS: Readonly<Record<string, readonly string[]>> = {
  sites: ['name', 'slug', 'status', 'region', 'devices', 'racks', 'vlans'],
  devices: ['name', 'role', 'type', 'rack', 'status', 'primary_ip'],
  interfaces: ['device', 'name', 'type', 'enabled', 'cabled'],
  cables: ['label', 'a', 'b', 'type', 'status'],
  vlans: ['vid', 'name', 'site', 'status', 'role'],
  prefixes: ['prefix', 'site', 'vlan', 'status', 'role'],
  ip_addresses: ['address', 'status', 'device', 'interface', 'dns_name'],
  modules: ['device', 'bay', 'type', 'status', 'serial'],
  matches: ['object', 'name', 'site', 'status'],
};

type Args = Record<string, unknown>;
const one = (value: Entities[string] | undefined): string | undefined => (typeof value === 'string' ? value : value?.[0]);
const withoutPaging = (args: Readonly<Args>): Args => {
  const { limit: _l, offset: _o, ...rest } = args;
  return rest;
};
const defined = (args: Args): Args => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));

const HELP_OPTIONS = ['list sites', 'devices in ams1', 'interfaces of every switch in ams1', 'show device ams1-sw-001', 'vlans of fra1', 'find core'];

export interface NetBoxDomainOptions {
  /** The shared upstream rate limiter's state, when the tools run in this process (for rate-limit pressure). */
  readonly rate?: () => RateState | undefined;
  readonly detection?: Partial<DetectionLimits>;
  /** Longest the rate limiter may make a question wait before the answer falls back instead. */
  readonly maxWaitMs?: number;
  readonly now?: () => number;
}

function deviceFilters(e: Entities): Args {
  return defined({ site: one(e.site), role: one(e.role), status: one(e.status), tag: one(e.tag) });
}

/** The filters of a list as words: " at ams1, role switch". */
function describe(args: Args): string {
  const parts = Object.entries(args)
    .filter(([k, v]) => !['limit', 'offset', 'result_id', 'sample', 'summary_only', 'object_type'].includes(k) && v !== undefined && v !== false)
    .map(([k, v]) => (k === 'site' ? `at ${String(v as string)}` : k === 'filter' ? `where ${String(v as string)}` : `${k.replace(/_/g, ' ')} ${String(v as string)}`));
  return parts.length === 0 ? '' : ` ${parts.join(', ')}`;
}

const n = (value: number): string => value.toLocaleString('en-US');
/** A scalar of a tool's JSON as text; anything else (absent, an object) as `fallback`. */
const str = (value: unknown, fallback = '?'): string => (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : fallback);

/** Rows of a list result and its follow-ups (the pages that fill one batch). */
function rowsOf(results: readonly ToolResult[]): Record<string, unknown>[] {
  return results.filter((r) => !r.isError).flatMap((r) => (Array.isArray(r.body.items) ? (r.body.items as Record<string, unknown>[]) : []));
}

/** "uncabled", "disabled": the list_interfaces filter the state entity names ("cabled=false" → {cabled: false}). */
function interfaceState(e: Entities): Args {
  const state = typeof e.state === 'string' ? e.state : undefined;
  const [key, value] = state?.split('=') ?? [];
  return key === 'cabled' || key === 'enabled' ? { [key]: value === 'true' } : {};
}

export function createNetBoxDomain(options: NetBoxDomainOptions = {}): AgentDomain<NetBoxIntent, ProgressiveSession> {
  const limits: DetectionLimits = { ...DETECTION_DEFAULTS, budgetTokens: WORKFLOW_LIMITS.answerMaxTokens, largeResultThreshold: PRESENTATION.showWholeMax, ...options.detection };
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const now = options.now ?? Date.now;

  function continueSession(memory: ProgressiveSession, offset: number): ToolCall {
    return { tool: memory.tool, args: { ...memory.args, offset, limit: memory.batchSize } };
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

  function adjust(call: ToolCall, handling: Handling | undefined, total: number): ToolCall[] {
    if (handling?.fetch === 'none') return [];
    const model = LIST_TOOLS[call.tool] ?? 'default';
    const limit = handling?.present === 'progressive' ? Math.min(PRESENTATION.batchMax, optimalBatchSize(model, total)) : Math.min(PRESENTATION.batchMax, Math.max(1, total));
    return [{ tool: call.tool, args: { ...call.args, limit, offset: 0, ...(handling?.fetch === 'sampled' ? { sample: true } : {}) } }];
  }

  function sessionFrom(contextId: string, results: readonly ToolResult[], shown: number, batchSize: number, itemKind: string, previous?: ProgressiveSession): ProgressiveSession | undefined {
    const first = results[0];
    if (first === undefined || first.isError) return undefined;
    const total = Number(first.body.total ?? 0);
    const offset = Number(first.body.offset ?? 0);
    const stored = first.body.result_id ?? (first.call.tool === 'read_result' ? first.call.args.result_id : undefined);
    const resultId = typeof stored === 'string' ? stored : undefined;
    const args = resultId !== undefined && first.call.tool !== 'read_result' ? { result_id: resultId } : withoutPaging(first.call.args);
    const base = newSession(
      {
        contextId,
        tool: resultId !== undefined ? 'read_result' : first.call.tool,
        args: args as Record<string, never>,
        itemKind,
        batchSize: Math.max(1, Math.min(PRESENTATION.batchMax, batchSize)),
        total,
        resultId,
        source: first.call.tool === 'read_result' ? previous?.source : { tool: first.call.tool, args: withoutPaging(first.call.args) as Record<string, never> },
      },
      now(),
    );
    return advance({ ...base, offset, retrieved: offset }, shown, now());
  }

  /** A list answer: whole when it fits, else one batch, counts, and how to go on. */
  function listAnswer(input: {
    results: readonly ToolResult[];
    what: string;
    itemKind: string;
    contextId: string;
    limitations: readonly DetectedLimitation[];
    handling: Handling | undefined;
    probes: readonly ToolResult[];
    memory: ProgressiveSession | undefined;
  }): Answer<ProgressiveSession> {
    const first = input.results[0];
    if (first === undefined) return { text: 'Nothing came back.', options: [], memory: input.memory };
    if (first.isError) {
      const expired = first.body.error === 'result_expired';
      return { text: `I could not read the ${input.what}: ${toolErrorText(first.body)}`, options: expired ? ['list sites'] : HELP_OPTIONS.slice(0, 3), memory: expired ? undefined : input.memory };
    }
    const total = Number(first.body.total ?? 0);
    const offset = Number(first.body.offset ?? 0);
    const filters = describe(first.call.tool === 'read_result' ? (input.memory?.args ?? {}) : first.call.args);
    if (total === 0) return { text: `No ${input.what} match${filters}.`, options: HELP_OPTIONS.slice(0, 3), memory: undefined };
    const batch = Number(first.call.args.limit ?? PRESENTATION.showWholeMax);
    const rows = rowsOf(input.results).slice(0, batch);
    const columns = COLUMNS[input.itemKind] ?? Object.keys(rows[0] ?? {}).slice(0, 6);
    const lines: string[] = [];
    const relation = input.limitations.find((l) => l.kind === 'n_plus_one');
    const sampled = input.handling?.fetch === 'sampled';
    if (relation !== undefined && relation.kind === 'n_plus_one') {
      const budget = input.limitations.find((l) => l.kind === 'call_budget');
      const stopped = Array.isArray(first.body.notes) && (first.body.notes as unknown[]).some((note) => typeof note === 'string' && note.startsWith('Stopped early'));
      lines.push(
        stopped
          ? `Only part of the ${input.what} of ${n(relation.parents)} devices${filters} could be read: ${n(total)} so far (${explain(relation)}).`
          : !sampled
          ? `${n(total)} ${input.what} on ${n(relation.parents)} devices${filters}, all of them read: ${explain(relation)}.`
          : budget !== undefined
            ? `${n(relation.parents)} devices${filters}: ${explain(budget)}, so this is a sample.`
            : `A quick look, as asked, at the ${input.what} of ${n(relation.parents)} devices${filters}.`,
      );
    }
    for (const note of Array.isArray(first.body.notes) ? (first.body.notes as string[]) : []) {
      if (/^(Sampled|Stopped early)/.test(note)) lines.push(note);
    }
    const pressure = input.limitations.find((l) => l.kind === 'rate_limit_pressure');
    if (pressure !== undefined) lines.push(`NetBox's rate limit: ${explain(pressure)}.`);
    // Counts describe the whole set a tool read; a filtered read of a stored result would mislabel them.
    if (first.body.counts_omitted !== true && offset === 0 && first.call.tool !== 'read_result') lines.push(countLines(first.body.counts, 4).trimEnd());
    const end = offset + rows.length;
    const whole = offset === 0 && rows.length >= total;
    if (whole) {
      lines.push(`${n(total)} ${input.what}${filters}${sampled ? ' (sampled devices)' : ''}:`);
    } else {
      const batches = Math.ceil(total / Math.max(1, batch));
      lines.push(`Batch ${Math.floor(offset / Math.max(1, batch)) + 1} of ${n(batches)}: ${n(total)} ${input.what}${filters}${sampled ? ' (sampled devices)' : ''}, rows ${n(offset + 1)}-${n(end)}:`);
    }
    lines.push(markdownTable(rows, columns));
    const more = end < total;
    const session = sessionFrom(input.contextId, input.results, rows.length, batch, input.itemKind, input.memory);
    const options: string[] = [];
    if (more) {
      const stored = session?.resultId !== undefined;
      lines.push(
        `Say "next batch" for rows ${n(end + 1)}-${n(Math.min(end + batch, total))}${stored ? ' (read from the stored result, no new NetBox request)' : ''}, "summary instead", or narrow it (e.g. ${filterExample(input.itemKind)}).`,
      );
      options.push(OPTIONS.nextBatch.prompt, OPTIONS.summary.prompt, filterExample(input.itemKind));
    } else if (!whole) lines.push('That is the last batch.');
    if (sampled) {
      lines.push('For every device (exact, a few more requests), say "get all of them".');
      options.push(OPTIONS.showAll.prompt);
    }
    const data = input.limitations.length > 0 || more ? limitationData(input.limitations, input.handling, session, options) : undefined;
    return { text: lines.filter((l) => l.length > 0).join('\n'), options, memory: more || sampled ? session : undefined, ...(data === undefined ? {} : { data }) };
  }

  function filterExample(itemKind: string): string {
    switch (itemKind) {
      case 'interfaces':
        return 'only the uncabled ones';
      case 'devices':
        return 'only the offline ones';
      default:
        return 'only the active ones';
    }
  }

  function limitationData(limitations: readonly DetectedLimitation[], handling: Handling | undefined, session: ProgressiveSession | undefined, options: readonly string[]): Record<string, unknown> {
    const structured = handling?.options ?? [];
    // Every option offered in the text, structured: handling's own first, then the domain's (a concrete filter).
    const known: readonly LimitationOption[] = Object.values(OPTIONS);
    const extra = options.filter((o) => !structured.some((s) => s.prompt === o)).map((o) => known.find((k) => k.prompt === o) ?? filterOption(o));
    return {
      limitation: {
        kinds: limitations.map((l) => l.kind),
        strategies: handling?.strategies ?? [],
        options: [...structured, ...extra],
        session: session === undefined ? null : { offset: session.offset, total: session.total, batch_size: session.batchSize, item_kind: session.itemKind },
      },
    };
  }

  function deviceAnswer(results: readonly ToolResult[], memory: ProgressiveSession | undefined, contextId: string): Answer<ProgressiveSession> {
    const [device, interfaces, ips] = results;
    if (device === undefined) return { text: 'Nothing came back.', options: [], memory };
    if (device.isError) return { text: `I could not find that device: ${toolErrorText(device.body)}`, options: ['find <part of the name>'], memory };
    const d = device.body;
    const lines = [
      `${str(d.name)}: ${str(d.role)} (${str(d.type)}) at ${str(d.site)}${d.rack === undefined ? '' : `, rack ${str(d.rack)}`}; status ${str(d.status)}${d.primary_ip === undefined ? '' : `; primary IP ${str(d.primary_ip)}`}.`,
    ];
    let session: ProgressiveSession | undefined;
    if (interfaces !== undefined) {
      if (interfaces.isError) lines.push(`Interfaces: ${toolErrorText(interfaces.body)}`);
      else {
        const items = (interfaces.body.items as Record<string, unknown>[] | undefined) ?? [];
        const total = Number(interfaces.body.total ?? 0);
        const shown = items.slice(0, 20);
        const cabled = items.filter((i) => i.cabled === true).length;
        lines.push(`Interfaces: ${total}${items.length >= total ? ` (${cabled} cabled, ${items.filter((i) => i.enabled === false).length} disabled)` : ''}${shown.length < total ? `, first ${shown.length}` : ''}:`);
        lines.push(markdownTable(shown, ['name', 'type', 'enabled', 'cabled', 'ips']));
        if (shown.length < total) session = sessionFrom(contextId, [{ ...interfaces, body: { ...interfaces.body, items: shown } }], shown.length, 20, 'interfaces');
      }
    }
    if (ips !== undefined) {
      if (ips.isError) lines.push(`IP addresses: ${toolErrorText(ips.body)}`);
      else {
        const items = (ips.body.items as Record<string, unknown>[] | undefined) ?? [];
        lines.push(items.length === 0 ? 'IP addresses: none.' : `IP addresses (${String(ips.body.total)}):\n${markdownTable(items.slice(0, 20), ['address', 'interface', 'status', 'dns_name'])}`);
      }
    }
    if (session !== undefined) lines.push('Say "next page" for more interfaces.');
    return { text: lines.join('\n'), options: session === undefined ? [] : ['next page'], memory: session ?? memory };
  }

  function fallbackAnswer(
    limitations: readonly Limitation[],
    handling: Handling | undefined,
    memory: ProgressiveSession | undefined,
    c: Classification<NetBoxIntent> | undefined,
    probes: readonly ToolResult[],
    contextId: string,
  ): Answer<ProgressiveSession> {
    const detected = limitations.filter((l): l is DetectedLimitation => l.kind !== 'low_confidence' && l.kind !== 'unsupported');
    if (detected.length > 0) {
      const options = handling?.options ?? [];
      // The question is remembered (nothing was read), so "just a quick look", "summary instead" or "try again" continue it.
      const call = c === undefined ? undefined : planFor(c, memory)[0];
      const itemKind = call === undefined ? undefined : LIST_TOOLS[call.tool];
      const total = Math.max(0, ...probes.filter((p) => !p.isError).map((p) => Number(p.body.count ?? 0)));
      const asked =
        call === undefined || itemKind === undefined
          ? memory
          : newSession(
              { contextId, tool: call.tool, args: withoutPaging(call.args) as Record<string, never>, itemKind, batchSize: optimalBatchSize(itemKind, total), total, source: { tool: call.tool, args: withoutPaging(call.args) as Record<string, never> } },
              now(),
            );
      return {
        text: `I can't read that now without overrunning a limit: ${detected.map(explain).join('; ')}. Options: ${options.map((o) => `"${o.prompt}"`).join(', ')}, or narrow the question (a role, a status, one rack).`,
        options: options.map((o) => o.prompt),
        memory: asked,
        data: { limitation: { kinds: detected.map((l) => l.kind), strategies: handling?.strategies ?? ['fallback'], options, session: null } },
      };
    }
    const guess = c !== undefined && c.confidence > 0 ? ` (my best guess was "${c.intent.replace(/_/g, ' ')}", but I am not sure enough to act on it)` : '';
    return {
      text: `I can't answer that${guess}. I can list sites, devices (by site, role, status, tag), one device with its interfaces and IPs, interfaces of every device at a site, cables, VLANs, prefixes and their free or used IPs, and search; long answers come in batches.`,
      options: HELP_OPTIONS,
      memory,
      data: { limitation: { kinds: [limitations[0]?.kind ?? 'unsupported'], strategies: ['fallback'], options: HELP_OPTIONS.map((prompt) => ({ id: 'narrow_scope', label: prompt, prompt })), session: null } },
    };
  }

  function planFor(c: Classification<NetBoxIntent>, memory: ProgressiveSession | undefined): readonly ToolCall[] {
    const e = c.entities;
    const page = (tool: string, args: Args): ToolCall => ({ tool, args: { ...args, limit: PRESENTATION.showWholeMax, offset: 0 } });
    switch (c.intent) {
      case 'list_sites':
        return [page('list_sites', defined({ status: one(e.status), region: one(e.region) }))];
      case 'list_devices':
        return [page('list_devices', deviceFilters(e))];
      case 'device_details':
        return [{ tool: 'get_netbox_object', args: { object_type: 'devices', name: one(e.device) } }];
      case 'site_interfaces':
        return [page('list_interfaces', defined({ site: one(e.site), role: one(e.role), ...interfaceState(e) }))];
      case 'device_interfaces':
        return [page('list_interfaces', { device: one(e.device), ...interfaceState(e) })];
      case 'list_cables':
        return [page('list_cables', defined({ site: e.device === undefined ? one(e.site) : undefined, device: one(e.device), status: one(e.status) }))];
      case 'list_vlans':
        return [page('list_vlans', defined({ site: one(e.site), vid: e.vid === undefined ? undefined : Number(one(e.vid)), status: one(e.status) }))];
      case 'list_prefixes':
        return [page('list_prefixes', defined({ site: one(e.site), status: one(e.status) }))];
      case 'prefix_free':
        return [{ tool: 'get_prefix_usage', args: { prefix: one(e.prefix), free_shown: 20 } }];
      case 'prefix_used':
        return [page('list_ip_addresses', { parent: one(e.prefix) })];
      case 'search':
        return [{ tool: 'search_netbox', args: { query: one(e.query) } }];
      case 'next_page': {
        if (memory === undefined) return [];
        const wanted = one(e.page);
        const offset =
          wanted === 'previous'
            ? Math.max(0, memory.offset - 2 * memory.batchSize)
            : wanted !== undefined && /^\d+$/.test(wanted)
              ? (Number(wanted) - 1) * memory.batchSize
              : memory.offset;
        return offset >= memory.total ? [] : [continueSession(memory, offset)];
      }
      case 'refine': {
        if (memory === undefined) return [];
        if (one(e.all) !== undefined && memory.source?.args.sample === true) return [{ tool: memory.source.tool, args: { ...memory.source.args, sample: false, limit: memory.batchSize, offset: 0 } }];
        // A remembered question, widened, sampled or simply asked again.
        const source = memory.source;
        if (source !== undefined && one(e.quick) !== undefined) return [{ tool: source.tool, args: { ...source.args, sample: true, limit: memory.batchSize, offset: 0 } }];
        if (source !== undefined && one(e.again) !== undefined) return [{ tool: source.tool, args: { ...source.args, limit: memory.batchSize, offset: 0 } }];
        const state = one(e.state);
        if (memory.resultId !== undefined) {
          const filter = state ?? (one(e.status) !== undefined ? `status=${one(e.status)}` : one(e.role) !== undefined ? `role=${one(e.role)}` : undefined);
          if (filter === undefined) return [];
          return [{ tool: 'read_result', args: { result_id: memory.resultId, filter, offset: 0, limit: memory.batchSize } }];
        }
        const extra = memory.tool === 'list_devices' ? deviceFilters(e) : defined({ status: one(e.status), site: one(e.site) });
        return Object.keys(extra).length === 0 ? [] : [{ tool: memory.tool, args: { ...memory.args, ...extra, offset: 0, limit: PRESENTATION.showWholeMax } }];
      }
      case 'summary': {
        if (memory === undefined) return [];
        if (memory.resultId !== undefined) return [{ tool: 'read_result', args: { result_id: memory.resultId, summary_only: true } }];
        const filters = Object.fromEntries(COUNT_FILTERS.filter((k) => memory.args[k] !== undefined).map((k) => [k, memory.args[k]]));
        return [{ tool: 'count_netbox_objects', args: { object_type: memory.itemKind, ...filters } }];
      }
      case 'help':
      case 'unknown':
        return [];
    }
  }

  return {
    // Named in the answer when asked for and not applied by the tool calls made.
    filterEntities: ['site', 'role', 'status', 'tag', 'state', 'prefix', 'vid', 'device', 'group_by', 'region'],
    plan: planFor,

    async assess({ classification, plan, callTool }): Promise<Assessment> {
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
          : chooseHandling(limitations, { quickLook: one(e.quick) !== undefined, wantsAll: one(e.all) !== undefined, summaryOnly: false }, maxWaitMs);
      const detectSeconds = (performance.now() - started) / 1000;
      const total = probed.steps[0]?.kind === 'object' ? 1 : (probed.steps[0]?.total ?? 0);
      return { limitations, handling, plan: adjust(first, handling, total), probes: probed.probes, detectSeconds };
    },

    followUp(c, results) {
      const first = results[0];
      const last = results[results.length - 1];
      if (first === undefined || last === undefined || first.isError || last.isError) return [];
      if (c.intent === 'device_details' && results.length === 1 && typeof first.body.id === 'number') {
        return [
          { tool: 'list_interfaces', args: { device_id: first.body.id, limit: 100, offset: 0 } },
          { tool: 'list_ip_addresses', args: { device_id: first.body.id, limit: 20, offset: 0 } },
        ];
      }
      if (!['read_result', ...Object.keys(LIST_TOOLS)].includes(first.call.tool) || first.call.args.summary_only === true) return [];
      // The token budget may cut a page short: fill the batch this answer shows, from the stored result when there is one.
      const batch = Number(first.call.args.limit ?? 0);
      const start = Number(first.body.offset ?? 0);
      const total = Number(first.body.total ?? 0);
      const next = last.body.next_offset;
      if (typeof next !== 'number') return [];
      const end = Math.min(total, start + batch);
      if (next >= end) return [];
      const resultId = typeof first.body.result_id === 'string' ? first.body.result_id : undefined;
      if (resultId !== undefined && first.call.tool !== 'read_result') return [{ tool: 'read_result', args: { result_id: resultId, offset: next, limit: end - next } }];
      return [{ tool: first.call.tool, args: { ...first.call.args, offset: next, limit: end - next } }];
    },

    respond({ classification: c, results, limitations, handling, probes, memory, contextId, capabilities }): Answer<ProgressiveSession> {
      const probeError = probes.find((p) => p.isError);
      if (probeError !== undefined) return { text: `I could not ask NetBox that: ${toolErrorText(probeError.body)}`, options: HELP_OPTIONS.slice(0, 3), memory };
      if (c === undefined || c.intent === 'unknown' || handling?.fetch === 'none' || limitations.some((l) => l.kind === 'low_confidence' || l.kind === 'unsupported')) {
        return fallbackAnswer(limitations, handling, memory, c, probes, contextId);
      }
      const detected = limitations.filter((l): l is DetectedLimitation => l.kind !== 'low_confidence' && l.kind !== 'unsupported');
      const list = (what: string, itemKind: string): Answer<ProgressiveSession> => listAnswer({ results, what, itemKind, contextId, limitations: detected, handling, probes, memory });
      switch (c.intent) {
        case 'help':
          return { text: helpText('NetBox', capabilities), options: HELP_OPTIONS, memory };
        case 'list_sites':
          return list('sites', 'sites');
        case 'list_devices':
          return list('devices', 'devices');
        case 'site_interfaces':
        case 'device_interfaces':
          return list('interfaces', 'interfaces');
        case 'list_cables':
          return list('cables', 'cables');
        case 'list_vlans':
          return list('VLANs', 'vlans');
        case 'list_prefixes':
          return list('prefixes', 'prefixes');
        case 'prefix_used':
          return list('used addresses', 'ip_addresses');
        case 'device_details':
          return deviceAnswer(results, memory, contextId);
        case 'prefix_free': {
          const r = results[0];
          if (r === undefined || r.isError) return { text: `I could not read that prefix: ${r === undefined ? 'nothing came back' : toolErrorText(r.body)}`, options: ['list prefixes'], memory };
          const b = r.body;
          const free = Array.isArray(b.first_free) ? (b.first_free as string[]) : [];
          return {
            text:
              `${str(b.prefix)}${b.site === undefined ? '' : ` at ${str(b.site)}`}: ${str(b.used)} used of ${str(b.usable)} usable (${str(b.utilisation_percent)}%), ${str(b.free)} free.` +
              (free.length === 0 ? '' : `\nFirst free: ${free.join(', ')}`),
            options: [`used ips in ${String(b.prefix)}`],
            memory,
          };
        }
        case 'search': {
          const r = results[0];
          if (r === undefined || r.isError) return { text: `The search failed: ${r === undefined ? 'nothing came back' : toolErrorText(r.body)}`, options: HELP_OPTIONS.slice(0, 2), memory };
          const matches = (r.body.matches as Record<string, unknown>[] | undefined) ?? [];
          const totals = Object.entries((r.body.totals_by_type as Record<string, number> | undefined) ?? {}).filter(([, count]) => count > 0);
          if (matches.length === 0) return { text: `Nothing in NetBox matches "${String(r.body.query)}".`, options: HELP_OPTIONS.slice(0, 2), memory };
          const rows = matches.map((m) => ({ ...m, name: m.name ?? m.address ?? m.prefix ?? m.label ?? m.vid }));
          return {
            text: `${String(r.body.total)} matches for "${String(r.body.query)}" (${totals.map(([t, count]) => `${t.replace('_', ' ')} ${count}`).join(', ')}); the first of each type:\n${markdownTable(rows, COLUMNS.matches ?? [])}`,
            options: [],
            memory,
          };
        }
        case 'next_page': {
          if (memory === undefined) return { text: 'There is nothing to continue yet: ask for a list first (e.g. "devices in ams1").', options: HELP_OPTIONS.slice(0, 2), memory };
          if (results.length === 0) return { text: `That was the last batch (${n(memory.total)} ${memory.itemKind.replace('_', ' ')}).`, options: [], memory };
          return list(memory.itemKind.replace('_', ' '), memory.itemKind);
        }
        case 'refine': {
          if (memory === undefined || results.length === 0) {
            return { text: 'Narrow what? Ask for a list first, then e.g. "only the uncabled ones" or "only role switch".', options: HELP_OPTIONS.slice(0, 2), memory };
          }
          return list(memory.itemKind.replace('_', ' '), memory.itemKind);
        }
        case 'summary': {
          const r = results[0];
          if (memory === undefined || r === undefined) return { text: 'A summary of what? Ask for a list first.', options: HELP_OPTIONS.slice(0, 2), memory };
          if (r.isError) return { text: `I could not summarise it: ${toolErrorText(r.body)}`, options: [], memory };
          const all = Number(r.body.total ?? r.body.count ?? memory.total);
          const what = memory.itemKind.replace('_', ' ');
          const scope = describe(memory.source?.args ?? memory.args);
          const head =
            memory.args.filter === undefined
              ? `${n(all)} ${what}${scope}.`
              : `${n(memory.total)} ${what} where ${str(memory.args.filter)}, of ${n(all)}${scope}; counts over all ${n(all)}:`;
          return {
            text: `${head}\n${countLines(r.body.counts, 4)}You have seen ${n(memory.retrieved)} of them; say "next batch" to go on.`,
            options: ['next batch'],
            memory,
          };
        }
      }
    },
  };
}
