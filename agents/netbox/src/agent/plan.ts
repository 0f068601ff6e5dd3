// Which tool calls answer a question: the plan of each intent (a continuation or a narrowing reads the stored
// result when there is one), and the follow-ups that fill a batch the token budget cut short.
import { oneValue, pageOffset, pageShortfall, type Classification, type Entities, type ToolCall, type ToolResult } from '@flotilla/agent-kit';
import type { ProgressiveSession } from '@flotilla/limitations';
import type { NetBoxIntent } from './intents.js';
import { COUNT_FILTERS, defined, LIST_TOOLS, type Args } from './lists.js';
import { PRESENTATION } from './present.js';
import { planNetBoxTyped } from './typed.js';

function deviceFilters(e: Entities): Args {
  return defined({ site: oneValue(e.site), role: oneValue(e.role), status: oneValue(e.status), tag: oneValue(e.tag) });
}

/** "uncabled", "disabled": the list_interfaces filter the state entity names ("cabled=false" → {cabled: false}). */
function interfaceState(e: Entities): Args {
  const state = typeof e.state === 'string' ? e.state : undefined;
  const [key, value] = state?.split('=') ?? [];
  return key === 'cabled' || key === 'enabled' ? { [key]: value === 'true' } : {};
}

function continueSession(memory: ProgressiveSession, offset: number): ToolCall {
  return { tool: memory.tool, args: { ...memory.args, offset, limit: memory.batchSize } };
}

/** The tool calls of a question, given what the conversation remembers. */
export function planFor(c: Classification<NetBoxIntent>, memory: ProgressiveSession | undefined): readonly ToolCall[] {
  const e = c.entities;
  const page = (tool: string, args: Args): ToolCall => ({ tool, args: { ...args, limit: PRESENTATION.showWholeMax, offset: 0 } });
  switch (c.intent) {
    case 'list_sites':
      return [page('list_sites', defined({ status: oneValue(e.status), region: oneValue(e.region) }))];
    case 'list_devices':
      return [page('list_devices', deviceFilters(e))];
    case 'device_details':
      return [{ tool: 'get_netbox_object', args: { object_type: 'devices', name: oneValue(e.device) } }];
    case 'site_interfaces':
      return [page('list_interfaces', defined({ site: oneValue(e.site), role: oneValue(e.role), ...interfaceState(e) }))];
    case 'prefix_free':
      return [{ tool: 'get_prefix_usage', args: { prefix: oneValue(e.prefix), free_shown: 20 } }];
    case 'prefix_used':
      return [page('list_ip_addresses', { parent: oneValue(e.prefix) })];
    case 'search':
      return [{ tool: 'search_netbox', args: { query: oneValue(e.query) } }];
    case 'next_page': {
      if (memory === undefined) return [];
      // The session's offset is where the next batch starts: the batch shown begins one batch before it.
      const offset = pageOffset(oneValue(e.page), { shown: memory.offset - memory.batchSize, next: memory.offset, size: memory.batchSize });
      return offset >= memory.total ? [] : [continueSession(memory, offset)];
    }
    case 'refine': {
      // A conversation act on the remembered question (@flotilla/query `readAct`): widened, sampled or asked again; or
      // an edit of a stored list's query narrowed in the store (agent.ts). Other edits run as their own query.
      if (memory === undefined) return [];
      if (oneValue(e.all) !== undefined && memory.source?.args.sample === true) return [{ tool: memory.source.tool, args: { ...memory.source.args, sample: false, limit: memory.batchSize, offset: 0 } }];
      const source = memory.source;
      if (source !== undefined && oneValue(e.quick) !== undefined) return [{ tool: source.tool, args: { ...source.args, sample: true, limit: memory.batchSize, offset: 0 } }];
      if (source !== undefined && oneValue(e.again) !== undefined) return [{ tool: source.tool, args: { ...source.args, limit: memory.batchSize, offset: 0 } }];
      // An edit that adds one condition the stored rows hold ("cabled=false"), read from the store.
      const filter = oneValue(e.filter);
      if (filter !== undefined && memory.resultId !== undefined) return [{ tool: 'read_result', args: { result_id: memory.resultId, filter, offset: 0, limit: memory.batchSize } }];
      return [];
    }
    case 'summary': {
      if (memory === undefined) return [];
      if (memory.resultId !== undefined) return [{ tool: 'read_result', args: { result_id: memory.resultId, summary_only: true } }];
      const filters = Object.fromEntries(COUNT_FILTERS.filter((k) => memory.args[k] !== undefined).map((k) => [k, memory.args[k]]));
      return [{ tool: 'count_netbox_objects', args: { object_type: memory.itemKind, ...filters } }];
    }
    case 'query':
    case 'query_followup':
      return planNetBoxTyped(c, memory);
    case 'help':
    case 'unknown':
      return [];
  }
}

/** Calls that depend on what came back: a device's interfaces and addresses, or the rest of a batch cut short. */
export function followUp(c: Classification<NetBoxIntent>, results: readonly ToolResult[]): readonly ToolCall[] {
  const first = results[0];
  if (first === undefined || first.isError) return [];
  if (c.intent === 'device_details' && results.length === 1 && typeof first.body.id === 'number') {
    return [
      { tool: 'list_interfaces', args: { device_id: first.body.id, limit: 100, offset: 0 } },
      { tool: 'list_ip_addresses', args: { device_id: first.body.id, limit: 20, offset: 0 } },
    ];
  }
  if (!['read_result', ...Object.keys(LIST_TOOLS)].includes(first.call.tool) || first.call.args.summary_only === true) return [];
  // The token budget may cut a page short: fill the batch this answer shows, from the stored result when there is one.
  const batch = Number(first.call.args.limit ?? 0);
  const missing = pageShortfall(results, (start, total) => Math.min(total, start + batch));
  if (missing === undefined) return [];
  const { offset, limit } = missing;
  const resultId = typeof first.body.result_id === 'string' ? first.body.result_id : undefined;
  if (resultId !== undefined && first.call.tool !== 'read_result') return [{ tool: 'read_result', args: { result_id: resultId, offset, limit } }];
  return [{ tool: first.call.tool, args: { ...first.call.args, offset, limit } }];
}
