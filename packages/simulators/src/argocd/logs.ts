import { createRng, type Rng } from '../prng.js';
import { type AppFacts, type LogRun, hash32 } from './live.js';
import { iso } from './words.js';

/**
 * Container logs, generated lazily: line i of a run is a pure function of the run's seed and i (its time is a
 * monotone function of i inside the run's window, its text drawn from a seeded sequence), so a log of millions of
 * lines is never built, `tailLines` starts at `lines - n` at once and `sinceSeconds` is a binary search.
 */

/** Bounds of the generated logs, enforced by the options schema and the generator. */
export const LOG_LIMITS = {
  /** Lines a pod that has run for a day or more logs (fewer for a younger one, in proportion). */
  linesPerPodDefault: 3_000,
  /** The most `linesPerPod` (per estate or per application) may ask for. */
  linesPerPodMax: 50_000_000,
  /** The longest line `longLineChars` may ask for (16 MiB). */
  longLineCharsMax: 16 * 1024 * 1024,
  /** Pods one logs request may cover: Argo CD's `server.maxPodLogsToRender` default. */
  podsPerRequest: 10,
  /** How long a `follow=true` stream stays open after the existing lines (then it ends as a finished one does). */
  followMsDefault: 300_000,
  followMsMax: 3_600_000,
} as const;

const DAY_MS = 86_400_000;

/** How many lines of which style a log has, and where its one long line is. */
export interface LogSizing {
  readonly linesPerPod: number;
  readonly longLineChars: number | undefined;
}

/** A run made readable: its line count and style. */
export interface LogSource {
  readonly run: LogRun;
  readonly lines: number;
  readonly style: 'http' | 'worker' | 'envoy';
  readonly facts: AppFacts;
  readonly container: string;
  readonly longLineAt: number | undefined;
  readonly longLineChars: number;
}

/** One log line: its instant (milliseconds plus the nanoseconds below them) and text. */
export interface LogLine {
  readonly ms: number;
  readonly subNs: number;
  readonly text: string;
}

const WORKERS = new Set(['worker', 'consumer', 'scheduler', 'cron', 'ingest', 'indexer', 'exporter', 'migrator', 'reporting']);

export function logSource(run: LogRun, facts: AppFacts, container: string, sizing: LogSizing): LogSource {
  const rng = createRng(run.seed);
  const window = Math.min(DAY_MS, Math.max(1_000, run.end - run.start));
  let lines: number;
  switch (run.kind) {
    case 'steady':
    case 'oom':
      lines = Math.max(run.kind === 'oom' ? 40 : 1, Math.round((sizing.linesPerPod * window) / DAY_MS));
      break;
    case 'crash':
      lines = run.failure === 'crash-config' ? 4 : run.failure === 'panic' ? rng.int(8, 30) + PANIC.length : rng.int(8, 40);
      break;
    case 'job':
      lines = rng.int(20, 120);
      break;
  }
  const style = container === 'istio-proxy' ? 'envoy' : WORKERS.has(facts.service) || run.kind === 'job' ? 'worker' : 'http';
  const long = sizing.longLineChars !== undefined && container !== 'istio-proxy';
  return { run: { ...run, start: Math.max(run.start, run.end - DAY_MS) }, lines, style, facts, container, longLineAt: long ? Math.floor(lines / 2) : undefined, longLineChars: sizing.longLineChars ?? 0 };
}

/** The instant of line `i`: inside slot i of the window, so times never decrease. */
export function timeAt(src: LogSource, i: number): { ms: number; subNs: number } {
  const spanNs = Math.max(0, src.run.end - src.run.start) * 1e6;
  const u = hash32(String(src.run.seed), String(i)) / 4294967296;
  const offsetNs = Math.floor(((i + u) / src.lines) * spanNs);
  return { ms: src.run.start + Math.floor(offsetNs / 1e6), subNs: offsetNs % 1e6 };
}

/** The first line at or after `ms` (a binary search over the monotone times). */
export function firstLineAtOrAfter(src: LogSource, ms: number): number {
  let lo = 0;
  let hi = src.lines;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (timeAt(src, mid).ms < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** RFC 3339 with nanoseconds, trailing zeros dropped (Go's time.RFC3339Nano). */
export function rfc3339Nano(ms: number, subNs: number): string {
  const fraction = `${String(((ms % 1000) + 1000) % 1000).padStart(3, '0')}${String(subNs).padStart(6, '0')}`.replace(/0+$/, '');
  const base = iso(ms);
  return fraction === '' ? base : base.replace('Z', `.${fraction}Z`);
}

const isoMs = (ms: number): string => new Date(ms).toISOString();
const pick = <T>(rng: Rng, items: readonly T[]): T => rng.pick(items);

const PATHS = ['/api/v1/{team}/{id}', '/api/v1/{team}', '/api/v1/{team}/{id}/status', '/api/v2/{team}/search', '/healthz', '/ready', '/metrics'];
const AGENTS = ['okhttp/4.12.0', 'Go-http-client/1.1', 'python-requests/2.32.3', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15'];

function httpLine(src: LogSource, rng: Rng, at: number, level: string): string {
  const { facts } = src;
  const path = pick(rng, PATHS).replace('{team}', facts.team).replace('{id}', rng.hex(8));
  const probe = path === '/healthz' || path === '/ready';
  const status = probe ? 200 : rng.weighted([[200, 80], [201, 6], [204, 4], [304, 3], [400, 3], [404, 3], [500, 1]] as const);
  return JSON.stringify({
    level: probe ? 'debug' : level,
    ts: isoMs(at),
    caller: 'http/server.go:212',
    msg: 'request completed',
    method: probe || rng.next() < 0.7 ? 'GET' : pick(rng, ['POST', 'PUT', 'DELETE']),
    path,
    status,
    duration_ms: Math.round(rng.next() ** 3 * (probe ? 5 : 900) * 10) / 10,
    bytes: probe ? 2 : rng.int(2, 24_000),
    request_id: rng.hex(16),
    remote: `10.${rng.int(20, 220)}.${rng.int(0, 255)}.${rng.int(2, 254)}`,
    user_agent: probe ? 'kube-probe/1.31' : pick(rng, AGENTS),
  });
}

function workerLine(src: LogSource, rng: Rng, at: number): string {
  const { facts } = src;
  const queue = `${facts.team}-${pick(rng, ['events', 'jobs', 'outbox', 'ledger'])}`;
  const roll = rng.next();
  if (roll < 0.7) return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'worker/loop.go:97', msg: 'message processed', queue, message_id: rng.hex(12), duration_ms: Math.round(rng.next() ** 2 * 2_000) });
  if (roll < 0.9) return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'worker/batch.go:54', msg: 'batch committed', queue, size: rng.int(1, 500), lag: rng.int(0, 2_000) });
  if (roll < 0.98) return JSON.stringify({ level: 'warn', ts: isoMs(at), caller: 'worker/loop.go:131', msg: 'message redelivered', queue, message_id: rng.hex(12), attempt: rng.int(2, 5) });
  return JSON.stringify({ level: 'error', ts: isoMs(at), caller: 'worker/loop.go:140', msg: 'message moved to dead-letter queue', queue, message_id: rng.hex(12), error: 'validation failed: amount must be positive' });
}

function envoyLine(src: LogSource, rng: Rng, at: number): string {
  const { facts } = src;
  const path = pick(rng, PATHS).replace('{team}', facts.team).replace('{id}', rng.hex(8));
  const status = rng.weighted([[200, 90], [404, 4], [503, 2], [504, 1], [201, 3]] as const);
  const flags = status === 503 ? 'UF' : status === 504 ? 'UT' : '-';
  const host = `${facts.team}-${facts.service}.${facts.namespace}.svc.cluster.local`;
  const ms = rng.int(1, 400);
  return `[${isoMs(at)}] "${rng.next() < 0.8 ? 'GET' : 'POST'} ${path} HTTP/1.1" ${status} ${flags} via_upstream - "-" ${rng.int(0, 900)} ${rng.int(2, 24_000)} ${ms} ${Math.max(0, ms - 1)} "-" "${pick(rng, AGENTS)}" "${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}" "${host}" "10.${rng.int(20, 220)}.${rng.int(0, 255)}.${rng.int(2, 254)}:8080" inbound|8080|| 127.0.0.6:${rng.int(30_000, 60_000)} 10.${rng.int(20, 220)}.${rng.int(0, 255)}.${rng.int(2, 254)}:8080 10.${rng.int(20, 220)}.${rng.int(0, 255)}.${rng.int(2, 254)}:${rng.int(30_000, 60_000)} outbound_.80_._.${host} default`;
}

const PANIC = [
  'panic: runtime error: invalid memory address or nil pointer dereference',
  '[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x9c4f2e]',
  '',
  'goroutine 214 [running]:',
  'github.com/example/{repo}/internal/ledger.(*Client).Balance(0x0, {0x1d3c4e0, 0xc000a12c30}, {0xc0004b2f00, 0x24})',
  '\t/src/internal/ledger/client.go:88 +0x2e',
  'github.com/example/{repo}/internal/api.(*Handler).getBalance(0xc0001a6000, {0x1d3b7a8, 0xc000b1e2a0}, 0xc000a3c100)',
  '\t/src/internal/api/balance.go:41 +0x1a5',
  'net/http.HandlerFunc.ServeHTTP(0xc000a3c000?, {0x1d3b7a8?, 0xc000b1e2a0?}, 0x0?)',
  '\t/usr/local/go/src/net/http/server.go:2220 +0x29',
  'net/http.serverHandler.ServeHTTP({0xc000b10f30?}, {0x1d3b7a8?, 0xc000b1e2a0?}, 0x6?)',
  '\t/usr/local/go/src/net/http/server.go:3210 +0x8e',
  'net/http.(*conn).serve(0xc000a0e1b0, {0x1d3d6f8, 0xc0002e5e60})',
  '\t/usr/local/go/src/net/http/server.go:2092 +0x5d0',
  'created by net/http.(*Server).Serve in goroutine 1',
  '\t/usr/local/go/src/net/http/server.go:3360 +0x485',
];

/** The first lines every run of the application's container starts with. */
function startupLine(src: LogSource, i: number, at: number): string | undefined {
  const { facts } = src;
  switch (i) {
    case 0:
      return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'cmd/main.go:41', msg: `starting ${facts.team}-${facts.service}`, version: facts.tag, commit: facts.revision.slice(0, 7), go: 'go1.24.6' });
    case 1:
      return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'config/load.go:77', msg: 'configuration loaded', env: facts.env, log_level: 'info', port: 8080 });
    case 2:
      return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'telemetry/otel.go:33', msg: 'tracing enabled', exporter: 'otlp', endpoint: 'otel-collector.observability.svc.cluster.local:4317' });
    default:
      return undefined;
  }
}

/** A crashing run: startup, then what kills it (the last line says why). */
function crashLine(src: LogSource, rng: Rng, i: number, at: number): string {
  const { facts } = src;
  const n = src.lines;
  const dbHost = `${facts.team}-db.${facts.namespace}.svc.cluster.local`;
  const dbIp = `10.96.${hash32(dbHost) % 250}.${(hash32(dbHost, 'ip') % 250) + 2}`;
  if (src.run.failure === 'crash-config') {
    if (i < n - 2) return startupLine(src, Math.min(i, 1), at) ?? '';
    if (i === n - 2) return JSON.stringify({ level: 'error', ts: isoMs(at), caller: 'config/load.go:112', msg: 'required environment variable not set', name: 'DATABASE_URL' });
    return 'Error: invalid configuration: missing env DATABASE_URL';
  }
  if (src.run.failure === 'panic') {
    const panicAt = n - PANIC.length;
    if (i >= panicAt) return (PANIC[i - panicAt] ?? '').replace('{repo}', `${facts.team}-${facts.service}`);
    return startupLine(src, i, at) ?? httpLine(src, rng, at, 'info');
  }
  // crash-db: retries, then the fatal line.
  const startup = startupLine(src, i, at);
  if (startup !== undefined) return startup;
  if (i === 3) return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'db/pool.go:58', msg: 'connecting to database', host: dbHost, port: 5432, database: facts.team });
  const refused = `dial tcp ${dbIp}:5432: connect: connection refused`;
  if (i === n - 1) return JSON.stringify({ level: 'fatal', ts: isoMs(at), caller: 'cmd/main.go:64', msg: 'could not connect to database', host: `${dbHost}:5432`, attempts: n - 5, error: `failed to connect to \`host=${dbHost} user=${facts.team} database=${facts.team}\`: dial error (${refused})` });
  return JSON.stringify({ level: 'warn', ts: isoMs(at), caller: 'db/pool.go:71', msg: 'database not ready, retrying', attempt: i - 3, max_attempts: n - 5, backoff: '2s', error: refused });
}

/** Lines of a long-running container, with the symptoms of its failure mode mixed in. */
function steadyLine(src: LogSource, rng: Rng, i: number, at: number): string {
  const { facts } = src;
  if (src.style === 'envoy') return envoyLine(src, rng, at);
  if (i < 3 && src.run.kind !== 'job') return startupLine(src, i, at) ?? '';
  if (src.run.kind === 'oom') {
    const limit = 512;
    if (i === src.lines - 1) return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'report/build.go:203', msg: 'loading report batch', rows: 250_000, batch: rng.int(40, 90) });
    if (i % 25 === 0) {
      const rss = Math.round(limit * (0.35 + 0.64 * (i / src.lines)));
      return JSON.stringify({ level: rss > limit * 0.85 ? 'warn' : 'info', ts: isoMs(at), caller: 'runtime/memwatch.go:29', msg: rss > limit * 0.85 ? 'memory usage above 85% of limit' : 'memory usage', rss_mb: rss, limit_mb: limit, goroutines: rng.int(40, 400) });
    }
  }
  if (src.run.failure === 'readiness' && rng.next() < 0.15) {
    return JSON.stringify({ level: 'error', ts: isoMs(at), caller: 'health/ready.go:48', msg: 'readiness check failed', check: 'redis', addr: `${facts.team}-redis.${facts.namespace}.svc.cluster.local:6379`, error: `dial tcp 10.96.${hash32(facts.team) % 250}.41:6379: i/o timeout` });
  }
  if (src.run.kind === 'job') {
    if (i === 0) return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'cmd/cron.go:22', msg: 'cron job started', job: src.container, version: facts.tag });
    if (i === src.lines - 1) return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'cmd/cron.go:58', msg: 'cron job finished', processed: rng.int(100, 90_000), failed: 0 });
    return workerLine(src, rng, at);
  }
  const roll = rng.next();
  if (roll < 0.02) return JSON.stringify({ level: 'warn', ts: isoMs(at), caller: 'db/query.go:140', msg: 'slow query', query: `SELECT id, status, amount FROM ${facts.team} WHERE account_id = $1 ORDER BY created_at DESC LIMIT 50`, duration_ms: rng.int(500, 4_000) });
  if (roll < 0.025) return JSON.stringify({ level: 'error', ts: isoMs(at), caller: 'client/retry.go:88', msg: 'upstream request failed', upstream: `http://${pick(rng, ['checkout', 'identity', 'pricing', 'ledger'])}-api`, error: 'context deadline exceeded', attempt: rng.int(1, 3) });
  if (roll < 0.05) return JSON.stringify({ level: 'info', ts: isoMs(at), caller: 'cache/refresh.go:88', msg: 'cache refreshed', entries: rng.int(100, 20_000), duration_ms: rng.int(5, 400) });
  return src.style === 'worker' ? workerLine(src, rng, at) : httpLine(src, rng, at, 'info');
}

/** A line of exactly `chars` characters (a large response body logged at debug level). */
function longLine(src: LogSource, at: number): string {
  const head = `{"level":"debug","ts":"${isoMs(at)}","caller":"http/client.go:301","msg":"upstream response body","body":"`;
  const tail = '"}';
  const room = Math.max(0, src.longLineChars - head.length - tail.length);
  const block = 'eyJpZCI6IjdmM2E5YyIsInN0YXR1cyI6InNldHRsZWQiLCJhbW91bnQiOjEyMy40NX0';
  return `${head}${block.repeat(Math.ceil(room / block.length)).slice(0, room)}${tail}`;
}

/** Line `i` of a log (0 <= i < lines). */
export function lineAt(src: LogSource, i: number): LogLine {
  const { ms, subNs } = timeAt(src, i);
  if (i === src.longLineAt) return { ms, subNs, text: longLine(src, ms) };
  const rng = createRng(hash32(String(src.run.seed), 'line', String(i)));
  const text = src.run.kind === 'crash' && src.style !== 'envoy' ? crashLine(src, rng, i, ms) : steadyLine(src, rng, i, ms);
  return { ms, subNs, text };
}
