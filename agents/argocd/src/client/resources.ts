import { z } from 'zod';
import { diffSummary, type DiffSummary } from './diff.js';
import { optionalStrings } from './schemas.js';

/**
 * Wire shapes of Argo CD's per-application resource endpoints (server/application/application.proto, v3.1), as far
 * as Flotilla reads them. `z.object` strips every other key as each item is parsed, and strings that may be long
 * (messages, log lines) are cut right there, so what a read keeps is bounded per item.
 */

/** Characters kept of a Kubernetes event message. */
export const EVENT_MESSAGE_MAX_CHARS = 1_000;

/** A value Go's encoding/json writes as null for a nil pointer or a zero metav1.Time: read as absent. */
const NullableString = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined);

const cut = (max: number) => (value: string): string => (value.length <= max ? value : `${value.slice(0, max - 1)}…`);

const ResourceRef = z.object(optionalStrings('group', 'version', 'kind', 'namespace', 'name', 'uid'));

/** One node of GET /api/v1/applications/{name}/resource-tree (`nodes[]`, v1alpha1.ResourceNode). */
export const ResourceNode = z.object({
  group: z.string().optional(),
  version: z.string().optional(),
  kind: z.string().default(''),
  namespace: z.string().optional(),
  name: z.string().default(''),
  uid: z.string().optional(),
  parentRefs: z.array(ResourceRef).nullish(),
  info: z.array(z.object({ name: z.string().optional(), value: z.string().optional() })).nullish(),
  health: z.object({ status: z.string().optional(), message: z.string().optional() }).nullish(),
  images: z.array(z.string()).nullish(),
  createdAt: NullableString,
});
export type ResourceNode = z.output<typeof ResourceNode>;

/** One item of GET .../events (a core/v1 Event), projected as it is parsed. */
export const KubeEvent = z.object({
  metadata: z.object({ name: z.string().optional(), creationTimestamp: NullableString }).optional(),
  involvedObject: z.object({ kind: z.string().optional(), name: z.string().optional(), namespace: z.string().optional(), uid: z.string().optional() }).optional(),
  reason: z.string().optional(),
  message: z.string().transform(cut(EVENT_MESSAGE_MAX_CHARS)).optional(),
  type: z.string().optional(),
  count: z.number().optional(),
  firstTimestamp: NullableString,
  lastTimestamp: NullableString,
  eventTime: NullableString,
  series: z.object({ count: z.number().optional(), lastObservedTime: NullableString }).nullish(),
  source: z.object({ component: z.string().optional() }).nullish(),
  reportingComponent: z.string().optional(),
});
export type KubeEvent = z.output<typeof KubeEvent>;

/** A managed resource with its desired and live states reduced to a diff summary. */
export interface ManagedResource {
  readonly group: string | undefined;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
  /** Argo CD's own verdict: the live object differs from git. */
  readonly modified: boolean;
  readonly hook: boolean;
  /** missing: in git, not in the cluster; extra: in the cluster, not in git; else both exist. */
  readonly presence: 'both' | 'missing' | 'extra';
  readonly diff: DiffSummary | undefined;
  /** Why no diff could be computed (a state that is not JSON). */
  readonly diffError: string | undefined;
}

/** A state string: undefined for absent ("" or "null", Argo CD's way of saying the object does not exist there). */
function parseState(state: string | undefined): { value: unknown } | undefined {
  if (state === undefined || state === '' || state === 'null') return undefined;
  return { value: JSON.parse(state) as unknown };
}

/**
 * One item of GET .../managed-resources (v1alpha1.ResourceDiff). Its targetState and liveState are whole manifests
 * as JSON strings; they are parsed and reduced to a diff summary as the item is read, and only the summary is
 * kept: the list never holds the manifests (the item as a whole is capped by the upstream's maxValueBytes).
 */
export const ManagedResourceItem = z
  .object({
    group: z.string().optional(),
    kind: z.string().default(''),
    namespace: z.string().optional(),
    name: z.string().default(''),
    targetState: z.string().nullish(),
    liveState: z.string().nullish(),
    hook: z.boolean().optional(),
    modified: z.boolean().optional(),
  })
  .transform((item): ManagedResource => {
    let diff: DiffSummary | undefined;
    let diffError: string | undefined;
    let presence: ManagedResource['presence'] = 'both';
    try {
      const target = parseState(item.targetState ?? undefined);
      const live = parseState(item.liveState ?? undefined);
      presence = target === undefined ? 'extra' : live === undefined ? 'missing' : 'both';
      if (item.modified === true && target !== undefined && live !== undefined) diff = diffSummary(target.value, live.value);
    } catch {
      diffError = 'Argo CD sent a state that is not JSON';
    }
    return {
      group: item.group === '' ? undefined : item.group,
      kind: item.kind,
      namespace: item.namespace === '' ? undefined : item.namespace,
      name: item.name,
      modified: item.modified === true,
      hook: item.hook === true,
      presence,
      diff,
      diffError,
    };
  });

/** One log line as a tool keeps it: its time, pod, and content cut to a fixed length. */
export interface LogLine {
  /** RFC 3339 time of the line; undefined for Argo CD's own messages (e.g. "container is waiting to start"). */
  readonly time: string | undefined;
  readonly pod: string | undefined;
  readonly content: string;
  /** Characters of the original line when it was cut. */
  readonly cutFrom: number | undefined;
  /** Argo CD's end-of-stream marker (also sent with the first line past untilTime). */
  readonly last: boolean;
  /** Whether the whole line (before any cut) matched the schema's matcher; undefined without one. */
  readonly matched: boolean | undefined;
}

/** Go's zero time: what Argo CD stamps its own messages (a pod's log that could not be opened) with. */
const ZERO_TIME = /^0001-01-01T/;

/**
 * One line of GET .../logs: grpc-gateway's `{"result": LogEntry}` (content, timeStamp, timeStampStr, podName,
 * last), its content cut to `maxChars` as it is parsed, after `matches` (a grep) saw the whole line.
 */
export function logLineSchema(maxChars: number, matches?: (content: string) => boolean) {
  return z
    .object({
      result: z.object({
        content: z.string().default(''),
        timeStamp: NullableString,
        timeStampStr: NullableString,
        podName: NullableString,
        last: z.boolean().optional(),
      }),
    })
    .transform(({ result }): LogLine => {
      const time = result.timeStampStr ?? result.timeStamp;
      const long = result.content.length > maxChars;
      return {
        time: time === undefined || ZERO_TIME.test(time) ? undefined : time,
        pod: result.podName === '' ? undefined : result.podName,
        content: long ? `${result.content.slice(0, maxChars - 1)}…` : result.content,
        cutFrom: long ? result.content.length : undefined,
        last: result.last === true,
        matched: matches === undefined ? undefined : matches(result.content),
      };
    });
}

/** GET .../resource: one live object, as a JSON string (Secret values masked by Argo CD). */
export const ResourceManifest = z.object({ manifest: z.string().default('') });

/** GET .../resource/actions (ResourceActionsListResponse). */
export const ResourceActions = z.object({
  actions: z
    .array(z.object({ name: z.string().default(''), disabled: z.boolean().optional(), displayName: z.string().optional() }))
    .nullish(),
});
export type ResourceActions = z.output<typeof ResourceActions>;
