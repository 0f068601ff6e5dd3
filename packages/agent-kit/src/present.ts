import type { CapabilityIndex } from './capabilities.js';
import type { Answer, ToolResult } from './domain.js';
import type { Classification } from './rules.js';
/** Presentation helpers every domain's answers share. */

const cellText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** A Markdown table of `rows` over `columns`; `format` may rewrite a column's cell (e.g. shorten a URL). */
export function markdownTable(rows: readonly Readonly<Record<string, unknown>>[], columns: readonly string[], format?: (value: unknown, column: string) => string): string {
  const cell = (v: unknown, column: string): string => (format === undefined ? cellText(v) : format(v, column)).replace(/\|/g, '/');
  return [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${columns.map((c) => cell(r[c], c)).join(' | ')} |`)].join('\n');
}

/** Counts (`{by_type: {a: 3, b: 1}}`) as lines: "by type: a 3, b 1", at most `dimensions` of them. */
export function countLines(counts: unknown, dimensions = 3): string {
  if (counts === null || typeof counts !== 'object') return '';
  const lines = Object.entries(counts as Record<string, Record<string, number>>)
    .slice(0, dimensions)
    .map(([dimension, values]) => `${dimension.replace(/^by_/, 'by ').replace(/_/g, ' ')}: ${Object.entries(values).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** The message and remedy of an isError tool result, as one sentence. */
export function toolErrorText(body: Readonly<Record<string, unknown>>): string {
  return `${typeof body.message === 'string' ? body.message : 'the tool failed'}${typeof body.remedy === 'string' ? ` ${body.remedy}` : ''}`;
}

/** The "what can you do" answer: the capability index (a line per tool) when the agent has one. */
export function helpText(system: string, capabilities: CapabilityIndex | undefined): string {
  if (capabilities === undefined || capabilities.size === 0) return `Ask me about ${system}, for example:`;
  return `I answer questions about ${system} (read-only) with these tools:\n${capabilities.lines()}\n\nAsk in plain words, for example:`;
}

/** The "what can you do" answer: `helpText` and the domain's example questions as options. */
export function helpAnswer<M>(system: string, capabilities: CapabilityIndex | undefined, examples: readonly string[], memory: M | undefined): Answer<M> {
  return { text: helpText(system, capabilities), options: examples, memory };
}

/**
 * "I can't answer that", with the rules' best guess when they had one (named, and said not to be acted on), then
 * what the domain can do (`can`: "I can list …").
 */
export function cannotAnswerText(c: Classification<string> | undefined, can: string): string {
  const guess = c !== undefined && c.confidence > 0 ? ` (my best guess was "${c.intent.replace(/_/g, ' ')}", but I am not sure enough to act on it)` : '';
  return `I can't answer that${guess}. ${can}`;
}

/** The domain's words of a "next page" answer. */
export interface NextPageAnswerOptions<M> {
  /** Nothing remembered: what to say ("There is no list to continue yet: …"), with the first two `examples` as options. */
  readonly nothingYet: string;
  readonly examples: readonly string[];
  /** The list is over (no call was planned): what to say of it. */
  ended(memory: M): string;
  /** The next page itself, from the results of the calls planned. */
  next(memory: M): Answer<M>;
}

/** The answer to "next page": nothing to continue yet, the end of the list, or the next page. */
export function nextPageAnswer<M>(memory: M | undefined, results: readonly ToolResult[], words: NextPageAnswerOptions<M>): Answer<M> {
  if (memory === undefined) return { text: words.nothingYet, options: words.examples.slice(0, 2), memory, unanswered: 'nothing_to_continue' };
  if (results.length === 0) return { text: words.ended(memory), options: [], memory };
  return words.next(memory);
}
