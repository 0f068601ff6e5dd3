/**
 * Filtering, paging and projection over one model, with django-filter's semantics as NetBox uses them: a repeated
 * parameter ORs its values (tags excepted: NetBox's TagFilter is conjoined), different parameters AND, unknown
 * parameters are ignored. Every indexable filter is answered from a posting list (key → positions, built on first
 * use), so a hundred `device_id`s cost a hundred lookups and a merge rather than a scan.
 */

export type Key = number | string | boolean | null;
export type Item = Readonly<Record<string, unknown>>;

/** A filter's errors, as NetBox answers them: `{"site": ["Select a valid choice. x is not one of the available choices."]}`. */
export type FilterErrors = Record<string, string[]>;

const invalidChoice = (value: string): string => `Select a valid choice. ${value} is not one of the available choices.`;
const invalidPk = (value: string): string => `“${value}” is not a valid value.`;
const WHOLE = /^\s*[+-]?\d+\s*$/;

export type FilterSpec<T> =
  /** MultiValueNumberFilter: whole numbers, no existence check. */
  | { kind: 'number'; key: (item: T) => Key | readonly Key[]; message?: string }
  /** ModelMultipleChoiceFilter by primary key: whole numbers that must exist (or `null`). */
  | { kind: 'model-id'; key: (item: T) => Key | readonly Key[]; exists: (id: number) => boolean }
  /** ModelMultipleChoiceFilter by slug or name: values that must exist (or `null`). */
  | { kind: 'model-slug'; key: (item: T) => Key | readonly Key[]; exists: (value: string) => boolean }
  /** MultiValueCharFilter: exact strings, no check. */
  | { kind: 'char'; key: (item: T) => Key | readonly Key[] }
  /** MultipleChoiceFilter: values from a fixed choice set. */
  | { kind: 'choice'; key: (item: T) => Key | readonly Key[]; choices: ReadonlySet<string> }
  /** BooleanFilter: the last value; anything but true/false/1/0 leaves the filter off. */
  | { kind: 'bool'; key: (item: T) => boolean }
  /** TagFilter: slugs that must exist, and an object must carry every one. */
  | { kind: 'tag'; key: (item: T) => readonly Key[]; exists: (value: string) => boolean }
  /** A method filter: a predicate from the values, 'none' for an empty result, undefined to leave it off. */
  | { kind: 'method'; make: (values: readonly string[]) => ((item: T) => boolean) | 'none' | undefined };

export interface SearchSpec<T> {
  /** Fields matched case-insensitively anywhere. */
  contains: (item: T) => readonly (string | null | undefined)[];
  /** Extra matches for a query (e.g. prefixes containing an address). */
  also?: (query: string) => ((item: T) => boolean) | undefined;
}

export interface ModelSpec<T> {
  /** e.g. `dcim/interfaces` */
  path: string;
  /** The model's class name, for `No Interface matches the given query.` */
  verbose: string;
  items: readonly T[];
  briefKeys: readonly string[];
  filters: Readonly<Record<string, FilterSpec<T>>>;
  search: SearchSpec<T>;
}

/** How a matching set is held: null means every item (no filter applied). */
export type Selection = { positions: readonly number[] | null } | { errors: FilterErrors };

export interface View {
  brief: boolean;
  /** `fields=`: only these top-level keys, in the serializer's order. */
  fields?: ReadonlySet<string>;
  /** `exclude=config_context` */
  excludeConfigContext: boolean;
}

export interface Model {
  readonly path: string;
  readonly verbose: string;
  readonly size: number;
  /** The position of the object with this id, if any. */
  position(id: number): number | undefined;
  item(position: number): Item;
  select(params: URLSearchParams): Selection;
  serialise(position: number, view: View): string;
}

function binaryHas(sorted: readonly number[], value: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid] as number;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Sorted, de-duplicated union of sorted lists. */
function union(lists: readonly (readonly number[])[]): readonly number[] {
  if (lists.length === 1) return lists[0] as readonly number[];
  const all = Int32Array.from(lists.flat()).sort();
  const out: number[] = [];
  for (let i = 0; i < all.length; i += 1) if (i === 0 || all[i] !== all[i - 1]) out.push(all[i] as number);
  return out;
}

function intersect(lists: (readonly number[])[]): readonly number[] {
  lists.sort((a, b) => a.length - b.length);
  let out = lists[0] as readonly number[];
  for (const other of lists.slice(1)) out = out.filter((p) => binaryHas(other, p));
  return out;
}

/** True, false, or undefined for a value django's NullBooleanField does not recognise. */
function parseBool(value: string): boolean | undefined {
  if (value === 'true' || value === 'True' || value === '1') return true;
  if (value === 'false' || value === 'False' || value === '0') return false;
  return undefined;
}

export function compileModel<T extends object>(spec: ModelSpec<T>): Model {
  const items = spec.items;
  const byId = new Map<number, number>();
  items.forEach((item, i) => byId.set((item as unknown as { id: number }).id, i));
  const postings = new Map<string, Map<Key, number[]>>();
  const postingsFor = (name: string, key: (item: T) => Key | readonly Key[]): Map<Key, number[]> => {
    let map = postings.get(name);
    if (map !== undefined) return map;
    map = new Map();
    for (let i = 0; i < items.length; i += 1) {
      const keys = key(items[i] as T);
      if (!Array.isArray(keys)) {
        const k = keys as Key;
        const list = map.get(k);
        if (list === undefined) map.set(k, [i]);
        else list.push(i);
        continue;
      }
      for (const k of new Set(keys as readonly Key[])) {
        const list = map.get(k);
        if (list === undefined) map.set(k, [i]);
        else list.push(i);
      }
    }
    postings.set(name, map);
    return map;
  };
  let haystacks: string[] | undefined;
  const caches = { full: new Map<number, string>(), brief: new Map<number, string>(), noContext: new Map<number, string>() };

  const select = (params: URLSearchParams): Selection => {
    const lists: (readonly number[])[] = [];
    const predicates: ((item: T) => boolean)[] = [];
    const errors: FilterErrors = {};
    let none = false;
    /** Positions of the items any key matches (NetBox ORs a repeated parameter). */
    const lookup = (name: string, key: (item: T) => Key | readonly Key[], keys: readonly Key[]): readonly number[] => {
      const map = postingsFor(name, key);
      return union(keys.map((k) => map.get(k) ?? []));
    };
    /**
     * The positions one filter's values select, or undefined when the filter stays off; an error is recorded under
     * `param` (the name as sent: `site` or `site__n`). `negated`: for a tag, any of them (an object is excluded when it
     * carries one), else all of them.
     */
    const matchOf = (name: string, param: string, filter: Exclude<FilterSpec<T>, { kind: 'method' | 'bool' }>, values: readonly string[], negated: boolean): readonly number[] | undefined => {
      switch (filter.kind) {
        case 'number': {
          const bad = values.find((v) => !WHOLE.test(v));
          if (bad !== undefined) errors[param] = [filter.message ?? 'Enter a whole number.'];
          else return lookup(name, filter.key, values.map((v) => Number(v)));
          return undefined;
        }
        case 'model-id': {
          const keys: Key[] = [];
          for (const v of values) {
            if (v === 'null') keys.push(null);
            else if (!WHOLE.test(v)) {
              errors[param] = [invalidPk(v)];
              return undefined;
            } else if (!filter.exists(Number(v))) {
              errors[param] = [invalidChoice(v)];
              return undefined;
            } else keys.push(Number(v));
          }
          return lookup(name, filter.key, keys);
        }
        case 'model-slug':
        case 'choice': {
          const exists = filter.kind === 'choice' ? (v: string) => filter.choices.has(v) : filter.exists;
          const bad = values.find((v) => !(v === 'null' && filter.kind === 'model-slug') && !exists(v));
          if (bad !== undefined) errors[param] = [invalidChoice(bad)];
          else return lookup(name, filter.key, values.map((v) => (v === 'null' && filter.kind === 'model-slug' ? null : v)));
          return undefined;
        }
        case 'char':
          return lookup(name, filter.key, values);
        case 'tag': {
          const bad = values.find((v) => !filter.exists(v));
          if (bad !== undefined) {
            errors[param] = [invalidChoice(bad)];
            return undefined;
          }
          const map = postingsFor(name, filter.key);
          const each = [...new Set(values)].map((v) => map.get(v) ?? []);
          return negated ? union(each) : intersect(each);
        }
      }
    };
    /** Positions to leave out: `<filter>__n`, the negation NetBox generates for its multi-value filters. */
    const excluded: (readonly number[])[] = [];
    for (const [name, filter] of Object.entries(spec.filters)) {
      const values = params.getAll(name).filter((v) => v !== '');
      if (filter.kind === 'bool') {
        const value = values.length === 0 ? undefined : parseBool(values[values.length - 1] as string);
        if (value !== undefined) lists.push(lookup(name, filter.key, [value]));
        continue;
      }
      if (filter.kind === 'method') {
        if (values.length === 0) continue;
        const made = filter.make(values);
        if (made === 'none') none = true;
        else if (made !== undefined) predicates.push(made);
        continue;
      }
      if (values.length > 0) {
        const matched = matchOf(name, name, filter, values, false);
        if (matched !== undefined) lists.push(matched);
      }
      const negatedValues = params.getAll(`${name}__n`).filter((v) => v !== '');
      if (negatedValues.length > 0) {
        const matched = matchOf(name, `${name}__n`, filter, negatedValues, true);
        if (matched !== undefined) excluded.push(matched);
      }
    }
    const q = (params.getAll('q').at(-1) ?? '').trim().toLowerCase();
    if (q !== '') {
      haystacks ??= items.map((item) =>
        spec.search
          .contains(item)
          .filter((s): s is string => typeof s === 'string' && s !== '')
          .join('\u0000')
          .toLowerCase(),
      );
      const hay = haystacks;
      const also = spec.search.also?.(q);
      const positions: number[] = [];
      for (let i = 0; i < items.length; i += 1) if ((hay[i] as string).includes(q) || (also !== undefined && also(items[i] as T))) positions.push(i);
      lists.push(positions);
    }
    if (Object.keys(errors).length > 0) return { errors };
    if (none) return { positions: [] };
    let positions: readonly number[] | null = lists.length === 0 ? null : intersect(lists);
    if (excluded.length > 0) {
      const out = union(excluded);
      const keep = (i: number): boolean => !binaryHas(out, i);
      if (positions === null) {
        const all: number[] = [];
        for (let i = 0; i < items.length; i += 1) if (keep(i)) all.push(i);
        positions = all;
      } else positions = positions.filter(keep);
    }
    if (predicates.length > 0) {
      const test = (i: number): boolean => predicates.every((p) => p(items[i] as T));
      if (positions === null) {
        const out: number[] = [];
        for (let i = 0; i < items.length; i += 1) if (test(i)) out.push(i);
        positions = out;
      } else positions = positions.filter(test);
    }
    return { positions };
  };

  const pick = (item: Item, keep: (key: string) => boolean): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(item)) if (keep(key)) out[key] = item[key];
    return out;
  };
  const briefKeys = new Set(spec.briefKeys);
  const cached = (cache: Map<number, string>, position: number, make: () => unknown): string => {
    let text = cache.get(position);
    if (text === undefined) {
      text = JSON.stringify(make());
      cache.set(position, text);
    }
    return text;
  };
  const serialise = (position: number, view: View): string => {
    const item = items[position] as Item;
    if (view.fields !== undefined) {
      const fields = view.fields;
      return JSON.stringify(pick(item, (k) => fields.has(k) && !(view.excludeConfigContext && k === 'config_context')));
    }
    if (view.brief) return cached(caches.brief, position, () => pick(item, (k) => briefKeys.has(k)));
    if (view.excludeConfigContext && 'config_context' in item) return cached(caches.noContext, position, () => pick(item, (k) => k !== 'config_context'));
    return cached(caches.full, position, () => item);
  };

  return {
    path: spec.path,
    verbose: spec.verbose,
    size: items.length,
    position: (id) => byId.get(id),
    item: (position) => items[position] as Item,
    select,
    serialise,
  };
}

/** The page of a selection: NetBox's paginator (limit/offset, clamped) as DRF's LimitOffsetPagination does it. */
export interface PageRequest {
  limit: number;
  offset: number;
}

/**
 * NetBox's `get_limit`: the last `limit`; unparseable or negative → the default (50); 0 → maxPageSize; above
 * maxPageSize → maxPageSize. The offset: unparseable or negative → 0.
 */
export function pageRequest(params: URLSearchParams, maxPageSize: number, defaultLimit = 50): PageRequest {
  const rawLimit = params.getAll('limit').at(-1);
  let limit = Math.min(defaultLimit, maxPageSize);
  if (rawLimit !== undefined && WHOLE.test(rawLimit)) {
    const n = Number(rawLimit);
    if (n >= 0) limit = n === 0 ? maxPageSize : Math.min(n, maxPageSize);
  }
  const rawOffset = params.getAll('offset').at(-1);
  const offset = rawOffset !== undefined && WHOLE.test(rawOffset) && Number(rawOffset) > 0 ? Number(rawOffset) : 0;
  return { limit, offset };
}

/** Python's quote_plus (urlencode's quoting): only letters, digits and `_.-~` left as they are; spaces as `+`. */
function quotePlus(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** DRF's replace_query_param / remove_query_param: the query re-encoded with its keys sorted. */
export function pageLink(base: string, params: URLSearchParams, set: Readonly<Record<string, number | undefined>>): string {
  const grouped = new Map<string, string[]>();
  for (const [key, value] of params) grouped.set(key, [...(grouped.get(key) ?? []), value]);
  for (const [key, value] of Object.entries(set)) {
    if (value === undefined) grouped.delete(key);
    else grouped.set(key, [String(value)]);
  }
  const query = [...grouped.keys()]
    .sort()
    .flatMap((key) => (grouped.get(key) ?? []).map((value) => `${quotePlus(key)}=${quotePlus(value)}`))
    .join('&');
  return query === '' ? base : `${base}?${query}`;
}
