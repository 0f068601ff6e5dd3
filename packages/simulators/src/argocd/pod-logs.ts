import type { Request, Response } from 'express';
import { GrpcCode, GrpcError, goJson, setGatewayHeaders } from './grpc.js';
import { type TreeNode, buildTree } from './live.js';
import { LOG_LIMITS, type LogLine, type LogSource, firstLineAtOrAfter, lineAt, logSource, rfc3339Nano, timeAt } from './logs.js';
import { type LiveContext, requestedApp } from './resources.js';
import { type RouteContext, first } from './routes.js';
import { write } from './stream.js';
import { iso } from './words.js';

/**
 * GET /api/v1/applications/{name}/logs and /api/v1/applications/{name}/pods/{podName}/logs (PodLogs): the logs
 * of the application's pods, streamed as grpc-gateway streams a server-streaming RPC: one
 * `{"result":LogEntry}` object per line, then `{"result":{...,"last":true}}`. Argo CD's semantics, from
 * server/application/application.go: `podName` alone means kind Pod and that name; otherwise every pod whose
 * own or ancestor's kind, group, name (`resourceName`) and namespace match (all empty: every pod); more than
 * `LOG_LIMITS.podsPerRequest` pods is InvalidArgument; `tailLines`, `sinceSeconds`, `sinceTime` and `previous`
 * apply per pod (as the Kubernetes log API does); the pods' lines are merged by time; `filter` is a substring
 * (a leading "!" negates, case-insensitive unless `matchCase`); the first line after `untilTime` is sent with
 * `last: true` and ends the stream. A pod whose log cannot be read contributes one line with the Kubernetes
 * error as content and no time, as Argo CD does. No pod matching: an empty 200 body (no entry at all).
 *
 * `follow=true`: the existing lines, then the stream stays open (nothing new is generated: the estate's clock
 * does not move) until the client goes away or `logs.followMs` passes, then the final entry. Lines are generated
 * one at a time into 64 KiB writes that wait for the socket to drain, and generation stops when the client goes.
 */

/** Bytes gathered before one write. */
const CHUNK = 64 * 1024;
/** Lines examined without a write before yielding to the event loop (a filter that matches nothing). */
const YIELD_EVERY = 2_000;

/** grpc-gateway's query parsing of an int64 (strconv.ParseInt(value, 0, 64)): InvalidArgument when it is not one. */
function int64(req: Request, name: string): number | undefined {
  const value = first(req, name);
  if (value === undefined) return undefined;
  const match = /^([+-]?)(0x[0-9a-f]+|0o[0-7]+|0b[01]+|0[0-7]*|[1-9][0-9]*)$/i.exec(value);
  if (match === null) throw new GrpcError(GrpcCode.InvalidArgument, `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const digits = match[2] ?? '0';
  const magnitude = /^0[0-7]+$/.test(digits) ? Number.parseInt(digits.slice(1), 8) : Number(digits.replace(/^0o/i, '0o'));
  if (!Number.isSafeInteger(magnitude)) throw new GrpcError(GrpcCode.InvalidArgument, `strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  return match[1] === '-' ? -magnitude : magnitude;
}

/** grpc-gateway's query parsing of a bool (strconv.ParseBool). */
function bool(req: Request, name: string): boolean {
  const value = first(req, name);
  if (value === undefined) return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new GrpcError(GrpcCode.InvalidArgument, `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

const RFC3339_NANO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;

/** `untilTime`, parsed as Go's time.Parse(time.RFC3339Nano): a plain error (gRPC Unknown) when it is not one. */
function untilTimeOf(req: Request): { ms: number; subNs: number } | undefined {
  const value = first(req, 'untilTime');
  if (value === undefined) return undefined;
  const match = RFC3339_NANO.exec(value);
  const ms = match === null ? NaN : Date.parse(`${match[1] ?? ''}${match[3] ?? 'Z'}`);
  if (match === null || !Number.isFinite(ms)) {
    // Unconfirmed: Go's wording names the first element it could not parse; this names the year.
    throw new GrpcError(GrpcCode.Unknown, `invalid untilTime parameter value: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.999999999Z07:00": cannot parse ${JSON.stringify(value)} as "2006"`);
  }
  const fraction = (match[2] ?? '.').slice(1).padEnd(9, '0');
  return { ms: ms + Number(fraction.slice(0, 3)), subNs: Number(fraction.slice(3)) };
}

/** getSelectedPods: pods whose own or an ancestor's fields match the query (each empty field matches all). */
function selectedPods(tree: readonly TreeNode[], q: { kind: string; group: string; name: string; namespace: string }): TreeNode[] {
  const matches = (n: TreeNode | undefined): boolean => {
    if (n === undefined) return false;
    if ((q.name === '' || n.name === q.name) && (q.kind === '' || n.kind === q.kind) && (q.group === '' || n.group === q.group) && (q.namespace === '' || n.namespace === q.namespace)) return true;
    return matches(n.parent);
  };
  return tree.filter((n) => n.kind === 'Pod' && n.group === '' && n.uid !== '' && matches(n));
}

/** One pod's contribution: a range of its log, or the one error line the Kubernetes API answered with. */
interface PodStream {
  readonly podName: string;
  readonly source: LogSource | undefined;
  readonly error: string | undefined;
  index: number;
  headMs: number;
  headSubNs: number;
}

interface LogQuery {
  readonly container: string | undefined;
  readonly previous: boolean;
  readonly sinceMs: number | undefined;
  readonly bothSince: boolean;
  readonly tailLines: number | undefined;
}

function podStream(pod: TreeNode, q: LogQuery, ctxLogs: LiveContext['logs'], facts: Parameters<typeof logSource>[1]): PodStream {
  const fail = (error: string): PodStream => ({ podName: pod.name, source: undefined, error, index: 0, headMs: -Infinity, headSubNs: 0 });
  if (pod.detail.type !== 'Pod') return fail(`pods "${pod.name}" not found`);
  // Unconfirmed: the API server's exact wording for both since options at once.
  if (q.bothSince) return fail(`PodLogOptions "${pod.name}" is invalid: sinceTime: Forbidden: at most one of \`sinceTime\` or \`sinceSeconds\` may be specified`);
  const containers = pod.detail.pod.containers;
  let container = containers[0];
  if (q.container !== undefined) {
    container = containers.find((c) => c.name === q.container);
    if (container === undefined) return fail(`container ${q.container} is not valid for pod ${pod.name}`);
  } else if (containers.length > 1) {
    return fail(`a container name must be specified for pod ${pod.name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`);
  }
  if (container === undefined) return fail(`pod ${pod.name} has no containers`);
  const run = q.previous ? container.previousRun : container.run;
  if (run === undefined) {
    return fail(q.previous ? `previous terminated container "${container.name}" in pod "${pod.name}" not found` : (container.logError ?? `container "${container.name}" in pod "${pod.name}" is waiting to start: ContainerCreating`));
  }
  const app = ctxLogs.apps[facts.app.metadata.name];
  const source = logSource(run, facts, container.name, { linesPerPod: app?.linesPerPod ?? ctxLogs.linesPerPod, longLineChars: app?.longLineChars });
  let index = q.sinceMs === undefined ? 0 : firstLineAtOrAfter(source, q.sinceMs);
  if (q.tailLines !== undefined) index = Math.max(index, source.lines - q.tailLines);
  const stream: PodStream = { podName: pod.name, source, error: undefined, index, headMs: 0, headSubNs: 0 };
  advanceHead(stream);
  return stream;
}

function advanceHead(s: PodStream): void {
  if (s.source === undefined || s.index >= s.source.lines) {
    s.headMs = Infinity;
    return;
  }
  const t = timeAt(s.source, s.index);
  s.headMs = t.ms;
  s.headSubNs = t.subNs;
}

/** LogEntry as Argo CD's JSON marshaller writes it (field order of the proto message; a zero time is null). */
function entryJson(content: string, at: { ms: number; subNs: number } | undefined, podName: string, last: boolean): string {
  const stamp = at === undefined ? 'null' : `"${iso(at.ms)}"`;
  const stampStr = at === undefined ? '0001-01-01T00:00:00Z' : rfc3339Nano(at.ms, at.subNs);
  return `{"result":{"content":${goJson(content)},"timeStamp":${stamp},"last":${last},"timeStampStr":"${stampStr}","podName":${goJson(podName)}}}\n`;
}

const after = (a: { ms: number; subNs: number }, b: { ms: number; subNs: number }): boolean => a.ms > b.ms || (a.ms === b.ms && a.subNs > b.subNs);

/** Handles both logs routes. */
export async function podLogs(req: Request, res: Response, ctx: RouteContext, live: LiveContext): Promise<void> {
  const podName = typeof req.params.podName === 'string' ? req.params.podName : first(req, 'podName');
  // Parse everything before any byte goes out: a bad parameter is an ordinary error answer.
  const sinceSeconds = int64(req, 'sinceSeconds');
  const sinceTimeSeconds = int64(req, 'sinceTime.seconds');
  const sinceTimeNanos = int64(req, 'sinceTime.nanos');
  const tailLines = int64(req, 'tailLines');
  const follow = bool(req, 'follow');
  const previous = bool(req, 'previous');
  const matchCase = bool(req, 'matchCase');
  const untilTime = untilTimeOf(req);
  const rawFilter = typeof req.query.filter === 'string' ? req.query.filter : undefined;
  const { facts } = requestedApp(req, ctx, live);

  const inverse = rawFilter?.startsWith('!') === true;
  const literal = rawFilter === undefined ? undefined : inverse ? rawFilter.slice(1) : rawFilter;
  const needle = literal === undefined ? undefined : matchCase ? literal : literal.toLowerCase();

  const tree = buildTree(facts);
  const query = podName !== undefined ? { kind: 'Pod', group: first(req, 'group') ?? '', name: podName, namespace: first(req, 'namespace') ?? '' } : { kind: first(req, 'kind') ?? '', group: first(req, 'group') ?? '', name: first(req, 'resourceName') ?? '', namespace: first(req, 'namespace') ?? '' };
  const pods = selectedPods(tree, query);
  setGatewayHeaders(res);
  if (pods.length === 0) {
    res.status(200).end();
    return;
  }
  if (pods.length > LOG_LIMITS.podsPerRequest) throw new GrpcError(GrpcCode.InvalidArgument, 'max pods to view logs are reached. Please provide more granular query');
  if (req.method === 'HEAD') {
    // Node sends no body for HEAD: generating one would be work without backpressure.
    res.status(200).end();
    return;
  }

  const sinceMs = sinceSeconds !== undefined && sinceSeconds > 0 ? live.now - sinceSeconds * 1000 : sinceTimeSeconds !== undefined ? sinceTimeSeconds * 1000 + Math.floor((sinceTimeNanos ?? 0) / 1e6) : undefined;
  const logQuery: LogQuery = {
    container: first(req, 'container'),
    previous,
    sinceMs,
    bothSince: sinceSeconds !== undefined && sinceSeconds > 0 && sinceTimeSeconds !== undefined,
    tailLines: tailLines !== undefined && tailLines > 0 ? tailLines : undefined,
  };
  const streams = pods.map((pod) => podStream(pod, logQuery, live.logs, facts));

  const { counters } = live;
  counters.logStreamsOpen += 1;
  let gone = false;
  const onClose = (): void => {
    gone = true;
  };
  res.on('close', onClose);
  const onWait = (waiting: boolean): void => {
    counters.logStreamsWaiting += waiting ? 1 : -1;
  };
  try {
    res.status(200);
    let pending = '';
    let examined = 0;
    const flush = async (): Promise<boolean> => {
      const chunk = pending;
      pending = '';
      examined = 0;
      return chunk === '' || write(res, chunk, onWait);
    };
    for (;;) {
      if (gone || res.destroyed) return;
      let best: PodStream | undefined;
      for (const s of streams) {
        if (s.headMs === Infinity) continue;
        if (best === undefined || s.headMs < best.headMs || (s.headMs === best.headMs && s.headSubNs < best.headSubNs)) best = s;
      }
      if (best === undefined) break;
      let line: LogLine | undefined;
      let podOfLine = best.podName;
      if (best.error !== undefined) {
        // The Kubernetes error as a line of its own: no time, no pod name (a logEntry with only `line` set).
        line = undefined;
        podOfLine = '';
        best.headMs = Infinity;
      } else if (best.source !== undefined) {
        line = lineAt(best.source, best.index);
        counters.logLinesGenerated += 1;
        best.index += 1;
        advanceHead(best);
      }
      const content = line === undefined ? (best.error ?? '') : line.text;
      examined += 1;
      if (needle !== undefined) {
        const contains = (matchCase ? content : content.toLowerCase()).includes(needle);
        if (contains === inverse) {
          if (examined >= YIELD_EVERY) {
            examined = 0;
            await new Promise<void>((resolve) => setImmediate(resolve));
          }
          continue;
        }
      }
      const at = line === undefined ? undefined : { ms: line.ms, subNs: line.subNs };
      if (at !== undefined && untilTime !== undefined && after(at, untilTime)) {
        pending += entryJson(content, at, podOfLine, true);
        if (!(await flush())) return;
        res.end();
        return;
      }
      pending += entryJson(content, at, podOfLine, false);
      if (pending.length >= CHUNK || examined >= YIELD_EVERY) {
        if (!(await flush())) return;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    if (!(await flush())) return;
    if (follow) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, live.logs.followMs);
        timer.unref();
        res.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (gone || res.destroyed) return;
    }
    res.end(entryJson('', { ms: live.now, subNs: 0 }, '', true));
  } finally {
    res.off('close', onClose);
    counters.logStreamsOpen -= 1;
  }
}
