import { z } from 'zod';
import type { CapabilityIndex } from '@flotilla/agent-kit';
import type { ToolDefinition } from '@flotilla/context';
import { LLM_LIMITS } from './settings.js';

/** The two meta-tools of progressive discovery. */
export const FIND_TOOLS = 'find_tools';
export const LOAD_TOOLS = 'load_tools';

const FindToolsArgs = z.strictObject({ query: z.string().min(1).max(200) });
const LoadToolsArgs = z.strictObject({ names: z.array(z.string().min(1).max(100)).min(1).max(LLM_LIMITS.loadPerCall) });

export const META_TOOLS: readonly ToolDefinition[] = [
  {
    name: FIND_TOOLS,
    description: 'Search the tool index by what you need (e.g. "out of sync applications", "interfaces of a device"). Returns up to 8 tools, a line each.',
    inputSchema: z.toJSONSchema(FindToolsArgs) as ToolDefinition['inputSchema'],
  },
  {
    name: LOAD_TOOLS,
    description: `Load the full definitions of up to ${LLM_LIMITS.loadPerCall} tools from the index by name; you can call them from your next step.`,
    inputSchema: z.toJSONSchema(LoadToolsArgs) as ToolDefinition['inputSchema'],
  },
];

/** A tool loaded into a conversation, and when (it expires LLM_LIMITS.loadedToolTtlMs later). */
export interface LoadedTool {
  readonly name: string;
  readonly at: number;
}

/** The loaded tools still fresh at `now`. */
export function freshLoaded(loaded: readonly LoadedTool[], now: number, ttlMs: number = LLM_LIMITS.loadedToolTtlMs): LoadedTool[] {
  return loaded.filter((tool) => now - tool.at < ttlMs);
}

/** What a meta-tool call did: its result text for the model, the loaded set after it, and whether discovery failed. */
export interface MetaOutcome {
  readonly text: string;
  readonly isError: boolean;
  readonly loaded: readonly LoadedTool[];
}

function problem(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ');
}

/** Runs find_tools or load_tools against the index; invalid arguments are an error result the model can fix. */
export function runMetaTool(index: CapabilityIndex, name: string, args: unknown, loaded: readonly LoadedTool[], now: number): MetaOutcome {
  if (name === FIND_TOOLS) {
    const parsed = FindToolsArgs.safeParse(args);
    if (!parsed.success) return { text: `Invalid find_tools arguments (${problem(parsed.error)}). Pass {"query": "what you need"}.`, isError: true, loaded };
    const matches = index.search(parsed.data.query);
    const text = JSON.stringify({
      matches: matches.map((m) => ({ name: m.name, description: m.summary })),
      ...(matches.length === 0 ? { note: 'No tool matched; try other words, or pick from the index in the system prompt.' } : {}),
    });
    return { text, isError: false, loaded };
  }
  const parsed = LoadToolsArgs.safeParse(args);
  if (!parsed.success) return { text: `Invalid load_tools arguments (${problem(parsed.error)}). Pass {"names": ["tool_name"]}.`, isError: true, loaded };
  const known = parsed.data.names.filter((n) => index.has(n));
  const unknown = parsed.data.names.filter((n) => !index.has(n));
  const next = [...loaded.filter((t) => !known.includes(t.name)), ...known.map((n) => ({ name: n, at: now }))];
  const text = JSON.stringify({
    loaded: known,
    ...(unknown.length === 0 ? {} : { unknown, note: 'These are not in the index; use find_tools.' }),
  });
  return { text, isError: known.length === 0, loaded: next };
}
