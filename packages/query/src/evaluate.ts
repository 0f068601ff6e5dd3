import type { Query, Scalar, Where } from './query.js';
import { QUERY_LIMITS } from './query.js';

/**
 * The planner's evaluation over streamed items: a where tested per item, and the answer (count, page, groups,
 * ranking, comparison, objects) accumulated in bounded memory as items go by. Only the page asked for, the groups
 * (at most `maxGroups`) and a few objects are kept; every count is exact over every item.
 */

export type FieldValue = Scalar | readonly Scalar[] | null | undefined;
export type Accessor<T> = (item: T) => FieldValue;
export type Accessors<T> = Readonly<Record<string, Accessor<T>>>;

export const EVALUATION_LIMITS = {
  /** Distinct groups of a breakdown held; items of further groups are counted under OTHER_GROUP. */
  maxGroups: 1_000,
  /** Objects a projection returns. */
  maxObjects: 5,
  /** Items held for a sorted page (offset + limit at most). */
  maxSorted: 10_000,
} as const;

export const NO_VALUE = '(none)';
export const OTHER_GROUP = '(other)';

const valuesOf = (v: FieldValue): readonly Scalar[] => (v === undefined || v === null ? [] : Array.isArray(v) ? (v as readonly Scalar[]) : [v as Scalar]);
const same = (a: Scalar, b: Scalar): boolean => (typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b);
const timeOf = (v: Scalar): number => (typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : Number.NaN);

export function matches<T>(where: Where | undefined, item: T, acc: Accessors<T>): boolean {
  if (where === undefined) return true;
  if (where.op === 'and') return where.of.every((w) => matches(w, item, acc));
  if (where.op === 'or') return where.of.some((w) => matches(w, item, acc));
  if (where.op === 'not') return !matches(where.of, item, acc);
  const get = acc[where.field];
  if (get === undefined) throw new Error(`no accessor for field ${where.field}`);
  const values = valuesOf(get(item));
  switch (where.op) {
    case 'eq':
      return values.some((v) => same(v, where.value));
    case 'in':
      return values.some((v) => where.values.some((w) => same(v, w)));
    case 'contains':
      return values.some((v) => String(v).toLowerCase().includes(where.value.toLowerCase()));
    case 'exists':
      return values.length > 0;
    case 'after':
      return values.some((v) => timeOf(v) >= Date.parse(where.at));
    case 'before':
      return values.some((v) => timeOf(v) < Date.parse(where.at));
    case 'less':
      return values.some((v) => typeof v === 'number' && v < where.value);
    case 'more':
      return values.some((v) => typeof v === 'number' && v > where.value);
  }
}

export interface Group {
  readonly key: readonly string[];
  readonly count: number;
}

export type Outcome<T> =
  | { readonly kind: 'count'; readonly total: number }
  | { readonly kind: 'list'; readonly total: number; readonly offset: number; readonly items: readonly T[] }
  | { readonly kind: 'breakdown'; readonly total: number; readonly by: readonly string[]; readonly groups: readonly Group[]; readonly groupsCapped: boolean }
  | { readonly kind: 'top'; readonly total: number; readonly by: string; readonly groups: readonly Group[]; readonly groupCount: number; readonly order: 'most' | 'least' }
  | { readonly kind: 'compare'; readonly total: number; readonly counts: readonly [number, number] }
  | { readonly kind: 'fields'; readonly total: number; readonly items: readonly T[] };

const keyText = (v: Scalar): string => (typeof v === 'string' ? v : String(v));

/** Runs a query over items as they stream by. */
export class QueryRun<T> {
  #total = 0;
  readonly #page: T[] = [];
  readonly #groups = new Map<string, { key: string[]; count: number }>();
  #capped = false;
  readonly #compare: [number, number] = [0, 0];
  readonly #offset: number;
  readonly #limit: number;

  /** `groups`: how a field groups and sorts, where that differs from how it matches (a cluster by its name alone). */
  constructor(
    readonly query: Query,
    private readonly acc: Accessors<T>,
    private readonly groups: Partial<Accessors<T>> = {},
  ) {
    this.#offset = query.offset ?? 0;
    this.#limit = query.limit ?? QUERY_LIMITS.defaultLimit;
  }

  add(item: T): void {
    if (!matches(this.query.where, item, this.acc)) return;
    this.#total += 1;
    const what = this.query.what;
    switch (what.kind) {
      case 'count':
        return;
      case 'list':
        if (this.query.sort !== undefined) this.#sorted(item);
        else if (this.#total > this.#offset && this.#page.length < this.#limit) this.#page.push(item);
        return;
      case 'fields':
        if (this.#page.length < EVALUATION_LIMITS.maxObjects) this.#page.push(item);
        return;
      case 'compare':
        if (matches(what.groups[0], item, this.acc)) this.#compare[0] += 1;
        if (matches(what.groups[1], item, this.acc)) this.#compare[1] += 1;
        return;
      case 'breakdown':
        this.#group(item, what.by);
        return;
      case 'top':
        this.#group(item, [what.by]);
        return;
    }
  }

  #sorted(item: T): void {
    const sort = this.query.sort;
    if (sort === undefined) return;
    const keep = Math.min(EVALUATION_LIMITS.maxSorted, this.#offset + this.#limit);
    const get = this.groups[sort.field] ?? this.acc[sort.field];
    const key = (x: T): string => valuesOf(get?.(x)).map(keyText).join(',');
    const k = key(item);
    const before = (a: string, b: string): boolean => (sort.order === 'asc' ? a < b : a > b);
    let at = this.#page.length;
    while (at > 0 && before(k, key(this.#page[at - 1] as T))) at -= 1;
    if (at >= keep) return;
    this.#page.splice(at, 0, item);
    if (this.#page.length > keep) this.#page.pop();
  }

  #group(item: T, by: readonly string[]): void {
    const dims = by.map((f) => {
      const vs = valuesOf((this.groups[f] ?? this.acc[f])?.(item)).map(keyText);
      return vs.length === 0 ? [NO_VALUE] : [...new Set(vs)];
    });
    const keys: string[][] = [[]];
    for (const d of dims) {
      const next: string[][] = [];
      for (const k of keys) for (const v of d) next.push([...k, v]);
      keys.splice(0, keys.length, ...next);
    }
    for (const key of keys) {
      const id = JSON.stringify(key);
      const g = this.#groups.get(id);
      if (g !== undefined) g.count += 1;
      else if (this.#groups.size < EVALUATION_LIMITS.maxGroups) this.#groups.set(id, { key, count: 1 });
      else {
        this.#capped = true;
        const other = JSON.stringify(by.map(() => OTHER_GROUP));
        const o = this.#groups.get(other);
        if (o !== undefined) o.count += 1;
        else this.#groups.set(other, { key: by.map(() => OTHER_GROUP), count: 1 });
      }
    }
  }

  result(): Outcome<T> {
    const what = this.query.what;
    const total = this.#total;
    const groups = [...this.#groups.values()].sort((a, b) => b.count - a.count || a.key.join('\u0000').localeCompare(b.key.join('\u0000')));
    switch (what.kind) {
      case 'count':
        return { kind: 'count', total };
      case 'list':
        return { kind: 'list', total, offset: this.#offset, items: this.query.sort === undefined ? this.#page : this.#page.slice(this.#offset, this.#offset + this.#limit) };
      case 'fields':
        return { kind: 'fields', total, items: this.#page };
      case 'compare':
        return { kind: 'compare', total, counts: [this.#compare[0], this.#compare[1]] };
      case 'breakdown':
        return { kind: 'breakdown', total, by: what.by, groups, groupsCapped: this.#capped };
      case 'top': {
        const ranked = what.order === 'most' ? groups : [...groups].reverse();
        return { kind: 'top', total, by: what.by, groups: ranked.filter((g) => g.key[0] !== OTHER_GROUP).slice(0, what.n), groupCount: groups.length, order: what.order };
      }
    }
  }
}
