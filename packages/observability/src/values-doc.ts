/**
 * The values table of helm/README.md, generated from the chart's values.yaml: every key with a helm-docs style
 * comment (`# -- description`, continued by the `#` lines under it) becomes a row with its path, type, default and
 * description. Plain `#` comments (section headers) document nothing on their own.
 */
import { parse } from 'yaml';

/** One documented value of values.yaml. */
export interface ValueDoc {
  /** Dotted path, e.g. agents.argocd.port. */
  readonly key: string;
  readonly type: string;
  /** The default as compact JSON. */
  readonly defaultValue: string;
  readonly description: string;
}

/** The markers in helm/README.md between which the table is written. */
export const VALUES_TABLE_START = '<!-- values-table:start (generated from helm/flotilla/values.yaml: run the observability generator) -->';
export const VALUES_TABLE_END = '<!-- values-table:end -->';

const KEY_LINE = /^( *)([A-Za-z0-9_./-]+|"[^"]+"|'[^']+'):(?:\s|$)/;
const DOC_START = /^ *# -- ?(.*)$/;
const DOC_MORE = /^ *#(?: (.*))?$/;

function typeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return typeof value === 'object' ? 'object' : typeof value;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let at: unknown = root;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

/** The documented values of a values.yaml text, in file order. */
export function valuesDocs(valuesYaml: string): ValueDoc[] {
  const root: unknown = parse(valuesYaml);
  const docs: ValueDoc[] = [];
  // Keys of the enclosing mappings with their indentation; a key line pops every deeper or equal one.
  const stack: { indent: number; key: string }[] = [];
  let pending: string[] | null = null;
  for (const line of valuesYaml.split('\n')) {
    const start = DOC_START.exec(line);
    if (start) {
      pending = [start[1] ?? ''];
      continue;
    }
    const more = DOC_MORE.exec(line);
    if (more) {
      if (pending) pending.push(more[1] ?? '');
      continue;
    }
    const key = KEY_LINE.exec(line);
    if (!key) {
      // A blank line ends a description; list items and scalars in flow belong to the key above.
      if (line.trim() === '') pending = null;
      continue;
    }
    const indent = key[1]?.length ?? 0;
    while (stack.length > 0 && (stack[stack.length - 1]?.indent ?? 0) >= indent) stack.pop();
    const name = (key[2] ?? '').replace(/^["']|["']$/g, '');
    stack.push({ indent, key: name });
    if (pending) {
      const path = stack.map((s) => s.key);
      const value = valueAt(root, path);
      docs.push({ key: path.join('.'), type: typeOf(value), defaultValue: JSON.stringify(value ?? null), description: pending.join(' ').trim() });
      pending = null;
    }
  }
  return docs;
}

/** A table cell: pipes escaped; in prose also < and > (else `<release>` would render as an HTML tag and vanish). */
function cell(text: string, prose = false): string {
  const escaped = text.replace(/\|/g, '\\|');
  return prose ? escaped.replace(/</g, '&lt;').replace(/>/g, '&gt;') : escaped;
}

/** The markdown table of the documented values. */
export function renderValuesTable(docs: readonly ValueDoc[]): string {
  const rows = docs.map((d) => `| \`${cell(d.key)}\` | ${d.type} | \`${cell(d.defaultValue)}\` | ${cell(d.description, true)} |`);
  return ['| Key | Type | Default | Description |', '|---|---|---|---|', ...rows].join('\n');
}

/** `readme` with the text between the table markers replaced by `table`; throws when the markers are missing. */
export function withValuesTable(readme: string, table: string): string {
  const start = readme.indexOf(VALUES_TABLE_START);
  const end = readme.indexOf(VALUES_TABLE_END);
  if (start < 0 || end < start) throw new Error(`the README has no values table markers: add a line ${VALUES_TABLE_START} and, below it, a line ${VALUES_TABLE_END}`);
  return `${readme.slice(0, start + VALUES_TABLE_START.length)}\n\n${table}\n\n${readme.slice(end)}`;
}
