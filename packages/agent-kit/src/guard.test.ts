import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@flotilla/core';
import { createMetrics, METRIC } from '@flotilla/metrics';
import { MemoryGuard, readMemoryLimit, readMemoryUsage, startA2AServer, startMemoryGuard, type AnswerTurn } from './index.js';

const dirs: string[] = [];
async function cgroup(files: Readonly<Record<string, string>>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'flotilla-cgroup-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), `${content}\n`);
  }
  return root;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('container memory limit', () => {
  it('reads cgroup v2, then v1; "max", a v1 "unlimited" and no cgroup mean no limit', async () => {
    expect(await readMemoryLimit(await cgroup({ 'memory.max': '268435456' }))).toBe(268_435_456);
    expect(await readMemoryLimit(await cgroup({ 'memory.max': 'max' }))).toBeUndefined();
    expect(await readMemoryLimit(await cgroup({ 'memory/memory.limit_in_bytes': '536870912' }))).toBe(536_870_912);
    expect(await readMemoryLimit(await cgroup({ 'memory/memory.limit_in_bytes': '9223372036854771712' }))).toBeUndefined();
    expect(await readMemoryLimit(await cgroup({}))).toBeUndefined();
    expect(await readMemoryLimit(await cgroup({ 'memory.max': 'garbage' }))).toBeUndefined();
  });

  it('counts the working set: usage minus inactive page cache (v2, then v1), RSS outside a container', async () => {
    expect(await readMemoryUsage(await cgroup({ 'memory.current': '1000000', 'memory.stat': 'anon 600000\ninactive_file 300000\nactive_file 100000' }))).toBe(700_000);
    expect(await readMemoryUsage(await cgroup({ 'memory.current': '1000000' }))).toBe(1_000_000);
    expect(await readMemoryUsage(await cgroup({ 'memory/memory.usage_in_bytes': '500', 'memory/memory.stat': 'cache 10\ntotal_inactive_file 200' }))).toBe(300);
    const rss = await readMemoryUsage(await cgroup({}));
    expect(rss).toBeGreaterThan(10 * 1024 * 1024);
  });
});

describe('memory guard', () => {
  it('tightens above 75%, sheds above 90%, and comes back down with hysteresis', async () => {
    let used = 0;
    const guard = new MemoryGuard({ limitBytes: 1_000, usage: () => used });
    const at = async (bytes: number) => {
      used = bytes;
      return guard.check();
    };
    expect(await at(500)).toBe('ok');
    expect(guard.budgetFactor).toBe(1);
    expect(await at(760)).toBe('tight');
    expect(guard.budgetFactor).toBe(0.5);
    expect(guard.accepting).toBe(true);
    expect(await at(910)).toBe('shed');
    expect(guard.accepting).toBe(false);
    // Just under the threshold is not enough to leave a state (no flapping at the edge).
    expect(await at(880)).toBe('shed');
    expect(await at(840)).toBe('tight');
    expect(await at(720)).toBe('tight');
    expect(await at(690)).toBe('ok');
  });

  it('stays ok without a known limit, and refuses nonsense thresholds', async () => {
    const guard = new MemoryGuard({ limitBytes: undefined, usage: () => 10 ** 12 });
    expect(await guard.check()).toBe('ok');
    expect(() => new MemoryGuard({ limitBytes: 1, tightRatio: 0.9, shedRatio: 0.8 })).toThrow(RangeError);
  });
});

const rpc = (text: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], contextId: 'ctx-guard' } },
});

describe('A2A server gate: credentials, then memory', () => {
  it('answers 401 without a valid token and 503 + Retry-After while shedding, doing no work; metrics say why', async () => {
    let turns = 0;
    const answer: AnswerTurn = () => {
      turns += 1;
      return Promise.resolve({ answer: 'done', options: [], metadata: {} });
    };
    const metrics = createMetrics();
    let used = 100;
    const guard = await startMemoryGuard({ agent: 'toy', metrics, logger: silentLogger(), limitBytes: 1_000, usage: () => used });
    const token = 'a2a-token-0123456789abcdef';
    const server = await startA2AServer({
      agent: { name: 'toy', description: 'toy agent', version: '0.0.1', skills: [] },
      answer,
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      metrics,
      auth: { tokens: [token] },
      guard,
      onReject: (reason) => metrics.a2aRejected.inc({ agent: 'toy', reason }),
    });
    const post = (headers: Record<string, string>, text = 'hello') =>
      fetch(`${server.url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers }, body: JSON.stringify(rpc(text)) });
    try {
      // The card is public and declares both schemes.
      const card = (await (await fetch(server.cardUrl)).json()) as { securitySchemes: Record<string, unknown> };
      expect(Object.keys(card.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);

      const bad: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: token }, { "x-api-key": `${token}x` }];
      for (const headers of bad) {
        const refused = await post(headers);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
      expect(turns).toBe(0);
      expect((await post({ authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await post({ 'X-API-Key': token })).status).toBe(200);
      expect(turns).toBe(2);

      used = 950;
      await guard.check();
      const busy = await post({ authorization: `Bearer ${token}` });
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('5');
      expect(((await busy.json()) as { message: string }).message).toMatch(/busy.*retry in 5 s/);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect(turns).toBe(2);

      used = 100;
      await guard.check();
      expect((await post({ authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      expect(turns).toBe(3);

      const exposed = await metrics.registry.metrics();
      expect(exposed).toContain(`${METRIC.a2aRejected}{agent="toy",reason="unauthorized"} 4`);
      expect(exposed).toContain(`${METRIC.a2aRejected}{agent="toy",reason="busy"} 1`);
      expect(exposed).toContain(`${METRIC.memoryGuardState}{agent="toy",state="ok"} 1`);
      expect(exposed).toContain(`${METRIC.memoryUsageRatio}{agent="toy"} 0.1`);
    } finally {
      guard.stop();
      await server.close();
    }
  });

  it('refuses to start with a short token', async () => {
    await expect(
      startA2AServer({ agent: { name: 't', description: 't', version: '0', skills: [] }, answer: () => Promise.reject(new Error('no')), host: '127.0.0.1', port: 0, logger: silentLogger(), auth: { tokens: ['short'] } }),
    ).rejects.toThrow(/at least 16 characters/);
  });
});
