import type { Client } from '@modelcontextprotocol/client';
import { FlotillaError } from '@flotilla/core';

/** A tool's full definition, as `tools/list` gives it and a model binds it. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** One line of the capability index: what a tool is for, in a few tokens. */
export interface Capability {
  readonly name: string;
  /** The first sentence of the tool's description, at most SUMMARY_MAX_CHARS. */
  readonly summary: string;
}

export const CAPABILITY_LIMITS = {
  /** Characters of one index line's summary. */
  summaryMaxChars: 100,
  /** Tools an index holds; an MCP server offering more is refused (our servers offer 13 each). */
  maxTools: 200,
  /** Matches one search returns. */
  searchMax: 8,
  /** Characters of a search query. */
  queryMaxChars: 200,
} as const;

const WORD = /[a-z0-9]+/g;
const STOP_WORDS = new Set(['a', 'an', 'the', 'of', 'in', 'on', 'to', 'for', 'and', 'or', 'by', 'is', 'are', 'me', 'my', 'all', 'any', 'what', 'which', 'show', 'give', 'with', 'tool', 'tools']);

function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w));
}

/** Crude stemming, enough to match "applications" to "application" and "cabled" to "cable". */
const stem = (word: string): string => word.replace(/(ies|es|s|ed|ing)$/, '').slice(0, 12);

/** The first sentence of a description, capped. */
export function oneLine(description: string): string {
  const first = description.split(/(?<=[.!?])\s|\n/)[0]?.trim() ?? '';
  const max = CAPABILITY_LIMITS.summaryMaxChars;
  return first.length <= max ? first.replace(/\.$/, '') : `${first.slice(0, max - 1).trimEnd()}…`;
}

/**
 * The capability index of one MCP server: a name and one line per tool (a few tokens each), searchable, with the
 * full definitions kept aside until a tool is loaded. The MCP tool list itself never varies (the spec forbids it);
 * this index is the agent's own progressive view of it.
 */
export class CapabilityIndex {
  private readonly byName: ReadonlyMap<string, ToolDefinition>;
  readonly entries: readonly Capability[];

  private constructor(readonly definitions: readonly ToolDefinition[]) {
    this.byName = new Map(definitions.map((d) => [d.name, d]));
    this.entries = definitions.map((d) => ({ name: d.name, summary: oneLine(d.description) }));
  }

  static fromDefinitions(definitions: readonly ToolDefinition[]): CapabilityIndex {
    if (definitions.length > CAPABILITY_LIMITS.maxTools) {
      throw new FlotillaError('upstream_bad_response', `the MCP server offers ${definitions.length} tools, more than the ${CAPABILITY_LIMITS.maxTools} an agent indexes`, {
        remedy: 'Split the server, or raise CAPABILITY_LIMITS.maxTools.',
      });
    }
    return new CapabilityIndex(definitions);
  }

  /** The index of the tools an MCP client offers (one `tools/list`, paged by cursor, bounded). */
  static async fromClient(client: Client): Promise<CapabilityIndex> {
    const definitions: ToolDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page += 1) {
      const listed = await client.listTools(cursor === undefined ? undefined : { cursor });
      for (const tool of listed.tools) {
        definitions.push({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema });
      }
      cursor = listed.nextCursor;
      if (cursor === undefined || definitions.length > CAPABILITY_LIMITS.maxTools) break;
    }
    return CapabilityIndex.fromDefinitions(definitions);
  }

  get size(): number {
    return this.entries.length;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  definition(name: string): ToolDefinition | undefined {
    return this.byName.get(name);
  }

  /** Tools ranked by shared words with the query (name words count double); at most `limit`, only real matches. */
  search(query: string, limit: number = CAPABILITY_LIMITS.searchMax): Capability[] {
    const wanted = new Set(words(query.slice(0, CAPABILITY_LIMITS.queryMaxChars)).map(stem));
    if (wanted.size === 0) return [];
    const scored = this.entries.map((entry, order) => {
      const name = new Set(words(entry.name.replace(/_/g, ' ')).map(stem));
      const text = new Set(words(this.byName.get(entry.name)?.description ?? '').map(stem));
      let score = 0;
      for (const w of wanted) score += (name.has(w) ? 2 : 0) + (text.has(w) ? 1 : 0);
      return { entry, score, order };
    });
    return scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.order - b.order)
      .slice(0, Math.max(1, Math.min(limit, CAPABILITY_LIMITS.searchMax)))
      .map((s) => s.entry);
  }

  /** The index as text: one `- name: summary` line per tool. */
  lines(): string {
    return this.entries.map((e) => `- ${e.name}: ${e.summary}`).join('\n');
  }
}
