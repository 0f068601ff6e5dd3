import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { generateArgoEstate } from './data.js';
import { type TreeNode, appFacts, buildTree } from './live.js';
import { LOG_LIMITS } from './logs.js';
import { createArgoCdApp, startArgoCdSimulator, type RunningSimulator } from './server.js';
import type { ArgoApplication } from './types.js';
import { ARGO_ESTATE_EPOCH } from './words.js';

const TOKEN = 'sim-test-token';
const estate = generateArgoEstate();
const DEMO = 'payments-api-prod';
const HUGE_LINES = 2_000_000;
const LONG_CHARS = 1_000_000;

const treeOf = (a: ArgoApplication): TreeNode[] => buildTree(appFacts(a, ARGO_ESTATE_EPOCH));
const podsOf = (a: ArgoApplication): TreeNode[] => treeOf(a).filter((n) => n.kind === 'Pod');
const pod = (p: TreeNode) => (p.detail.type === 'Pod' ? p.detail.pod : undefined);
/** A running, ready pod of a Deployment that has run for more than a day (its log holds `linesPerPod` lines). */
const longRunning = (a: ArgoApplication): TreeNode | undefined =>
  podsOf(a).find((p) => p.parent?.kind === 'ReplicaSet' && pod(p)?.containers.length === 1 && pod(p)?.containers.every((c) => c.ready && c.restartCount === 0 && c.run !== undefined && c.run.end - c.run.start > 86_400_000) === true);
const healthyApps = estate.applications.filter((a) => a.status.health.status === 'Healthy' && a.metadata.name !== DEMO);
const HUGE = healthyApps.find((a) => longRunning(a) !== undefined) as ArgoApplication;
const LONG = healthyApps.find((a) => a !== HUGE && longRunning(a) !== undefined) as ArgoApplication;
const SIDECAR = healthyApps.find((a) => a.status.summary.images?.some((i) => i.includes('istio')) === true && podsOf(a).some((p) => p.parent?.kind === 'ReplicaSet')) as ArgoApplication;
const CROWDED = estate.applications.find((a) => podsOf(a).length > LOG_LIMITS.podsPerRequest) as ArgoApplication;

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: TOKEN, estate, logs: { apps: { [HUGE.metadata.name]: { linesPerPod: HUGE_LINES }, [LONG.metadata.name]: { longLineChars: LONG_CHARS } } } });
});
afterAll(async () => sim.close());

interface Entry {
  content: string;
  timeStamp: string | null;
  last: boolean;
  timeStampStr: string;
  podName: string;
}
interface Answer {
  status: number;
  text: string;
  entries: Entry[];
  body: Record<string, unknown>;
}

async function logs(app: string, query: string, target: RunningSimulator = sim): Promise<Answer> {
  const response = await fetch(`${target.url}/api/v1/applications/${app}/logs?${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await response.text();
  const ok = response.status === 200;
  return {
    status: response.status,
    text,
    entries: ok ? text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { result: Entry }).result) : [],
    body: ok || text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
  };
}
const lines = (a: Answer): Entry[] => a.entries.filter((e) => !e.last);
const demoPods = podsOf(estate.applications.find((a) => a.metadata.name === DEMO) as ArgoApplication);
const crashing = demoPods.find((p) => pod(p)?.containers[0]?.restartCount !== undefined && (pod(p)?.containers[0]?.restartCount ?? 0) > 100) as TreeNode;
const healthyDemo = demoPods.find((p) => p.parent?.kind === 'ReplicaSet' && p.health?.status === 'Healthy') as TreeNode;

/** Waits for a condition the server reaches (polled; the test's own timeout bounds it). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('GET /api/v1/applications/{name}/logs: the stream', () => {
  it('streams {"result":LogEntry} lines in time order, then a final entry with last: true', async () => {
    const answer = await logs(DEMO, `podName=${healthyDemo.name}&tailLines=5`);
    expect(answer.status).toBe(200);
    expect(answer.entries).toHaveLength(6);
    for (const e of lines(answer)) {
      expect(Object.keys(e)).toEqual(['content', 'timeStamp', 'last', 'timeStampStr', 'podName']);
      expect(e).toMatchObject({ last: false, podName: healthyDemo.name });
      expect(e.timeStampStr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
      expect(e.timeStamp).toBe(`${e.timeStampStr.slice(0, 19)}Z`);
      expect(() => JSON.parse(e.content) as unknown).not.toThrow();
    }
    const times = lines(answer).map((e) => e.timeStampStr);
    expect(times).toEqual([...times].sort());
    expect(answer.entries.at(-1)).toEqual({ content: '', timeStamp: '2025-11-20T09:30:00Z', last: true, timeStampStr: '2025-11-20T09:30:00Z', podName: '' });
    expect(answer.text.split('\n').every((l) => l === '' || l.startsWith('{"result":{"content":'))).toBe(true);
  });

  it("tells what is wrong with the demo application: its crashing pod's log ends with the missing DATABASE_URL", async () => {
    const answer = await logs(DEMO, `podName=${crashing.name}`);
    const contents = lines(answer).map((e) => e.content);
    expect(contents.at(-1)).toBe('Error: invalid configuration: missing env DATABASE_URL');
    expect(contents.some((c) => c.includes('"msg":"starting payments-api"'))).toBe(true);
  });

  it('applies tailLines per pod, and kind + resourceName select every pod of a workload', async () => {
    const deploymentPods = demoPods.filter((p) => p.parent?.parent?.kind === 'Deployment' && p.parent.parent.name === 'payments-api');
    const answer = await logs(DEMO, 'kind=Deployment&resourceName=payments-api&group=apps&tailLines=3');
    expect(new Set(lines(answer).map((e) => e.podName))).toEqual(new Set(deploymentPods.map((p) => p.name)));
    for (const p of deploymentPods) expect(lines(answer).filter((e) => e.podName === p.name)).toHaveLength(3);
    const times = lines(answer).map((e) => e.timeStampStr);
    expect(times).toEqual([...times].sort());
    // Without a selection: every pod of the application (fewer than the limit here).
    expect(new Set(lines(await logs(DEMO, 'tailLines=1')).map((e) => e.podName)).size).toBe(demoPods.length);
  });

  it('keeps only the lines of the last sinceSeconds before the estate\'s "now"', async () => {
    const all = lines(await logs(DEMO, `podName=${healthyDemo.name}`));
    expect(all.length).toBeGreaterThan(1_000);
    const recent = lines(await logs(DEMO, `podName=${healthyDemo.name}&sinceSeconds=3600`));
    const cutoff = ARGO_ESTATE_EPOCH - 3_600_000;
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.every((e) => Date.parse(e.timeStampStr) >= cutoff)).toBe(true);
    expect(recent).toEqual(all.filter((e) => Date.parse(e.timeStampStr) >= cutoff));
    const sinceTime = lines(await logs(DEMO, `podName=${healthyDemo.name}&sinceTime.seconds=${cutoff / 1000}`));
    expect(sinceTime).toEqual(recent);
  });

  it('filters by substring, case-insensitively unless matchCase, and a leading "!" negates', async () => {
    const base = `podName=${crashing.name}`;
    const all = lines(await logs(DEMO, base));
    expect(lines(await logs(DEMO, `${base}&filter=DATABASE_URL`)).map((e) => e.content)).toEqual(all.filter((e) => e.content.includes('DATABASE_URL')).map((e) => e.content));
    expect(lines(await logs(DEMO, `${base}&filter=database_url`))).toHaveLength(2);
    expect(lines(await logs(DEMO, `${base}&filter=database_url&matchCase=true`))).toHaveLength(0);
    const negated = lines(await logs(DEMO, `${base}&filter=${encodeURIComponent('!DATABASE_URL')}`));
    expect(negated.length).toBe(all.length - 2);
    expect(negated.some((e) => e.content.includes('DATABASE_URL'))).toBe(false);
  });

  it('ends at untilTime: the first line after it goes out with last: true and nothing follows', async () => {
    const tail = lines(await logs(DEMO, `podName=${healthyDemo.name}&tailLines=10`));
    const until = (tail[4] as Entry).timeStampStr;
    const answer = await logs(DEMO, `podName=${healthyDemo.name}&tailLines=10&untilTime=${encodeURIComponent(until)}`);
    expect(answer.entries).toHaveLength(6);
    expect(answer.entries.at(-1)).toEqual({ ...tail[5], last: true });
  });

  it('gives the previous container, or the Kubernetes error as a line without time or pod when there is none', async () => {
    const previous = lines(await logs(DEMO, `podName=${crashing.name}&previous=true`));
    expect(previous.at(-1)?.content).toBe('Error: invalid configuration: missing env DATABASE_URL');
    expect(Date.parse(previous.at(-1)?.timeStampStr ?? '')).toBeLessThan(Date.parse(lines(await logs(DEMO, `podName=${crashing.name}`))[0]?.timeStampStr ?? ''));
    const none = await logs(DEMO, `podName=${healthyDemo.name}&previous=true`);
    expect(none.entries[0]).toEqual({ content: `previous terminated container "api" in pod "${healthyDemo.name}" not found`, timeStamp: null, last: false, timeStampStr: '0001-01-01T00:00:00Z', podName: '' });
    expect(none.entries.at(-1)?.last).toBe(true);
  });

  it('asks for a container when a pod has several, and reads the one named', async () => {
    const p = podsOf(SIDECAR).find((n) => n.parent?.kind === 'ReplicaSet') as TreeNode;
    const service = SIDECAR.metadata.labels?.['app.kubernetes.io/name'] ?? '';
    expect(lines(await logs(SIDECAR.metadata.name, `podName=${p.name}`))[0]?.content).toBe(`a container name must be specified for pod ${p.name}, choose one of: [${service} istio-proxy]`);
    const envoy = lines(await logs(SIDECAR.metadata.name, `podName=${p.name}&container=istio-proxy&tailLines=3`));
    expect(envoy).toHaveLength(3);
    expect(envoy.every((e) => /^\[\d{4}-.*\] "(GET|POST) \/.* HTTP\/1\.1" \d{3} /.test(e.content))).toBe(true);
    expect(lines(await logs(SIDECAR.metadata.name, `podName=${p.name}&container=nope`))[0]?.content).toBe(`container nope is not valid for pod ${p.name}`);
  });

  it('answers no matching pod with an empty 200 body, more pods than the limit with InvalidArgument, bad parameters as grpc-gateway does', async () => {
    const empty = await logs(DEMO, 'kind=Deployment&resourceName=nope');
    expect([empty.status, empty.text]).toEqual([200, '']);
    const crowded = await logs(CROWDED.metadata.name, '');
    expect(crowded.status).toBe(400);
    expect(crowded.body).toEqual({ error: 'max pods to view logs are reached. Please provide more granular query', code: 3, message: 'max pods to view logs are reached. Please provide more granular query' });
    expect((await logs(DEMO, 'tailLines=abc')).body).toMatchObject({ code: 3, message: 'strconv.ParseInt: parsing "abc": invalid syntax' });
    expect((await logs(DEMO, 'follow=yes')).body).toMatchObject({ code: 3, message: 'strconv.ParseBool: parsing "yes": invalid syntax' });
    const until = await logs(DEMO, 'untilTime=yesterday');
    expect(until.status).toBe(500);
    expect(until.body).toMatchObject({ code: 2, message: expect.stringMatching(/^invalid untilTime parameter value: parsing time "yesterday"/) as unknown });
    expect((await logs('nope', '')).status).toBe(403);
  });

  it('serves the same lines on the pods/{podName}/logs route', async () => {
    const response = await fetch(`${sim.url}/api/v1/applications/${DEMO}/pods/${crashing.name}/logs?tailLines=2`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(await response.text()).toBe((await logs(DEMO, `podName=${crashing.name}&tailLines=2`)).text);
  });
});

describe('logs that must not be held: follow, a huge log, a long line', () => {
  it('follow=true sends what exists, stays open while the client listens, and lets go when it leaves', async () => {
    const abort = new AbortController();
    const response = await fetch(`${sim.url}/api/v1/applications/${DEMO}/logs?podName=${healthyDemo.name}&tailLines=2&follow=true`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: abort.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (text.split('\n').length < 3) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { result: Entry }).result.last)).toEqual([false, false]);
    expect(sim.stats().logStreamsOpen).toBe(1);
    abort.abort();
    await until(() => sim.stats().logStreamsOpen === 0);
  });

  it('ends a follow stream with the final entry once logs.followMs has passed', async () => {
    const short = await startArgoCdSimulator({ token: TOKEN, estate, logs: { followMs: 20 } });
    try {
      const answer = await logs(DEMO, `podName=${healthyDemo.name}&tailLines=2&follow=true`, short);
      expect(answer.entries.map((e) => e.last)).toEqual([false, false, true]);
    } finally {
      await short.close();
    }
  });

  it('generates only the lines asked for: tailLines and sinceSeconds of a 2,000,000-line log cost what they return', async () => {
    const huge = longRunning(HUGE) as TreeNode;
    const before = sim.stats().logLinesGenerated;
    const tail = await logs(HUGE.metadata.name, `podName=${huge.name}&tailLines=5`);
    expect(lines(tail)).toHaveLength(5);
    expect(sim.stats().logLinesGenerated - before).toBe(5);
    const recent = await logs(HUGE.metadata.name, `podName=${huge.name}&sinceSeconds=60`);
    expect(lines(recent).length).toBeGreaterThan(HUGE_LINES / 1_440 / 2);
    expect(sim.stats().logLinesGenerated - before - 5).toBe(lines(recent).length);
  });

  it('streams a 2,000,000-line log with backpressure: a client that stops reading holds the generator, one that leaves stops it', async () => {
    const huge = longRunning(HUGE) as TreeNode;
    const before = sim.stats().logLinesGenerated;
    const rssBefore = process.memoryUsage().rss;
    const req = request(`${sim.url}/api/v1/applications/${HUGE.metadata.name}/logs?podName=${huge.name}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', resolve);
      req.on('error', reject);
      req.end();
    });
    req.on('error', () => undefined);
    const first = await new Promise<Buffer>((resolve) => response.once('data', resolve));
    response.pause();
    expect(first.toString()).toMatch(/^\{"result":\{"content":/);
    // The server fills the socket, then waits for it to drain: generation stops far short of the log.
    await until(() => sim.stats().logStreamsWaiting === 1);
    const held = sim.stats().logLinesGenerated - before;
    process.stdout.write(`lines generated while the client stopped reading: ${held} of ${HUGE_LINES}\n`);
    expect(held).toBeLessThan(HUGE_LINES / 10);
    req.destroy();
    await until(() => sim.stats().logStreamsOpen === 0);
    expect(sim.stats().logStreamsWaiting).toBe(0);
    expect(sim.stats().logLinesGenerated - before).toBeLessThan(HUGE_LINES / 10);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(256 * 1024 * 1024);
    const next = await fetch(`${sim.url}/api/v1/clusters`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(next.status).toBe(200);
    await next.arrayBuffer();
  });

  it('makes one line of each pod of an application as long as longLineChars', async () => {
    const p = longRunning(LONG) as TreeNode;
    const all = lines(await logs(LONG.metadata.name, `podName=${p.name}`));
    const longest = all.reduce((max, e) => Math.max(max, e.content.length), 0);
    expect(longest).toBe(LONG_CHARS);
    expect(all.filter((e) => e.content.length > 10_000)).toHaveLength(1);
  });

  it('validates the log options with clear errors', () => {
    const fails = (logsOption: Parameters<typeof createArgoCdApp>[0]['logs']): string => {
      try {
        createArgoCdApp({ token: TOKEN, estate, logs: logsOption });
      } catch (error) {
        if (isFlotillaError(error) && error.code === 'config_invalid') return error.message;
        throw error;
      }
      throw new Error('accepted');
    };
    expect(fails({ linesPerPod: -1 })).toMatch(/logs\.linesPerPod: must be at least 0/);
    expect(fails({ apps: { x: { longLineChars: LOG_LIMITS.longLineCharsMax + 1 } } })).toMatch(/logs\.apps\.x\.longLineChars: must be at most 16,777,216/);
    expect(fails({ followMs: 1.5 })).toMatch(/logs\.followMs: must be a whole number/);
  });
});
