import { afterAll, describe, expect, it } from 'vitest';
import { generateArgoEstate } from './data.js';
import { startArgoCdSimulator, type RunningSimulator } from './server.js';

const TOKEN = 'sim-test-token';
let sim: RunningSimulator | undefined;
afterAll(async () => sim?.close());

/** Reads a body chunk by chunk without keeping it: bytes, chunks, and the first and last bytes as text. */
async function drain(response: Response): Promise<{ bytes: number; chunks: number; head: string; tail: string }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let chunks = 0;
  let head = '';
  let tail = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    chunks += 1;
    const text = decoder.decode(value, { stream: true });
    if (head.length < 200) head += text.slice(0, 200);
    tail = (tail + text).slice(-200);
  }
  return { bytes, chunks, head, tail };
}

describe('an estate of 10,000 applications', () => {
  it('generates with unique names and streams its unprojected list in chunks', async () => {
    const estate = generateArgoEstate({ applications: 10_000 });
    expect(estate.applications).toHaveLength(10_000);
    expect(new Set(estate.applications.map((a) => a.metadata.name)).size).toBe(10_000);
    sim = await startArgoCdSimulator({ token: TOKEN, estate });
    const response = await fetch(`${sim.url}/api/v1/applications`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(response.headers.get('content-length')).toBeNull();
    const body = await drain(response);
    process.stdout.write(`unprojected list of 10,000 applications: ${(body.bytes / 1024 / 1024).toFixed(1)} MiB in ${body.chunks} chunks\n`);
    expect(body.bytes).toBeGreaterThan(40 * 1024 * 1024);
    expect(body.chunks).toBeGreaterThan(100);
    expect(body.head.startsWith('{"metadata":{"resourceVersion":"')).toBe(true);
    expect(body.tail.endsWith('}]}')).toBe(true);
    expect(sim.stats().bytesSent).toBe(body.bytes);
    const fields = 'items.metadata.name,items.metadata.labels,items.spec,items.status.sync.status,items.status.health';
    const projected = await drain(await fetch(`${sim.url}/api/v1/applications?fields=${fields}`, { headers: { authorization: `Bearer ${TOKEN}` } }));
    process.stdout.write(`projected list of 10,000 applications: ${(projected.bytes / 1024 / 1024).toFixed(1)} MiB\n`);
    expect(projected.bytes).toBeLessThan(body.bytes / 3);

    // The resource endpoints derive each answer from one application, whatever the size of the estate.
    const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
    for (const app of [estate.applications[0], estate.applications[5_000], estate.applications[9_999]]) {
      const name = app?.metadata.name ?? '';
      const tree = (await (await fetch(`${sim.url}/api/v1/applications/${name}/resource-tree`, auth)).json()) as { nodes: { kind: string; name: string }[] };
      expect(tree.nodes.length).toBeGreaterThanOrEqual(app?.status.resources?.filter((r) => r.health?.status !== 'Missing').length ?? 0);
      expect((await fetch(`${sim.url}/api/v1/applications/${name}/managed-resources`, auth)).status).toBe(200);
      const pod = tree.nodes.find((n) => n.kind === 'Pod');
      if (pod !== undefined) {
        const logs = await fetch(`${sim.url}/api/v1/applications/${name}/logs?podName=${pod.name}&tailLines=10`, auth);
        expect(await logs.text()).toMatch(/"last":true/);
      }
    }
  });
});
