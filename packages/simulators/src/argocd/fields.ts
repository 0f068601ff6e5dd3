import type { ArgoApplication } from './types.js';

/**
 * Argo CD's `fields` parameter. The value is taken as Go's `URL.Query().Get("fields")` does (the first one),
 * a leading `-` turns the list into an exclusion, and entries are split on `,` without trimming (as
 * argoproj/pkg's marshaller and Argo CD's list forwarder do), so `a, b` does not name `b`.
 */
export interface FieldSelection {
  readonly fields: ReadonlySet<string>;
  readonly exclude: boolean;
}

export function parseFields(param: string | undefined): FieldSelection | undefined {
  if (param === undefined || param === '') return undefined;
  const exclude = param.startsWith('-');
  return { fields: new Set((exclude ? param.slice(1) : param).split(',')), exclude };
}

/**
 * The application list's whitelist (server/application/forwarder_overwrite.go, `appFields`): the only paths an
 * application list can be projected to, each a unit (asking for `items.spec.project` gives nothing: `spec` is
 * one entry). Note `status.operationState.operation.sync` yields the operation's *sync result*, as Argo CD's does.
 */
export const APPLICATION_FIELD_WHITELIST = [
  'metadata.name',
  'metadata.namespace',
  'metadata.annotations',
  'metadata.labels',
  'metadata.creationTimestamp',
  'metadata.deletionTimestamp',
  'spec',
  'status.sourceHydrator',
  'status.sync.status',
  'status.health',
  'status.summary',
  'status.operationState.startedAt',
  'status.operationState.finishedAt',
  'status.resources',
  'operation.sync',
  'status.operationState.phase',
  'status.operationState.operation.sync',
] as const;
export type ApplicationField = (typeof APPLICATION_FIELD_WHITELIST)[number];

/** Sentinel for "the getter returned Go nil": the path is left out (a typed nil pointer is JSON `null` instead). */
const ABSENT = Symbol('absent');

/** What each whitelisted getter returns, Go's nil-vs-typed-nil distinctions included. */
function valueOf(app: ArgoApplication, field: ApplicationField): unknown {
  const { metadata, status } = app;
  const op = status.operationState;
  switch (field) {
    case 'metadata.name':
      return metadata.name;
    case 'metadata.namespace':
      return metadata.namespace;
    case 'metadata.annotations':
      return metadata.annotations ?? null;
    case 'metadata.labels':
      return metadata.labels ?? null;
    case 'metadata.creationTimestamp':
      return metadata.creationTimestamp;
    case 'metadata.deletionTimestamp':
      return metadata.deletionTimestamp ?? null;
    case 'spec':
      return app.spec;
    case 'status.sourceHydrator':
      return status.sourceHydrator;
    case 'status.sync.status':
      return status.sync.status;
    case 'status.health':
      return status.health;
    case 'status.summary':
      return status.summary;
    case 'status.operationState.startedAt':
      return op === undefined ? ABSENT : op.startedAt;
    case 'status.operationState.finishedAt':
      return op === undefined ? ABSENT : (op.finishedAt ?? null);
    case 'status.resources':
      return status.resources !== undefined && status.resources.length > 0 ? status.resources : ABSENT;
    case 'operation.sync':
      return app.operation === undefined ? ABSENT : (app.operation.sync ?? null);
    case 'status.operationState.phase':
      return op === undefined ? ABSENT : op.phase;
    case 'status.operationState.operation.sync':
      return op === undefined ? ABSENT : (op.syncResult ?? null);
  }
}

/** The whitelisted paths a selection keeps (an exclusion keeps every whitelisted path it does not name). */
export function selectedFields(selection: FieldSelection | string | undefined): ApplicationField[] {
  const parsed = typeof selection === 'string' ? parseFields(selection) : selection;
  if (parsed === undefined) return [...APPLICATION_FIELD_WHITELIST];
  return APPLICATION_FIELD_WHITELIST.filter((field) => parsed.fields.has(`items.${field}`) !== parsed.exclude);
}

type Tree = Map<string, Tree | { readonly leaf: unknown }>;

function materialise(tree: Tree): Record<string, unknown> {
  // Go marshals the projection's map[string]any levels with sorted keys; leaves keep their struct order.
  const out: Record<string, unknown> = {};
  for (const key of [...tree.keys()].sort()) {
    const node = tree.get(key);
    out[key] = node instanceof Map ? materialise(node) : node?.leaf;
  }
  return out;
}

/**
 * One application as a projected list item: only the selected whitelisted paths, built as nested maps (so each
 * level's keys come sorted, as Go writes a map), paths whose getter returns nil left out.
 */
export function projectFields(app: ArgoApplication, selection: FieldSelection | string): Record<string, unknown> {
  const root: Tree = new Map();
  for (const field of selectedFields(selection)) {
    const value = valueOf(app, field);
    if (value === ABSENT) continue;
    const parts = field.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      let next = node.get(part);
      if (!(next instanceof Map)) {
        next = new Map();
        node.set(part, next);
      }
      node = next;
    }
    node.set(parts[parts.length - 1] ?? field, { leaf: value });
  }
  return materialise(root);
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) out[key] = sortKeysDeep(record[key]);
  return out;
}

/**
 * The generic `fields` filter of argoproj/pkg's grpc-gateway marshaller, which Argo CD uses for the project list:
 * the whole response is walked as JSON; in include mode a key survives when some field *starts with* its dotted
 * path (a plain string prefix), in exclude mode when its path is not listed; arrays are walked element by
 * element under the same path. The result is re-marshalled from Go maps, so every key comes out sorted.
 */
export function projectJsonFields(document: unknown, selection: FieldSelection): unknown {
  const copy = sortKeysDeep(document);
  const fields = [...selection.fields];
  const walk = (path: string[], item: unknown): void => {
    if (Array.isArray(item)) {
      for (const element of item) walk(path, element);
      return;
    }
    if (item === null || typeof item !== 'object') return;
    const record = item as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const fieldPath = [...path, key].join('.');
      const pathIn = selection.fields.has(fieldPath);
      const parentPathIn = pathIn || fields.some((f) => f.startsWith(fieldPath));
      const keep = selection.exclude ? !pathIn : parentPathIn;
      if (!keep) delete record[key];
      else if (!pathIn) walk([...path, key], record[key]);
    }
  };
  walk([], copy);
  return copy;
}
