/** Bounds of one resource's diff summary (get_managed_resources). */
export const DIFF_LIMITS = {
  /** Changed paths listed per resource; the rest are counted in `more`. */
  pathsShown: 5,
  /** Characters of one desired or live value shown (its JSON, cut with "…"). */
  valueChars: 80,
} as const;

/**
 * Fields never reported as differences: set by the API server or by `kubectl apply`, or the live object's status,
 * never something a manifest in git decides.
 */
const IGNORED: readonly (readonly string[])[] = [
  ['status'],
  ['metadata', 'managedFields'],
  ['metadata', 'resourceVersion'],
  ['metadata', 'uid'],
  ['metadata', 'generation'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'annotations', 'kubectl.kubernetes.io/last-applied-configuration'],
];

export interface ChangedPath {
  readonly path: string;
  /** The desired value's JSON, cut to DIFF_LIMITS.valueChars; "(absent)" when git does not set it. */
  readonly desired: string;
  readonly live: string;
}

export interface DiffSummary {
  /** Every changed path found (shown or not). */
  readonly changed: number;
  readonly paths: ChangedPath[];
  /** Changed paths not listed. */
  readonly more: number;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: unknown): value is Record<string, Json> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A value's JSON, cut: what a person needs to see which value differs, never a whole subtree. */
export function shortValue(value: unknown, max: number = DIFF_LIMITS.valueChars): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value) ?? 'null';
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function ignored(segments: readonly string[]): boolean {
  return IGNORED.some((rule) => rule.length <= segments.length && rule.every((part, i) => segments[i] === part));
}

/** Elements of two arrays matched by their `name` (containers, ports, env), when every element has one. */
function byName(items: readonly Json[]): Map<string, Json> | undefined {
  const named = new Map<string, Json>();
  for (const item of items) {
    if (!isObject(item) || typeof item.name !== 'string' || named.has(item.name)) return undefined;
    named.set(item.name, item);
  }
  return named;
}

/**
 * The fields the desired manifest (from git) sets that the live object does not have, or has with another value:
 * every path counted, the first DIFF_LIMITS.pathsShown listed with short values. Keys only the live object has
 * (defaults the API server fills in, fields other controllers own) are not differences here; lists of named
 * objects (containers, ports, env) are matched by name, other lists by position; status and server-set metadata
 * are ignored.
 */
export function diffSummary(desired: unknown, live: unknown): DiffSummary {
  const paths: ChangedPath[] = [];
  let changed = 0;
  const record = (path: string, want: unknown, have: unknown): void => {
    changed += 1;
    if (paths.length < DIFF_LIMITS.pathsShown) paths.push({ path: path === '' ? '(whole object)' : path, desired: shortValue(want), live: shortValue(have) });
  };
  const walk = (want: Json | undefined, have: Json | undefined, path: string, segments: string[]): void => {
    if (ignored(segments)) return;
    if (isObject(want)) {
      if (!isObject(have)) {
        record(path, want, have);
        return;
      }
      for (const [key, value] of Object.entries(want)) {
        const step = PLAIN_KEY.test(key) ? (path === '' ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`;
        walk(value, have[key], step, [...segments, key]);
      }
      return;
    }
    if (Array.isArray(want)) {
      if (!Array.isArray(have)) {
        record(path, want, have);
        return;
      }
      const wantNamed = want.every(isObject) && want.length > 0 ? byName(want) : undefined;
      const haveNamed = wantNamed === undefined ? undefined : byName(have);
      if (wantNamed !== undefined && haveNamed !== undefined) {
        for (const [name, value] of wantNamed) walk(value, haveNamed.get(name), `${path}[name=${name}]`, [...segments, name]);
        return;
      }
      if (!want.some((item) => isObject(item) || Array.isArray(item))) {
        // A list of scalars (args, finalizers) is one value: it differs as a whole.
        if (JSON.stringify(want) !== JSON.stringify(have)) record(path, want, have);
        return;
      }
      want.forEach((value, i) => walk(value, have[i], `${path}[${i}]`, [...segments, String(i)]));
      return;
    }
    if (want !== have) record(path, want, have);
  };
  walk(desired as Json, live as Json, '', []);
  return { changed, paths, more: changed - paths.length };
}
