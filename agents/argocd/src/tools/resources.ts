import { z } from 'zod';
import { FlotillaError } from '@flotilla/core';
import type { BoundedTools, JsonObject, JsonValue } from '@flotilla/bounded-tools';
import type { LineVerdict } from '@flotilla/upstream';
import type { ArgoCdClient, LogQuery, ResourceRef } from '../client/argocd-client.js';
import type { KubeEvent, LogLine, ManagedResource, ResourceNode } from '../client/resources.js';
import { EVENT_ITEM, LOG_LINE_ITEM, MANAGED_ITEM, RESOURCE_ACTIONS_OUTPUT, RESOURCE_OUTPUT, TREE_ITEM } from './outputs.js';
import { compact, text } from './views.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Limits of the resource, event and log tools; each is enforced below and named in the argument errors and
 * descriptions. Paging, the token budget and spilling are the kit's (LIMITS of @flotilla/bounded-tools).
 */
export const RESOURCE_TOOL_LIMITS = {
  /** Longest application, resource, kind, namespace or container name accepted (a Kubernetes name's limit). */
  nameMaxLength: 253,
  /** get_logs tail_lines: default, and most lines asked of Argo CD per pod. */
  logTailDefault: 100,
  logTailMax: 2_000,
  /** Pods Argo CD reads logs of at once (its server.maxPodLogsToRender default); more is an error it reports. */
  logPodsMax: 10,
  /** Lines one get_logs call keeps, whatever the pods and tail: the read stops at the next one. */
  logReadMaxLines: 5_000,
  /** Bytes of the log stream one call reads: the read stops there, the partial line dropped. */
  logReadMaxBytes: 8 * MiB,
  /** Characters kept of one log line; longer lines are cut and say how long they were. */
  logLineMaxChars: 2_000,
  /** Longest grep accepted (Argo CD's filter). */
  grepMaxLength: 256,
  /** Longest `since` duration. */
  sinceMaxSeconds: 30 * 24 * 3_600,
  /** get_resource fields: paths per call, and characters per path. */
  fieldsMax: 10,
  fieldPathMaxLength: 256,
  /** Characters of a health message, event message or resource value shown. */
  messageMaxChars: 300,
  /** Images and info entries shown per resource tree row. */
  imagesShown: 3,
  infoShown: 4,
  /** Characters of one info entry of a tree row ("Restart Count: 3113"). */
  infoMaxChars: 120,
  /** Actions listed for one resource. */
  actionsShown: 50,
} as const;

const L = RESOURCE_TOOL_LIMITS;

const name = (what: string) =>
  z
    .string({ message: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(L.nameMaxLength, `${what} must be at most ${L.nameMaxLength} characters`);

/** Health statuses a resource can have (health.lua and Argo CD's built-in checks). */
export const RESOURCE_HEALTH = ['Healthy', 'Progressing', 'Degraded', 'Suspended', 'Missing', 'Unknown'] as const;
export const EVENT_TYPES = ['Warning', 'Normal'] as const;

const cut = (value: string | undefined, max: number = L.messageMaxChars): string | undefined =>
  value === undefined || value.length <= max ? value : `${value.slice(0, max - 1)}…`;

// ---------------------------------------------------------------------------------------------------------------
// The resource tree, and finding one resource in it

/** Worst first: what is broken is what a person asks about. */
const HEALTH_RANK: Readonly<Record<string, number>> = { Degraded: 5, Missing: 4, Unknown: 3, Progressing: 2, Suspended: 2, Healthy: 1 };

function treeRow(node: ResourceNode): JsonObject {
  const info = node.info ?? [];
  const reason = info.find((item) => item.name === 'Status Reason')?.value;
  const parent = node.parentRefs?.[0];
  const images = node.images ?? [];
  return compact({
    kind: node.kind,
    name: node.name,
    namespace: node.namespace,
    group: node.group,
    health: node.health?.status,
    health_message: cut(node.health?.message),
    status: reason,
    info: info
      .filter((item) => item.name !== 'Status Reason' && item.name !== undefined)
      .slice(0, L.infoShown)
      .map((item) => cut(`${item.name}: ${item.value ?? ''}`, L.infoMaxChars) ?? ''),
    parent: parent === undefined ? undefined : `${parent.kind ?? '?'}/${parent.name ?? '?'}`,
    images: images.slice(0, L.imagesShown),
    images_total: images.length > L.imagesShown ? images.length : undefined,
    created_at: node.createdAt,
  });
}

interface NodeQuery {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string | undefined;
  readonly group?: string | undefined;
}

const describeQuery = (q: NodeQuery): string =>
  `${q.kind} "${q.name}"${q.namespace === undefined ? '' : ` in namespace "${q.namespace}"`}${q.group === undefined ? '' : ` of group "${q.group}"`}`;

/** The one node of the tree that is this resource (kind compared case-insensitively), or a not_found / ambiguity error. */
function pickNode(app: string, nodes: readonly ResourceNode[], q: NodeQuery): ResourceNode {
  const kind = q.kind.toLowerCase();
  const found = nodes.filter(
    (n) =>
      n.kind.toLowerCase() === kind &&
      n.name === q.name &&
      (q.namespace === undefined || (n.namespace ?? '') === q.namespace) &&
      (q.group === undefined || (n.group ?? '') === q.group),
  );
  const only = found[0];
  if (only === undefined) {
    throw new FlotillaError('not_found', `Application "${app}" has no ${describeQuery(q)} in its resource tree`, {
      remedy: 'get_resource_tree lists the resources of the application (kind, name, namespace, group); use those exact values.',
    });
  }
  if (found.length > 1) {
    const where = found.slice(0, 5).map((n) => `${n.group === undefined || n.group === '' ? '' : `${n.group}/`}${n.kind} in "${n.namespace ?? ''}"`);
    throw new FlotillaError('invalid_argument', `${found.length} resources of application "${app}" match ${describeQuery(q)}: ${where.join('; ')}`, {
      remedy: 'Add namespace (and group) to pick one.',
    });
  }
  return only;
}

async function findNode(client: ArgoCdClient, app: string, q: NodeQuery, signal: AbortSignal): Promise<ResourceNode> {
  return pickNode(app, await client.getResourceTree(app, signal), q);
}

/**
 * The exact reference Argo CD needs (it matches group and namespace exactly, "" for the core group and for
 * cluster-scoped objects): taken as given when both are, else looked up in the tree.
 */
async function resolveRef(client: ArgoCdClient, app: string, q: NodeQuery & { readonly version?: string | undefined }, signal: AbortSignal): Promise<ResourceRef> {
  if (q.namespace !== undefined && q.group !== undefined) return { kind: q.kind, name: q.name, namespace: q.namespace, group: q.group, version: q.version };
  const node = await findNode(client, app, q, signal);
  return { kind: node.kind, name: node.name, namespace: node.namespace ?? '', group: node.group ?? '', version: q.version };
}

// ---------------------------------------------------------------------------------------------------------------
// Managed resources: live against desired

function managedRow(resource: ManagedResource): JsonObject {
  const diff = resource.diff;
  return compact({
    kind: resource.kind,
    name: resource.name,
    namespace: resource.namespace,
    group: resource.group,
    sync: resource.modified ? 'OutOfSync' : 'Synced',
    hook: resource.hook ? true : undefined,
    live: resource.presence === 'missing' ? 'missing: in git, not in the cluster' : undefined,
    desired: resource.presence === 'extra' ? 'none: in the cluster, not in git' : undefined,
    changed_paths: diff?.changed,
    changes: diff?.paths.map((p) => ({ path: p.path, desired: p.desired, live: p.live })),
    more_changes: diff !== undefined && diff.more > 0 ? diff.more : undefined,
    note:
      resource.diffError ??
      (diff !== undefined && diff.changed === 0
        ? 'Argo CD finds a difference only in fields the live object alone has, or after its normalization; every field git sets matches.'
        : undefined),
  });
}

const upstreamCapNote = 'upstream cap (--upstream-max-value-kib)';

/** What a skipped item's first bytes say it is: Argo CD writes group, kind, namespace and name first. */
function identityOf(head: string): { kind?: string; name?: string; namespace?: string; group?: string } {
  const field = (key: string): string | undefined => {
    const match = new RegExp(`"${key}":"((?:[^"\\\\]|\\\\.)*)"`).exec(head);
    if (match === null) return undefined;
    try {
      return JSON.parse(`"${match[1] ?? ''}"`) as string;
    } catch {
      return undefined;
    }
  };
  return { kind: field('kind') ?? '?', name: field('name') ?? '?', namespace: field('namespace'), group: field('group') };
}

// ---------------------------------------------------------------------------------------------------------------
// Events

function eventTime(event: KubeEvent): string | undefined {
  return event.lastTimestamp ?? event.series?.lastObservedTime ?? event.eventTime ?? event.firstTimestamp ?? event.metadata?.creationTimestamp;
}

const timeValue = (time: string | undefined): number => {
  const ms = time === undefined ? Number.NaN : Date.parse(time);
  return Number.isFinite(ms) ? ms : 0;
};

function eventRows(events: readonly KubeEvent[], type: string | undefined): JsonObject[] {
  return events
    .filter((event) => type === undefined || event.type === type)
    .map((event) => ({ event, at: timeValue(eventTime(event)) }))
    .sort((a, b) => b.at - a.at)
    .map(({ event }) => {
      const object = event.involvedObject;
      return compact({
        type: event.type,
        reason: event.reason,
        message: cut(event.message),
        object: object === undefined ? undefined : `${object.kind ?? '?'}/${object.name ?? '?'}`,
        namespace: object?.namespace,
        count: event.count ?? event.series?.count ?? 1,
        first_seen: event.firstTimestamp ?? event.eventTime,
        last_seen: eventTime(event),
        source: event.source?.component ?? event.reportingComponent,
      });
    });
}

const EVENT_COUNTS = { by_type: (row: JsonObject) => text(row.type), by_reason: (row: JsonObject) => text(row.reason) };

// ---------------------------------------------------------------------------------------------------------------
// Logs

const DURATION = /^(\d{1,7})([smhd])$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

const isTime = (value: string): boolean => RFC3339.test(value) && Number.isFinite(Date.parse(value));

/** `since` as seconds back from now, or an absolute time: undefined when it is neither (or out of range). */
function parseSince(value: string): { readonly seconds: number } | { readonly atMs: number } | undefined {
  const duration = DURATION.exec(value);
  if (duration !== null) {
    const seconds = Number(duration[1]) * (UNIT_SECONDS[duration[2] ?? 's'] ?? 1);
    return seconds >= 1 && seconds <= L.sinceMaxSeconds ? { seconds } : undefined;
  }
  return isTime(value) ? { atMs: Date.parse(value) } : undefined;
}

const sinceMessage = `since must be a duration from 1s to ${L.sinceMaxSeconds / 86_400}d like "15m", "2h" or "1d" (s, m, h or d), or an RFC 3339 time like "2025-01-31T12:00:00Z"`;
const untilMessage = 'until must be an RFC 3339 time like "2025-01-31T12:30:00Z"';
const tailMessage = `tail_lines must be a whole number from 1 to ${L.logTailMax} (default ${L.logTailDefault})`;

/** A level word near the start of a line, for the by_level count. */
const LEVEL = /\b(fatal|panic|error|err|warn(?:ing)?|info|debug|trace)\b/i;
const LEVEL_NAMES: Readonly<Record<string, string>> = { fatal: 'fatal', panic: 'fatal', error: 'error', err: 'error', warn: 'warn', warning: 'warn', info: 'info', debug: 'debug', trace: 'debug' };

function levelOf(content: string): string {
  const match = LEVEL.exec(content.slice(0, 200));
  return match === null ? 'unknown' : (LEVEL_NAMES[(match[1] ?? '').toLowerCase()] ?? 'unknown');
}

/** Argo CD's filter: a substring, case-insensitive unless matchCase; a leading "!" keeps the lines without it. */
function grepMatcher(grep: string, matchCase: boolean): (content: string) => boolean {
  const inverse = grep.startsWith('!');
  const literal = inverse ? grep.slice(1) : grep;
  const needle = matchCase ? literal : literal.toLowerCase();
  return (content) => (matchCase ? content : content.toLowerCase()).includes(needle) !== inverse;
}

const LogsFilters = z.strictObject({
  name: name('name').describe('Exact application name.'),
  pod: name('pod').optional().describe('One pod of the application (get_resource_tree lists them). Not with kind/resource_name.'),
  kind: name('kind').optional().describe('Read the pods under resources of this kind, e.g. "Deployment" (with resource_name: under that one).'),
  resource_name: name('resource_name').optional().describe('The resource whose pods to read (needs kind).'),
  namespace: name('namespace').optional().describe('Namespace of the pod or resource.'),
  container: name('container').optional().describe('Container name; needed for pods with several (Kubernetes then answers with their names instead of a log).'),
  tail_lines: z
    .number({ message: tailMessage })
    .int(tailMessage)
    .min(1, tailMessage)
    .max(L.logTailMax, tailMessage)
    .default(L.logTailDefault)
    .describe(`Lines from the end of each pod's log, 1-${L.logTailMax} (default ${L.logTailDefault}).`),
  grep: z
    .string()
    .min(1, 'grep must not be empty')
    .max(L.grepMaxLength, `grep must be at most ${L.grepMaxLength} characters`)
    .optional()
    .describe('Keep lines containing this text (case-insensitive unless match_case); a leading "!" keeps the lines without it.'),
  match_case: z.boolean({ message: 'match_case must be true or false' }).default(false).describe('grep compares case (default false).'),
  since: z
    .string()
    .max(40, sinceMessage)
    .refine((value) => parseSince(value) !== undefined, sinceMessage)
    .optional()
    .describe(`Only lines from this long ago ("15m", "2h", "1d"; at most ${L.sinceMaxSeconds / 86_400}d) or since this RFC 3339 time.`),
  until: z.string().max(40, untilMessage).refine(isTime, untilMessage).optional().describe('Only lines up to this RFC 3339 time.'),
  previous: z.boolean({ message: 'previous must be true or false' }).default(false).describe('The previous, terminated container\'s log (after a restart or crash).'),
  oldest_first: z.boolean({ message: 'oldest_first must be true or false' }).default(false).describe('Time order; by default the newest line comes first.'),
});
type LogsFilters = z.output<typeof LogsFilters>;

interface LogRow {
  readonly row: JsonObject;
  readonly cut: boolean;
}

async function loadLogs(client: ArgoCdClient, f: LogsFilters, signal: AbortSignal): Promise<{ items: JsonObject[]; notes: string[] }> {
  if (f.pod !== undefined && (f.kind !== undefined || f.resource_name !== undefined)) {
    throw new FlotillaError('invalid_argument', 'pod cannot be combined with kind or resource_name: give a pod, or a kind and resource_name', {
      remedy: 'Call again with either pod, or kind (and resource_name).',
    });
  }
  if (f.resource_name !== undefined && f.kind === undefined) {
    throw new FlotillaError('invalid_argument', 'resource_name needs kind (e.g. kind "Deployment")', { remedy: 'Add kind, or use pod for one pod.' });
  }
  const since = f.since === undefined ? undefined : parseSince(f.since);
  const untilMs = f.until === undefined ? undefined : Date.parse(f.until);
  // A duration is measured by the cluster's clock (Argo CD's sinceSeconds), not ours: only a time is applied here too.
  const sinceMs = since !== undefined && 'atMs' in since ? since.atMs : undefined;
  if (sinceMs !== undefined && untilMs !== undefined && sinceMs > untilMs) {
    throw new FlotillaError('invalid_argument', `since (${f.since ?? ''}) is after until (${f.until ?? ''})`, { remedy: 'Give a since before until.' });
  }
  const pods = f.pod !== undefined ? 1 : L.logPodsMax;
  const maxLines = Math.min(L.logReadMaxLines, f.tail_lines * pods);
  const matches = f.grep === undefined ? undefined : grepMatcher(f.grep, f.match_case);
  const query: LogQuery = {
    podName: f.pod,
    kind: f.kind,
    resourceName: f.resource_name,
    namespace: f.namespace,
    container: f.container,
    tailLines: f.tail_lines,
    sinceSeconds: since !== undefined && 'seconds' in since ? since.seconds : undefined,
    sinceTimeMs: since !== undefined && 'atMs' in since ? since.atMs : undefined,
    untilTime: f.until,
    filter: f.grep,
    matchCase: f.match_case,
    previous: f.previous,
  };
  // The same rules again as lines arrive, whatever Argo CD applied: until ends the read, a since time and grep skip.
  const select = (line: LogLine): LineVerdict => {
    if (line.last) return 'stop';
    if (line.time !== undefined) {
      const at = Date.parse(line.time);
      if (untilMs !== undefined && at > untilMs) return 'stop';
      if (sinceMs !== undefined && at < sinceMs) return 'skip';
    }
    if (matches !== undefined && line.matched === false) return 'skip';
    return 'keep';
  };
  let read: Awaited<ReturnType<ArgoCdClient['getLogs']>>;
  try {
    read = await client.getLogs(f.name, query, { maxLines, maxBytes: L.logReadMaxBytes, lineMaxChars: L.logLineMaxChars, matches, select }, signal);
  } catch (error) {
    if (error instanceof FlotillaError && error.code === 'upstream_rejected' && /max pods/i.test(error.message)) {
      throw new FlotillaError('invalid_argument', `${error.message}: the selection covers more than the ${L.logPodsMax} pods Argo CD reads logs of at once`, {
        remedy: 'Name one pod (pod), or the resource right above the pods (kind "ReplicaSet" and its resource_name); get_resource_tree lists them.',
        cause: error,
      });
    }
    throw error;
  }
  const { lines, asked } = read;
  if (lines.items.length === 0 && (f.pod !== undefined || f.kind !== undefined)) {
    // Argo CD answers a pod or resource it cannot find with an empty stream: say which it is.
    if (f.pod !== undefined) await findNode(client, f.name, { kind: 'Pod', name: f.pod, namespace: f.namespace }, signal);
    else if (f.resource_name !== undefined) await findNode(client, f.name, { kind: f.kind ?? '', name: f.resource_name, namespace: f.namespace }, signal);
  }
  const rows: LogRow[] = lines.items.map((line) => ({
    row: compact({ time: line.time, pod: line.pod, line: line.content, cut_from_chars: line.cutFrom }),
    cut: line.cutFrom !== undefined,
  }));
  if (!f.oldest_first) rows.reverse();
  const complete = lines.stopped === 'end' || lines.stopped === 'selected';
  // Parsed but not kept: left out by grep or since (the line that stopped the read is not one of them).
  // (a byte cap stops before parsing the line it would cut, so nothing is taken off for it).
  const leftOut = lines.linesRead - lines.items.length - (lines.stopped === 'max_lines' || lines.stopped === 'selected' ? 1 : 0);
  const notes = [
    `Read ${lines.items.length} log lines (${Math.ceil(lines.bytesRead / KiB)} KiB received${leftOut > 0 ? `; ${leftOut} more left out by grep or since` : ''})${complete ? ', everything Argo CD sent for this query' : ''}; ${f.oldest_first ? 'oldest first' : 'newest first'}.`,
    `Asked Argo CD: GET /api/v1/applications/${f.name}/logs?${decodeURIComponent(asked.toString())} (tailLines is per pod; Argo CD reads at most ${L.logPodsMax} pods).`,
  ];
  if (lines.stopped === 'max_lines') {
    notes.push(
      `The read STOPPED at the cap of ${maxLines} lines (tail_lines × ${pods === 1 ? '1 pod' : `up to ${L.logPodsMax} pods`}, at most ${L.logReadMaxLines}): Argo CD had more, and these are the first it sent. Narrow with since, until, grep or one pod.`,
    );
  }
  if (lines.stopped === 'max_bytes') {
    notes.push(`The read STOPPED at the ${L.logReadMaxBytes / MiB} MiB cap of one read: Argo CD had more, and these are the first lines it sent. Narrow with since, until, grep or tail_lines.`);
  }
  const cutLines = rows.filter((r) => r.cut).length;
  if (cutLines > 0) notes.push(`${cutLines} lines longer than ${L.logLineMaxChars} characters were cut (cut_from_chars gives their length).`);
  const own = lines.items.filter((line) => line.time === undefined).length;
  if (own > 0) notes.push(`${own} lines without a time are messages of Argo CD or Kubernetes, not of the container (e.g. a container name needed, a container not started).`);
  if (lines.oversizedSkipped > 0) notes.push(`${lines.oversizedSkipped} lines too long to read (over the upstream value cap) were skipped.`);
  if (lines.items.length === 0) notes.push('No log lines matched: the container may have logged nothing in that window, or grep/since/until left nothing; previous true reads a restarted container\'s last run.');
  return { items: rows.map((r) => r.row), notes };
}

// ---------------------------------------------------------------------------------------------------------------
// One live object

const FIELD_PATH = /^[A-Za-z0-9_.\-/[\]"]+$/;
const fieldMessage = `fields must be 1 to ${L.fieldsMax} dotted paths of at most ${L.fieldPathMaxLength} characters, like "spec.replicas", "status.conditions" or "spec.template.spec.containers[0].image"`;

/** Bounds of a value shown: depth, keys and items per level, characters per string. */
interface Shape {
  readonly depth: number;
  readonly keys: number;
  readonly items: number;
  readonly chars: number;
}

const SUMMARY: Shape = { depth: 2, keys: 30, items: 5, chars: 200 };
const STATUS_SUMMARY: Shape = { ...SUMMARY, depth: 3 };
const FIELD_VALUE: Shape = { depth: 8, keys: 100, items: 50, chars: 2_000 };

/** A value shown within `shape`: deeper levels become "{N keys: a, b…}" / "[N items]", long strings are cut. */
function summarise(value: unknown, shape: Shape, depth = shape.depth): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'string') return cut(value, shape.chars) ?? '';
  if (Array.isArray(value)) {
    if (depth <= 0) return `[${value.length} items]`;
    const shown: JsonValue[] = value.slice(0, shape.items).map((item) => summarise(item, shape, depth - 1));
    if (value.length > shape.items) shown.push(`…${value.length - shape.items} more items`);
    return shown;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([key]) => key !== 'managedFields');
    if (depth <= 0) return `{${entries.length} keys${entries.length === 0 ? '' : `: ${cut(entries.map(([key]) => key).join(', '), 80) ?? ''}`}}`;
    const out: JsonObject = {};
    for (const [key, item] of entries.slice(0, shape.keys)) out[key] = summarise(item, shape, depth - 1);
    if (entries.length > shape.keys) out['…'] = `${entries.length - shape.keys} more keys`;
    return out;
  }
  return null;
}

/** Container images anywhere under a spec (bounded walk), the field people ask about most. */
function imagesIn(value: unknown, found: Set<string>, depth = 0): void {
  if (found.size >= 10 || depth > 8 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) imagesIn(item, found, depth + 1);
    return;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'image' && typeof item === 'string') found.add(item);
    else imagesIn(item, found, depth + 1);
  }
}

/** "spec.containers[0].image", 'metadata.annotations["a.b/c"]' → its segments; undefined when malformed. */
function parsePath(path: string): (string | number)[] | undefined {
  const segments: (string | number)[] = [];
  const token = /([^.[\]"]+)|\[(\d+)\]|\["([^"]*)"\]|(\.)/gy;
  let expectKey = true;
  for (let match = token.exec(path); match !== null; match = token.exec(path)) {
    if (match[4] !== undefined) {
      if (expectKey) return undefined;
      expectKey = true;
      continue;
    }
    if (match[1] !== undefined) {
      if (!expectKey) return undefined;
      segments.push(match[1]);
    } else segments.push(match[2] !== undefined ? Number(match[2]) : (match[3] ?? ''));
    expectKey = false;
    if (token.lastIndex === path.length) return segments;
  }
  return undefined;
}

function valueAt(object: unknown, segments: readonly (string | number)[]): unknown {
  let value = object;
  for (const segment of segments) {
    if (value === null || typeof value !== 'object') return undefined;
    value = typeof segment === 'number' ? (Array.isArray(value) ? (value as unknown[])[segment] : undefined) : (value as Record<string, unknown>)[segment];
  }
  return value;
}

type Manifest = Record<string, unknown> & { metadata?: Record<string, unknown> };

function projectManifest(manifest: Manifest, fields: readonly string[] | undefined): JsonObject {
  const meta = manifest.metadata ?? {};
  const owners = Array.isArray(meta.ownerReferences) ? (meta.ownerReferences as { kind?: string; name?: string }[]) : [];
  const head = compact({
    api_version: typeof manifest.apiVersion === 'string' ? manifest.apiVersion : undefined,
    kind: typeof manifest.kind === 'string' ? manifest.kind : undefined,
  });
  if (fields !== undefined) {
    const values: JsonObject = {};
    const missing: string[] = [];
    for (const field of fields) {
      const segments = parsePath(field);
      if (segments === undefined) {
        throw new FlotillaError('invalid_argument', `fields: "${field}" is not a dotted path`, { remedy: fieldMessage });
      }
      if (segments[0] === 'metadata' && segments[1] === 'managedFields') {
        values[field] = '(not shown: managedFields is bookkeeping of the API server)';
        continue;
      }
      const value = valueAt(manifest, segments);
      if (value === undefined) missing.push(field);
      values[field] = value === undefined ? null : summarise(value, FIELD_VALUE);
    }
    return compact({
      ...head,
      name: typeof meta.name === 'string' ? meta.name : undefined,
      namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined,
      fields: values,
      note: missing.length === 0 ? undefined : `Not set on this object: ${missing.join(', ')}.`,
    });
  }
  const images = new Set<string>();
  imagesIn(manifest.spec, images);
  const other = Object.entries(manifest).filter(([key]) => !['apiVersion', 'kind', 'metadata', 'spec', 'status'].includes(key));
  return compact({
    ...head,
    metadata: compact({
      name: typeof meta.name === 'string' ? meta.name : undefined,
      namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined,
      labels: summarise(meta.labels ?? undefined, { ...SUMMARY, depth: 1 }) ?? undefined,
      owner_references: owners.map((o) => `${o.kind ?? '?'}/${o.name ?? '?'}`),
      created: typeof meta.creationTimestamp === 'string' ? meta.creationTimestamp : undefined,
      deleting_since: typeof meta.deletionTimestamp === 'string' ? meta.deletionTimestamp : undefined,
      annotations: meta.annotations !== null && typeof meta.annotations === 'object' ? Object.keys(meta.annotations).length : undefined,
    }),
    images: [...images],
    spec: manifest.spec === undefined ? undefined : summarise(manifest.spec, SUMMARY),
    status: manifest.status === undefined ? undefined : summarise(manifest.status, STATUS_SUMMARY),
    other: other.length === 0 ? undefined : Object.fromEntries(other.map(([key, value]) => [key, summarise(value, { ...SUMMARY, depth: 0 })])),
    next_step: 'Summary of spec and status (deeper levels as key counts); ask with fields (e.g. ["spec.template.spec.containers", "status.conditions"]) for exact values.',
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The tools' arguments: module constants, built once per process (a server per request must not rebuild them)

const TreeFilters = z.strictObject({
  name: name('name').describe('Exact application name.'),
  kind: name('kind').optional().describe('Only resources of this kind (e.g. "Pod"; case-insensitive).'),
  health_status: z
    .enum(RESOURCE_HEALTH, { message: `health_status must be one of ${RESOURCE_HEALTH.join(', ')}` })
    .optional()
    .describe('Only resources in this health status.'),
  namespace: name('namespace').optional().describe('Only resources in this namespace.'),
});

const ManagedFilters = z.strictObject({
  name: name('name').describe('Exact application name.'),
  kind: name('kind').optional().describe('Only this kind (exact, e.g. "Deployment").'),
  resource_name: name('resource_name').optional().describe('Only resources with this name.'),
  namespace: name('namespace').optional().describe('Only resources in this namespace.'),
  out_of_sync_only: z.boolean({ message: 'out_of_sync_only must be true or false' }).default(false).describe('Only resources that differ from git (default false).'),
});

const typeFilter = z
  .enum(EVENT_TYPES, { message: `type must be one of ${EVENT_TYPES.join(', ')}` })
  .optional()
  .describe('Only Warning or Normal events.');

const ApplicationEventFilters = z.strictObject({ name: name('name').describe('Exact application name.'), type: typeFilter });

const ResourceEventFilters = z.strictObject({
  name: name('name').describe('Exact application name.'),
  resource_kind: name('resource_kind').describe('Kind of the resource, e.g. "Pod".'),
  resource_name: name('resource_name').describe('Name of the resource.'),
  resource_namespace: name('resource_namespace').optional().describe('Its namespace (needed when the name is in several).'),
  resource_uid: name('resource_uid').optional().describe('Its uid (get_resource_tree does not show it; looked up when not given).'),
  type: typeFilter,
});

const groupArgument = z
  .string()
  .max(L.nameMaxLength, `group must be at most ${L.nameMaxLength} characters`)
  .optional()
  .describe('API group ("apps"; "" for core kinds); looked up when not given.');

const GetResourceInput = z.strictObject({
  name: name('name').describe('Exact application name.'),
  kind: name('kind').describe('Kind of the object, e.g. "Deployment".'),
  resource_name: name('resource_name').describe('Name of the object.'),
  namespace: name('namespace').optional().describe('Its namespace (looked up in the resource tree when not given).'),
  group: groupArgument,
  version: name('version').optional().describe('API version (e.g. "v1"); Argo CD\'s when not given.'),
  fields: z
    .array(z.string().min(1, fieldMessage).max(L.fieldPathMaxLength, fieldMessage).regex(FIELD_PATH, fieldMessage), { message: fieldMessage })
    .min(1, fieldMessage)
    .max(L.fieldsMax, fieldMessage)
    .optional()
    .describe(`Up to ${L.fieldsMax} dotted paths to return exactly, e.g. ["spec.replicas", "status.conditions"].`),
});

const ResourceActionsInput = z.strictObject({
  name: name('name').describe('Exact application name.'),
  kind: name('kind').describe('Kind of the resource, e.g. "Deployment".'),
  resource_name: name('resource_name').describe('Name of the resource.'),
  namespace: name('namespace').optional().describe('Its namespace (looked up in the resource tree when not given).'),
  group: groupArgument,
});

// ---------------------------------------------------------------------------------------------------------------

/** The read tools over one application's resources: tree, live vs desired, events, logs, one object, its actions. */
export function registerResourceTools(kit: BoundedTools, client: ArgoCdClient): void {
  kit.registerList({
    name: 'get_resource_tree',
    title: 'Resource tree of an Argo CD application',
    description:
      "The Kubernetes resources of one application as Argo CD tracks them (Deployments, ReplicaSets, Pods, Services...): kind, name, namespace, health, status reason, parent and images, unhealthy first. Counts by kind and health over every matching resource.",
    itemKind: 'resources',
    // Argo CD has no server-side paging: later pages come from the tree the first call fetched.
    snapshot: true,
    filters: TreeFilters,
    item: TREE_ITEM,
    load: async (f, ctx) => {
      const nodes = await client.getResourceTree(f.name, ctx.signal);
      const kind = f.kind?.toLowerCase();
      const rows = nodes
        .filter((n) => (kind === undefined || n.kind.toLowerCase() === kind) && (f.health_status === undefined || n.health?.status === f.health_status) && (f.namespace === undefined || n.namespace === f.namespace))
        .map((node, i) => ({ node, i, rank: HEALTH_RANK[node.health?.status ?? ''] ?? 0 }))
        .sort((a, b) => b.rank - a.rank || a.i - b.i)
        .map(({ node }) => treeRow(node));
      const filtered = kind !== undefined || f.health_status !== undefined || f.namespace !== undefined;
      return { items: rows, notes: filtered ? [`The tree has ${nodes.length} resources; ${rows.length} match the filters.`] : [] };
    },
    counts: { by_kind: (row) => text(row.kind), by_health: (row) => text(row.health) ?? 'None' },
  });

  kit.registerList({
    name: 'get_managed_resources',
    title: 'Live against desired state of an application',
    description:
      'The resources an application manages, live state against desired (git), out of sync first: per resource its sync state and a diff summary ' +
      '(the paths that differ, a few per resource with short desired/live values, and how many more), never whole manifests. Fields only the live ' +
      'object has (defaults the cluster fills in) and status are not differences here.',
    itemKind: 'managed resources',
    snapshot: true,
    filters: ManagedFilters,
    item: MANAGED_ITEM,
    load: async (f, ctx) => {
      const read = await client.getManagedResources(f.name, { kind: f.kind, name: f.resource_name, namespace: f.namespace }, ctx.signal);
      const matches = (r: { kind?: string | undefined; name?: string | undefined; namespace?: string | undefined }): boolean =>
        (f.kind === undefined || r.kind === f.kind) && (f.resource_name === undefined || r.name === f.resource_name) && (f.namespace === undefined || r.namespace === f.namespace);
      // Too large to read: still listed, by what its first bytes say it is, as not summarised.
      const oversized = read.oversized.samples.map((sample) => identityOf(sample.head)).filter(matches);
      const rows = [
        ...oversized.map((r) => compact({ kind: r.kind, name: r.name, namespace: r.namespace, group: r.group, sync: 'Unknown', note: `Its states are over the ${upstreamCapNote} of one item: not read, not summarised.` })),
        ...read.items
          .filter(matches)
          .filter((r) => !f.out_of_sync_only || r.modified)
          .map((r, i) => ({ r, i }))
          .sort((a, b) => Number(b.r.modified) - Number(a.r.modified) || a.i - b.i)
          .map(({ r }) => managedRow(r)),
      ];
      const unnamed = read.oversized.count - read.oversized.samples.length;
      const notes =
        read.oversized.count === 0
          ? []
          : [`${read.oversized.count} resources were too large to read (over the upstream value cap, --upstream-max-value-kib) and are not summarised${unnamed > 0 ? `; ${unnamed} of them are not listed` : ''}.`];
      return { items: rows, notes };
    },
    counts: { by_sync: (row) => text(row.sync), by_kind: (row) => text(row.kind) },
  });

  kit.registerList({
    name: 'get_application_events',
    title: 'Events of an Argo CD application',
    description: 'Kubernetes events of the Application object itself (syncs started and finished, health changes, operation errors), newest first: type, reason, message, count, first and last seen.',
    itemKind: 'events',
    snapshot: true,
    filters: ApplicationEventFilters,
    item: EVENT_ITEM,
    load: async (f, ctx) => eventRows(await client.listEvents(f.name, undefined, ctx.signal), f.type),
    counts: EVENT_COUNTS,
  });

  kit.registerList({
    name: 'get_resource_events',
    title: 'Events of one resource of an application',
    description:
      'Kubernetes events of one resource of an application (a Pod failing to pull its image, a Deployment scaling...), newest first. The resource is found in the ' +
      "application's resource tree (its uid too, when not given).",
    itemKind: 'events',
    snapshot: true,
    filters: ResourceEventFilters,
    item: EVENT_ITEM,
    load: async (f, ctx) => {
      let resource = { name: f.resource_name, namespace: f.resource_namespace ?? '', uid: f.resource_uid ?? '' };
      if (f.resource_uid === undefined || f.resource_namespace === undefined) {
        const node = await findNode(client, f.name, { kind: f.resource_kind, name: f.resource_name, namespace: f.resource_namespace }, ctx.signal);
        if (f.resource_uid !== undefined && node.uid !== undefined && node.uid !== f.resource_uid) {
          throw new FlotillaError('not_found', `${f.resource_kind} "${f.resource_name}" of application "${f.name}" has uid ${node.uid}, not ${f.resource_uid}`, {
            remedy: 'Leave resource_uid out: it is looked up in the resource tree.',
          });
        }
        resource = { name: node.name, namespace: node.namespace ?? '', uid: node.uid ?? f.resource_uid ?? '' };
      }
      return eventRows(await client.listEvents(f.name, resource, ctx.signal), f.type);
    },
    counts: EVENT_COUNTS,
  });

  kit.registerList({
    name: 'get_logs',
    title: 'Container logs of an application\'s pods',
    description:
      `Log lines of one pod, or of the pods under one resource (kind + resource_name), or of the application's pods (Argo CD reads at most ${L.logPodsMax}), ` +
      `newest first. Argo CD is asked for tail_lines (default ${L.logTailDefault}, at most ${L.logTailMax}) per pod; grep, since and until are applied by it, and grep, until and a since time again here; ` +
      `one call reads at most ${L.logReadMaxLines} lines and ${L.logReadMaxBytes / MiB} MiB, each line cut to ${L.logLineMaxChars} characters, and says when it stopped at a cap. ` +
      'Counts by pod and by level word. Larger reads come back with a result_id for read_result (page, filter).',
    itemKind: 'log lines',
    snapshot: true,
    filters: LogsFilters,
    item: LOG_LINE_ITEM,
    load: async (f, ctx) => loadLogs(client, f, ctx.signal),
    counts: { by_pod: (row) => text(row.pod), by_level: (row) => levelOf(text(row.line) ?? '') },
  });

  kit.register({
    name: 'get_resource',
    title: 'One live Kubernetes object of an application',
    description:
      'One live object of an application as Argo CD reads it from the cluster (Secret values masked by Argo CD): by default its metadata (name, namespace, labels, ' +
      'owners), images, and a summary of spec and status (deeper levels as key counts; never managedFields). With fields, exactly those dotted paths.',
    input: GetResourceInput,
    output: RESOURCE_OUTPUT,
    run: async (args, ctx) => {
      const ref = await resolveRef(client, args.name, { kind: args.kind, name: args.resource_name, namespace: args.namespace, group: args.group, version: args.version }, ctx.signal);
      const text = await client.getResource(args.name, ref, ctx.signal);
      let manifest: unknown;
      try {
        manifest = JSON.parse(text) as unknown;
      } catch (cause) {
        throw new FlotillaError('upstream_bad_response', `Argo CD sent a manifest for ${ref.kind} "${ref.name}" that is not JSON`, { remedy: 'Check the Argo CD version.', cause });
      }
      if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
        throw new FlotillaError('not_found', `Argo CD has no live ${ref.kind} "${ref.name}" for application "${args.name}" (it may be missing from the cluster)`, {
          remedy: 'get_managed_resources shows whether it is missing live.',
        });
      }
      return {
        kind: 'object',
        data: projectManifest(manifest as Manifest, args.fields === undefined ? undefined : [...new Set(args.fields)]),
        overflowHint: 'Too large for the budget: ask for fewer or narrower fields (e.g. "spec.template.spec.containers[0].image").',
      };
    },
  });

  kit.register({
    name: 'list_resource_actions',
    title: 'Actions Argo CD offers for a resource (listed only)',
    description:
      'The resource actions Argo CD offers for one resource of an application (restart, resume, retry...) and whether each is disabled. ' +
      'Listed only: Flotilla is read-only and never runs them.',
    input: ResourceActionsInput,
    output: RESOURCE_ACTIONS_OUTPUT,
    run: async (args, ctx) => {
      const ref = await resolveRef(client, args.name, { kind: args.kind, name: args.resource_name, namespace: args.namespace, group: args.group }, ctx.signal);
      const actions = await client.listResourceActions(args.name, ref, ctx.signal);
      return {
        kind: 'object',
        data: {
          resource: compact({ kind: ref.kind, name: ref.name, namespace: ref.namespace, group: ref.group }),
          total: actions.length,
          actions: actions.slice(0, L.actionsShown).map((a) => compact({ name: a.name, display_name: a.displayName, disabled: a.disabled === true })),
          note: 'Listed only: Flotilla is read-only and does not run resource actions. Someone with the permission can run one in the Argo CD UI or with `argocd app actions run`.',
        },
        overflowHint: 'Too many actions for the budget.',
      };
    },
  });
}
