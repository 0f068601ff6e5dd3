import type { CapabilityIndex } from './capabilities.js';
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
