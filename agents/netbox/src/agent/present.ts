// Presentation rules, applied by code: a list whole when it is short, else in batches with its counts, what
// detection found and how to go on; one device with its interfaces and addresses; the fallback that offers the
// handling's options; and the progressive session the next turn continues.
import {
  cannotAnswerText,
  countLines,
  helpAnswer,
  markdownTable,
  nextPageAnswer,
  toolErrorText,
  withoutPaging,
  type AgentDomain,
  type Answer,
  type Classification,
  type Limitation,
  type ToolCall,
  type ToolResult,
} from '@flotilla/agent-kit';
import { respondNetBoxTyped } from './typed.js';
import {
  advance,
  explain,
  filterOption,
  newSession,
  OPTIONS,
  optimalBatchSize,
  type DetectedLimitation,
  type Handling,
  type LimitationOption,
  type ProgressiveSession,
} from '@flotilla/limitations';
import type { NetBoxIntent } from './intents.js';
import { LIST_TOOLS, type Args } from './lists.js';

/** Presentation rules, applied by code. */
export const PRESENTATION = {
  /** Up to this many items an answer shows them all; above it, progressive disclosure in batches. */
  showWholeMax: 50,
  /** A batch never exceeds a list tool's page. */
  batchMax: 100,
} as const;

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

const HELP_OPTIONS = ['list sites', 'devices in ams1', 'interfaces of every switch in ams1', 'show device ams1-sw-001', 'vlans of fra1', 'find core'];

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

export interface PresentOptions {
  /** The clock of progressive sessions. */
  readonly now: () => number;
  /** The domain's plan: a fallback remembers the question it did not run, so "just a quick look" continues it. */
  readonly plan: (c: Classification<NetBoxIntent>, memory: ProgressiveSession | undefined) => readonly ToolCall[];
}

/** The domain's `respond`: the answer to a question from what its tool calls returned. */
export function createRespond({ now, plan: planFor }: PresentOptions): AgentDomain<NetBoxIntent, ProgressiveSession>['respond'] {
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
    // An empty list is still a list: "what about lon1?" edits its query.
    if (total === 0) return { text: `No ${input.what} match${filters}.`, options: HELP_OPTIONS.slice(0, 3), memory: sessionFrom(input.contextId, input.results, 0, PRESENTATION.showWholeMax, input.itemKind, input.memory) };
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
    return { text: lines.filter((l) => l.length > 0).join('\n'), options, memory: session, ...(data === undefined ? {} : { data }) };
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
    return {
      text: cannotAnswerText(c, 'I can list sites, devices (by site, role, status, tag), one device with its interfaces and IPs, interfaces of every device at a site, cables, VLANs, prefixes and their free or used IPs, and search; long answers come in batches.'),
      options: HELP_OPTIONS,
      memory,
      data: { limitation: { kinds: [limitations[0]?.kind ?? 'unsupported'], strategies: ['fallback'], options: HELP_OPTIONS.map((prompt) => ({ id: 'narrow_scope', label: prompt, prompt })), session: null } },
    };
  }

  return ({ classification: c, results, limitations, handling, probes, memory, contextId, capabilities }): Answer<ProgressiveSession> => {
    const probeError = probes.find((p) => p.isError);
    if (probeError !== undefined) return { text: `I could not ask NetBox that: ${toolErrorText(probeError.body)}`, options: HELP_OPTIONS.slice(0, 3), memory };
    if (c === undefined || c.intent === 'unknown' || handling?.fetch === 'none' || limitations.some((l) => l.kind === 'low_confidence' || l.kind === 'unsupported')) {
      return fallbackAnswer(limitations, handling, memory, c, probes, contextId);
    }
    const detected = limitations.filter((l): l is DetectedLimitation => l.kind !== 'low_confidence' && l.kind !== 'unsupported');
    const list = (what: string, itemKind: string): Answer<ProgressiveSession> => listAnswer({ results, what, itemKind, contextId, limitations: detected, handling, probes, memory });
    switch (c.intent) {
      case 'query':
      case 'query_followup':
        return respondNetBoxTyped(c, results, memory, contextId, now);
      case 'help':
        return helpAnswer('NetBox', capabilities, HELP_OPTIONS, memory);
      case 'list_sites':
        return list('sites', 'sites');
      case 'list_devices':
        return list('devices', 'devices');
      case 'site_interfaces':
        return list('interfaces', 'interfaces');
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
      case 'next_page':
        return nextPageAnswer(memory, results, {
          nothingYet: 'There is nothing to continue yet: ask for a list first (e.g. "devices in ams1").',
          examples: HELP_OPTIONS,
          ended: (m) => `That was the last batch (${n(m.total)} ${m.itemKind.replace('_', ' ')}).`,
          next: (m) => list(m.itemKind.replace('_', ' '), m.itemKind),
        });
      case 'refine': {
        if (memory === undefined || results.length === 0) {
          const text = 'Narrow what? Ask for a list first, then e.g. "only the uncabled ones" or "only role switch".';
          // No list remembered: no answer (in hybrid mode the model, which may have listed, answers instead).
          return { text, options: HELP_OPTIONS.slice(0, 2), memory, ...(memory === undefined ? { unanswered: 'nothing_to_continue' as const } : {}) };
        }
        return list(memory.itemKind.replace('_', ' '), memory.itemKind);
      }
      case 'summary': {
        const r = results[0];
        if (memory === undefined || r === undefined) {
          return { text: 'A summary of what? Ask for a list first.', options: HELP_OPTIONS.slice(0, 2), memory, ...(memory === undefined ? { unanswered: 'nothing_to_continue' as const } : {}) };
        }
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
  };
}
