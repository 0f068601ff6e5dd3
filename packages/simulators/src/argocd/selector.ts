/**
 * Kubernetes label selectors as Argo CD's `selector` parameter takes them: comma-separated requirements, all of
 * which must hold: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k` (does not exist).
 */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

type Labels = Readonly<Record<string, string>>;
type Requirement = (labels: Labels) => boolean;

const KEY = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function key(text: string): string {
  const k = text.trim();
  if (!KEY.test(k) || k.length > 316) throw new SelectorError(`invalid label key "${k}"`);
  return k;
}

function value(text: string): string {
  const v = text.trim();
  if (!VALUE.test(v) || v.length > 63) throw new SelectorError(`invalid label value "${v}"`);
  return v;
}

/** Splits on commas outside parentheses. */
function requirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (depth < 0) throw new SelectorError('unbalanced parentheses');
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  if (depth !== 0) throw new SelectorError('unbalanced parentheses');
  parts.push(current);
  return parts.map((p) => p.trim());
}

function requirement(text: string): Requirement {
  if (text.length === 0) throw new SelectorError('empty requirement');
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(text);
  if (set !== null) {
    const k = key(set[1] ?? '');
    const values = new Set((set[3] ?? '').split(',').map(value));
    return set[2] === 'in' ? (l) => l[k] !== undefined && values.has(l[k]) : (l) => l[k] === undefined || !values.has(l[k]);
  }
  const cmp = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(text);
  if (cmp !== null) {
    const k = key(cmp[1] ?? '');
    const v = value(cmp[3] ?? '');
    return cmp[2] === '!=' ? (l) => l[k] !== v : (l) => l[k] === v;
  }
  if (text.startsWith('!')) {
    const k = key(text.slice(1));
    return (l) => l[k] === undefined;
  }
  const k = key(text);
  return (l) => l[k] !== undefined;
}

export function parseLabelSelector(selector: string): (labels: Labels | undefined) => boolean {
  if (selector.trim().length === 0) return () => true;
  const all = requirements(selector).map(requirement);
  return (labels) => all.every((r) => r(labels ?? {}));
}
