/**
 * The answer-quality suite's questions (`pnpm bench -- --suites answers`, judged by answers.ts).
 *
 * Add a question here whenever a wrong answer is found: one entry, its expected answer computed from the
 * simulators' estates by the semantics below, never typed by hand. Phrase it as a person would type it (typos,
 * synonyms, politeness and all), not as the rules happen to parse it.
 */
import type {
  ArgoApplication,
  ArgoApplicationSet,
  ArgoCluster,
  ArgoEstate,
  ArgoProject,
  NetBoxCable,
  NetBoxDevice,
  NetBoxEstate,
  NetBoxInterface,
  NetBoxIpAddress,
  NetBoxPrefix,
  NetBoxRack,
  NetBoxSite,
  NetBoxVlan,
} from '@flotilla/simulators';

/** The estates the questions are asked about, and the moment they are asked at (the Argo CD estate's epoch). */
export interface Estates {
  /** ms since the Unix epoch: "now" for every time window. */
  readonly now: number;
  readonly apps: readonly ArgoApplication[];
  readonly projects: readonly ArgoProject[];
  readonly appSets: readonly ArgoApplicationSet[];
  readonly clusters: readonly ArgoCluster[];
  readonly sites: readonly NetBoxSite[];
  readonly racks: readonly NetBoxRack[];
  readonly devices: readonly NetBoxDevice[];
  readonly interfaces: readonly NetBoxInterface[];
  readonly cables: readonly NetBoxCable[];
  readonly vlans: readonly NetBoxVlan[];
  readonly prefixes: readonly NetBoxPrefix[];
  readonly ips: readonly NetBoxIpAddress[];
  /** The application's cluster: its destination.name, or the name of the cluster whose server is destination.server. */
  clusterOf(app: ArgoApplication): string | undefined;
  /** Every name of each kind, lower-cased: what a list answer may mention (a mentioned one outside the expected set is wrong). */
  readonly names: Readonly<Record<'apps' | 'projects' | 'appSets' | 'clusters' | 'sites' | 'racks' | 'devices' | 'vlans' | 'prefixes', ReadonlySet<string>>>;
}

export function estatesOf(argo: ArgoEstate, netbox: NetBoxEstate, now: number): Estates {
  const byServer = new Map(argo.clusters.map((c) => [c.server, c.name]));
  const lower = (values: readonly string[]): ReadonlySet<string> => new Set(values.map((v) => v.toLowerCase()));
  return {
    now,
    apps: argo.applications,
    projects: argo.projects,
    appSets: argo.applicationSets,
    clusters: argo.clusters,
    sites: netbox.sites,
    racks: netbox.racks,
    devices: netbox.devices,
    interfaces: netbox.interfaces,
    cables: netbox.cables,
    vlans: netbox.vlans,
    prefixes: netbox.prefixes,
    ips: netbox.ipAddresses,
    clusterOf: (app) => app.spec.destination.name ?? (app.spec.destination.server === undefined ? undefined : byServer.get(app.spec.destination.server)),
    names: {
      apps: lower(argo.applications.map((a) => a.metadata.name)),
      projects: lower(argo.projects.map((p) => p.metadata.name)),
      appSets: lower(argo.applicationSets.map((s) => s.metadata.name)),
      clusters: lower(argo.clusters.map((c) => c.name)),
      sites: lower(netbox.sites.map((s) => s.slug)),
      racks: lower(netbox.racks.map((r) => r.name)),
      devices: lower(netbox.devices.map((d) => d.name)),
      vlans: lower(netbox.vlans.map((v) => v.name)),
      prefixes: lower(netbox.prefixes.map((p) => p.prefix)),
    },
  };
}

// ---- Semantics, defined once: what a careful person means by the words of the questions. ----

export const sync = (a: ArgoApplication): string => a.status.sync.status;
export const health = (a: ArgoApplication): string => a.status.health.status;
/** "unhealthy", "not healthy", "broken": health is anything but Healthy. */
export const unhealthy = (a: ArgoApplication): boolean => health(a) !== 'Healthy';
/** "not synced", "not in sync": sync is anything but Synced (OutOfSync or Unknown). */
export const notSynced = (a: ArgoApplication): boolean => sync(a) !== 'Synced';
export const label = (a: ArgoApplication, key: string): string | undefined => a.metadata.labels?.[key];
/** env and team are the application's `env` and `team` labels. */
export const env = (a: ArgoApplication): string | undefined => label(a, 'env');
export const team = (a: ArgoApplication): string | undefined => label(a, 'team');
export const project = (a: ArgoApplication): string => a.spec.project;
export const namespace = (a: ArgoApplication): string | undefined => a.spec.destination.namespace;
/** Every repository the application deploys from (`source`, or each of `sources`). */
export const repos = (a: ArgoApplication): string[] => [...(a.spec.source === undefined ? [] : [a.spec.source.repoURL]), ...(a.spec.sources ?? []).map((s) => s.repoURL)];
/** When its last sync operation finished (any phase), in ms; undefined while one runs or when none ran. */
export const finishedAt = (a: ArgoApplication): number | undefined => {
  const at = a.status.operationState?.finishedAt;
  return at === undefined ? undefined : Date.parse(at);
};
/** "synced/deployed in the last <window>": the last operation finished within `ms` before now (any phase). */
export const syncedWithin = (d: Estates, a: ArgoApplication, ms: number): boolean => {
  const at = finishedAt(a);
  return at !== undefined && at <= d.now && at > d.now - ms;
};
/** "since <moment>": the last operation finished at or after `since` (and not after now). */
export const syncedSince = (d: Estates, a: ArgoApplication, since: number): boolean => {
  const at = finishedAt(a);
  return at !== undefined && at >= since && at <= d.now;
};
/** "today": since 00:00 UTC of now's day; "since yesterday": since 00:00 UTC of the day before. */
export const startOfDay = (d: Estates, daysBack = 0): number => {
  const now = new Date(d.now);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysBack);
};
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** A sync that did not work: the last operation's phase is Failed or Error. */
export const syncFailed = (a: ArgoApplication): boolean => ['Failed', 'Error'].includes(a.status.operationState?.phase ?? '');
export const ownedBySet = (a: ArgoApplication, set: string): boolean => (a.metadata.ownerReferences ?? []).some((o) => o.kind === 'ApplicationSet' && o.name === set);

/** The shortest text an answer about a problem must quote: the longest clause of a message, quoted names and revisions left out. */
export function keyPhrase(message: string): string {
  const clauses = message
    .replace(/\b[0-9a-f]{7,40}\b/g, ' ')
    .split(/["'()]|: |, |\.\.\./)
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
  return clauses.reduce((best, c) => (c.length > best.length ? c : best), '');
}

/** What is wrong with an application, as phrases: its failed operation's message, its unhealthy resources' messages. */
export function problems(a: ArgoApplication): string[] {
  const op = a.status.operationState;
  const messages = [
    ...(op !== undefined && syncFailed(a) && op.message !== undefined ? [op.message] : []),
    ...(a.status.resources ?? []).flatMap((r) => (r.health !== undefined && r.health.status !== 'Healthy' && r.health.message !== undefined ? [r.health.message] : [])),
  ];
  return [...new Set(messages.map(keyPhrase).filter((p) => p.length > 0))];
}

export const role = (x: NetBoxDevice): string => x.role.slug;
export const siteOf = (x: NetBoxDevice): string => x.site.slug;
export const status = (x: { readonly status: { readonly value: string } }): string => x.status.value;
export const tagged = (x: NetBoxDevice, tag: string): boolean => x.tags.some((t) => t.slug === tag);

/** An IPv4 address or prefix ("10.1.0.1/24") as a number, and its prefix length. */
function ipv4(text: string): { readonly value: number; readonly length: number } {
  const [address = '', length = '32'] = text.split('/');
  const octets = address.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) throw new Error(`answer questions: ${text} is not an IPv4 address`);
  return { value: octets.reduce((v, o) => v * 256 + o, 0), length: Number(length) };
}
/** The IP addresses NetBox holds inside a prefix (their host part, whatever their mask). */
export const ipsIn = (d: Estates, prefix: string): NetBoxIpAddress[] => {
  const p = ipv4(prefix);
  const size = 2 ** (32 - p.length);
  const base = Math.floor(p.value / size) * size;
  return d.ips.filter((ip) => ip.family.value === 4 && ipv4(ip.address).value >= base && ipv4(ip.address).value < base + size);
};
/** Free addresses of a prefix as NetBox counts them: its size, less network and broadcast (unless a pool), less those in use. */
export const freeIn = (d: Estates, prefix: string): number => {
  const p = d.prefixes.find((x) => x.prefix === prefix);
  if (p === undefined) throw new Error(`answer questions: no prefix ${prefix} in the NetBox estate`);
  const size = 2 ** (32 - ipv4(prefix).length);
  return (p.is_pool ? size : size - 2) - ipsIn(d, prefix).length;
};
/** The site a cable is at: the site of the device at its A end. */
export const cableSite = (d: Estates, c: NetBoxCable): string | undefined => d.devices.find((x) => x.name === c.a_terminations[0]?.object.device.name)?.site.slug;

// ---- Expected answers. ----

/**
 * What a correct answer holds (answers.ts judges it):
 * - count: the number, in the first line;
 * - list: the whole set (its size in the first line; every name when it has at most 50; none of `among` outside it);
 * - page: a later page of such a list ("next page"): its size in the first line, only names of the set, none shown before;
 * - object: every fact (a string, or alternatives: any one of them);
 * - cannot: says it cannot do that, and does not claim to have done it;
 * - all: a question in several parts, each part's expectation (numbers anywhere in the answer).
 */
export type Expectation =
  | { readonly kind: 'count'; readonly n: number; /** What was counted, when the answer may name it (a part of `all`). */ readonly names?: readonly string[] }
  | { readonly kind: 'list' | 'page'; readonly names: readonly string[]; readonly among: ReadonlySet<string> }
  | { readonly kind: 'object'; readonly facts: readonly (string | readonly string[])[] }
  | { readonly kind: 'cannot' }
  | { readonly kind: 'all'; readonly parts: readonly Expectation[] };

export type AnswerAgent = 'argocd' | 'netbox' | 'supervisor';

export interface AnswerQuestion {
  readonly to: AnswerAgent;
  readonly ask: string;
  readonly expect: (d: Estates) => Expectation;
  /** Asked in the conversation of the question before it ("next page", "only the degraded ones"); else a new one. */
  readonly followUp: boolean;
}

export const count = (n: number | readonly unknown[]): Expectation => ({ kind: 'count', n: typeof n === 'number' ? n : n.length });
/** A count of applications whose answer may name them (a two-part question: "how many …, and which …"). */
export const appCount = (apps: readonly ArgoApplication[]): Expectation => ({ kind: 'count', n: apps.length, names: apps.map((a) => a.metadata.name.toLowerCase()) });
export const deviceCount = (devices: readonly NetBoxDevice[]): Expectation => ({ kind: 'count', n: devices.length, names: devices.map((x) => x.name.toLowerCase()) });
const listOf = (kind: 'list' | 'page', names: readonly string[], among: ReadonlySet<string>): Expectation => ({ kind, names: names.map((n) => n.toLowerCase()), among });
export const appList = (d: Estates, apps: readonly ArgoApplication[], kind: 'list' | 'page' = 'list'): Expectation => listOf(kind, apps.map((a) => a.metadata.name), d.names.apps);
export const deviceList = (d: Estates, devices: readonly NetBoxDevice[], kind: 'list' | 'page' = 'list'): Expectation => listOf(kind, devices.map((x) => x.name), d.names.devices);
export const names = (list: readonly string[], among: ReadonlySet<string>): Expectation => listOf('list', list, among);
export const facts = (...wanted: (string | readonly string[])[]): Expectation => ({ kind: 'object', facts: wanted });
export const cannot = (): Expectation => ({ kind: 'cannot' });
export const all = (...parts: Expectation[]): Expectation => ({ kind: 'all', parts });

/** One application by name; a question naming one the estate lacks is a broken question, not a wrong answer. */
export function app(d: Estates, name: string): ArgoApplication {
  const found = d.apps.find((a) => a.metadata.name === name);
  if (found === undefined) throw new Error(`answer questions: the Argo CD estate has no application ${name}`);
  return found;
}
export function device(d: Estates, name: string): NetBoxDevice {
  const found = d.devices.find((x) => x.name === name);
  if (found === undefined) throw new Error(`answer questions: the NetBox estate has no device ${name}`);
  return found;
}
export const interfacesOf = (d: Estates, name: string): NetBoxInterface[] => {
  device(d, name);
  return d.interfaces.filter((i) => i.device.name === name);
};
const interfaceList = (d: Estates, name: string, keep: (i: NetBoxInterface) => boolean = () => true): Expectation => {
  const own = interfacesOf(d, name);
  return names(own.filter(keep).map((i) => i.name), new Set(own.map((i) => i.name.toLowerCase())));
};
/** An application's status facts: its health and its sync status. */
const statusOf = (d: Estates, name: string): Expectation => facts(health(app(d, name)), sync(app(d, name)));
/** What is wrong with it: its health and (any one of) its problems' key phrases. */
const wrongWith = (d: Estates, name: string): Expectation => {
  const a = app(d, name);
  const found = problems(a);
  return found.length === 0 ? facts(health(a)) : facts(health(a), found);
};
const revision = (a: ArgoApplication): string => {
  const r = a.status.sync.revision ?? '';
  return /^[0-9a-f]{40}$/.test(r) ? r.slice(0, 7) : r;
};
const lastSync = (a: ArgoApplication): string => a.status.operationState?.finishedAt ?? '(no finished sync)';
const initiator = (a: ArgoApplication): string => {
  const by = a.status.operationState?.operation.initiatedBy;
  return by?.username ?? (by?.automated === true ? 'automated' : '(nobody)');
};
const ipFacts = (d: Estates, address: string): Expectation => {
  const ip = d.ips.find((x) => x.address.split('/')[0] === address);
  if (ip?.assigned_object == null) throw new Error(`answer questions: no assigned IP address ${address} in the NetBox estate`);
  return facts(ip.assigned_object.device.name, ip.assigned_object.name);
};

const FOLLOW_UP = true;
const argo = (ask: string, expect: (d: Estates) => Expectation, followUp = false): AnswerQuestion => ({ to: 'argocd', ask, expect, followUp });
const netbox = (ask: string, expect: (d: Estates) => Expectation, followUp = false): AnswerQuestion => ({ to: 'netbox', ask, expect, followUp });
const supervisor = (ask: string, expect: (d: Estates) => Expectation, followUp = false): AnswerQuestion => ({ to: 'supervisor', ask, expect, followUp });

const outOfSync = (a: ArgoApplication): boolean => sync(a) === 'OutOfSync';
const healthIs = (h: string) => (a: ArgoApplication): boolean => health(a) === h;
const degraded = healthIs('Degraded');
const inCluster = (d: Estates, cluster: string) => (a: ArgoApplication): boolean => d.clusterOf(a) === cluster;
const envIs = (e: string) => (a: ArgoApplication): boolean => env(a) === e;
const teamIs = (t: string) => (a: ArgoApplication): boolean => team(a) === t;
const both = <T>(...tests: ((x: T) => boolean)[]) => (x: T): boolean => tests.every((t) => t(x));
const apps = (d: Estates, ...tests: ((a: ArgoApplication) => boolean)[]): ArgoApplication[] => d.apps.filter(both(...tests));
const devices = (d: Estates, ...tests: ((x: NetBoxDevice) => boolean)[]): NetBoxDevice[] => d.devices.filter(both(...tests));
const atSite = (site: string) => (x: NetBoxDevice): boolean => siteOf(x) === site;
const roleIs = (r: string) => (x: NetBoxDevice): boolean => role(x) === r;
const statusIs = (s: string) => (x: { readonly status: { readonly value: string } }): boolean => status(x) === s;

/** "since monday": since 00:00 UTC of the Monday of now's week (now's day when it is a Monday). */
const sinceMonday = (d: Estates): number => startOfDay(d, (new Date(d.now).getUTCDay() + 6) % 7);
/** "by X", "per X": the number of each group, every one of them stated somewhere in the answer. */
const breakdown = <T>(items: readonly T[], key: (x: T) => string | undefined): Expectation => {
  const groups = new Map<string | undefined, number>();
  for (const x of items) groups.set(key(x), (groups.get(key(x)) ?? 0) + 1);
  return all(...[...groups.values()].map((n) => count(n)));
};
const notEnv = (e: string) => (a: ArgoApplication): boolean => env(a) !== e;
const inNamespace = (ns: string) => (a: ArgoApplication): boolean => namespace(a) === ns;
const cableStatusIs = (s: string) => (c: NetBoxCable): boolean => status(c) === s;

export const ANSWER_QUESTIONS: readonly AnswerQuestion[] = [
  // Argo CD: sync and health, in the words people use.
  argo('which apps are out of sync?', (d) => appList(d, apps(d, outOfSync))),
  argo('how many apps are out of sync?', (d) => count(apps(d, outOfSync))),
  argo('whcih apps are out of snyc', (d) => appList(d, apps(d, outOfSync))),
  argo('list out-of-sync applications', (d) => appList(d, apps(d, outOfSync))),
  argo("show me all the apps that aren't synced", (d) => appList(d, apps(d, notSynced))),
  argo('number of applications not in sync', (d) => count(apps(d, notSynced))),
  argo('degraded apps', (d) => appList(d, apps(d, degraded))),
  argo('how many apps are degraded?', (d) => count(apps(d, degraded))),
  argo('count of degraded applications', (d) => count(apps(d, degraded))),
  argo('degarded apps pls', (d) => appList(d, apps(d, degraded))),
  argo('which applications are unhealthy?', (d) => appList(d, apps(d, unhealthy))),
  argo('apps that are not healthy', (d) => appList(d, apps(d, unhealthy))),
  argo('show me broken deployments', (d) => appList(d, apps(d, unhealthy))),
  argo('how many applications are broken right now', (d) => count(apps(d, unhealthy))),
  argo('any apps missing?', (d) => appList(d, apps(d, healthIs('Missing')))),
  argo('progressing applications', (d) => appList(d, apps(d, healthIs('Progressing')))),
  argo('suspended apps', (d) => appList(d, apps(d, healthIs('Suspended')))),
  argo('apps with unknown health', (d) => appList(d, apps(d, healthIs('Unknown')))),
  argo('which apps have an unknown sync status', (d) => appList(d, apps(d, (a) => sync(a) === 'Unknown'))),
  argo('how many apps are healthy', (d) => count(apps(d, healthIs('Healthy')))),
  argo('how many applications do we have?', (d) => count(d.apps)),
  argo('total number of apps', (d) => count(d.apps)),
  argo('apps', (d) => appList(d, d.apps)),
  argo('apps that are out of sync and degraded', (d) => appList(d, apps(d, outOfSync, degraded))),
  argo('healthy but out of sync apps', (d) => appList(d, apps(d, outOfSync, healthIs('Healthy')))),

  // Environments and teams (the env and team labels).
  argo('which apps are out of sync in prod?', (d) => appList(d, apps(d, outOfSync, envIs('prod')))),
  argo('out of sync apps in staging', (d) => appList(d, apps(d, outOfSync, envIs('staging')))),
  argo('degraded apps in prod', (d) => appList(d, apps(d, degraded, envIs('prod')))),
  argo('unhealthy applications in dev', (d) => appList(d, apps(d, unhealthy, envIs('dev')))),
  argo('how many prod apps are there', (d) => count(apps(d, envIs('prod')))),
  argo('Hi! Could you please tell me how many applications are currently out of sync in the production environment?', (d) => count(apps(d, outOfSync, envIs('prod')))),
  argo('show everything in staging', (d) => appList(d, apps(d, envIs('staging')))),
  argo('which staging deployments are degraded', (d) => appList(d, apps(d, degraded, envIs('staging')))),
  argo('qa apps that are missing', (d) => appList(d, apps(d, envIs('qa'), healthIs('Missing')))),
  argo('apps for the payments team', (d) => appList(d, apps(d, teamIs('payments')))),
  argo('apps owned by team ledger', (d) => appList(d, apps(d, teamIs('ledger')))),
  argo("which of the checkout team's apps are out of sync?", (d) => appList(d, apps(d, teamIs('checkout'), outOfSync))),
  argo('how many apps does the fraud team have', (d) => count(apps(d, teamIs('fraud')))),
  argo('degraded apps owned by team identity', (d) => appList(d, apps(d, teamIs('identity'), degraded))),
  argo("show the ml team's production apps", (d) => appList(d, apps(d, teamIs('ml'), envIs('prod')))),
  argo('team search apps that are not healthy in prod', (d) => appList(d, apps(d, teamIs('search'), unhealthy, envIs('prod')))),

  // Clusters, by name and by API server URL (an application names its destination either way).
  argo('which applications are OutOfSync in the staging-eu-1 cluster', (d) => appList(d, apps(d, outOfSync, inCluster(d, 'staging-eu-1')))),
  argo('how many apps are out of sync in staging-eu-1?', (d) => count(apps(d, outOfSync, inCluster(d, 'staging-eu-1')))),
  argo('apps on cluster prod-eu-1', (d) => appList(d, apps(d, inCluster(d, 'prod-eu-1')))),
  argo('how many apps run on prod-us-1', (d) => count(apps(d, inCluster(d, 'prod-us-1')))),
  argo('apps deployed to https://prod-eu-1.k8s.example.internal', (d) => appList(d, apps(d, inCluster(d, 'prod-eu-1')))),
  argo('unhealthy apps on https://staging-us-1.k8s.example.internal', (d) => appList(d, apps(d, unhealthy, inCluster(d, 'staging-us-1')))),
  argo('degraded apps in cluster perf-eu-1', (d) => appList(d, apps(d, degraded, inCluster(d, 'perf-eu-1')))),
  argo("what's deployed on in-cluster?", (d) => appList(d, apps(d, inCluster(d, 'in-cluster')))),
  argo('apps on the dev-ap-1 cluster that are progressing', (d) => appList(d, apps(d, inCluster(d, 'dev-ap-1'), healthIs('Progressing')))),
  argo('how many applications target qa-us-1', (d) => count(apps(d, inCluster(d, 'qa-us-1')))),
  argo('hey, quick one: number of degraded apps on prod-ap-1?', (d) => count(apps(d, degraded, inCluster(d, 'prod-ap-1')))),
  argo('unhealthy deployments on staging-ap-1', (d) => appList(d, apps(d, unhealthy, inCluster(d, 'staging-ap-1')))),
  argo('out of sync apps on https://kubernetes.default.svc', (d) => appList(d, apps(d, outOfSync, inCluster(d, 'in-cluster')))),

  // Namespaces.
  argo('apps in namespace payments', (d) => appList(d, apps(d, (a) => namespace(a) === 'payments'))),
  argo('which apps deploy into the catalog namespace?', (d) => appList(d, apps(d, (a) => namespace(a) === 'catalog'))),
  argo('out of sync apps in namespace ledger', (d) => appList(d, apps(d, outOfSync, (a) => namespace(a) === 'ledger'))),
  argo('how many apps in the observability namespace', (d) => count(apps(d, (a) => namespace(a) === 'observability'))),
  argo('I need a list of every application in the payments namespace that is not healthy, thanks', (d) => appList(d, apps(d, unhealthy, (a) => namespace(a) === 'payments'))),

  // Projects.
  argo('list applications in project payments-prod', (d) => appList(d, apps(d, (a) => project(a) === 'payments-prod'))),
  argo('apps in the ledger-staging project', (d) => appList(d, apps(d, (a) => project(a) === 'ledger-staging'))),
  argo('how many apps are in project checkout-prod?', (d) => count(apps(d, (a) => project(a) === 'checkout-prod'))),
  argo('which apps in the ledger-staging project are out of sync?', (d) => appList(d, apps(d, outOfSync, (a) => project(a) === 'ledger-staging'))),
  argo('apps in project default', (d) => appList(d, apps(d, (a) => project(a) === 'default'))),

  // Label selectors.
  argo('apps with label tier=frontend', (d) => appList(d, apps(d, (a) => label(a, 'tier') === 'frontend'))),
  argo('apps labelled tier=backend in prod', (d) => appList(d, apps(d, (a) => label(a, 'tier') === 'backend', envIs('prod')))),
  argo('show apps matching region=eu,env=staging', (d) => appList(d, apps(d, (a) => label(a, 'region') === 'eu', envIs('staging')))),
  argo('how many apps have tier=data', (d) => count(apps(d, (a) => label(a, 'tier') === 'data'))),
  argo('apps with the label app.kubernetes.io/part-of=payments', (d) => appList(d, apps(d, (a) => label(a, 'app.kubernetes.io/part-of') === 'payments'))),
  argo('apps without a tier label', (d) => appList(d, apps(d, (a) => label(a, 'tier') === undefined))),

  // Repositories.
  argo('which apps deploy from https://git.example.com/payments/api.git?', (d) => appList(d, apps(d, (a) => repos(a).includes('https://git.example.com/payments/api.git')))),
  argo('apps using repo https://charts.example.com', (d) => appList(d, apps(d, (a) => repos(a).includes('https://charts.example.com')))),
  argo('how many apps come from https://git.example.com/analytics/ingest.git', (d) => count(apps(d, (a) => repos(a).includes('https://git.example.com/analytics/ingest.git')))),

  // Name fragments and search.
  argo('find apps with payment in the name', (d) => appList(d, apps(d, (a) => a.metadata.name.includes('payment')))),
  argo('apps whose name contains gateway', (d) => appList(d, apps(d, (a) => a.metadata.name.includes('gateway')))),
  argo("search apps for 'ledger-gateway'", (d) => appList(d, apps(d, (a) => a.metadata.name.includes('ledger-gateway')))),
  // "Anything": applications and application sets alike.
  argo('anything named fraud-api?', (d) =>
    names(
      [...apps(d, (a) => a.metadata.name.includes('fraud-api')).map((a) => a.metadata.name), ...d.appSets.filter((s) => s.metadata.name.includes('fraud-api')).map((s) => s.metadata.name)],
      new Set([...d.names.apps, ...d.names.appSets]),
    ),
  ),
  argo('cron apps in prod', (d) => appList(d, apps(d, (a) => a.metadata.name.includes('cron'), envIs('prod')))),

  // Time windows (the last operation's finishedAt, any phase, before the estate's epoch).
  argo('which apps were synced in the last hour?', (d) => appList(d, apps(d, (a) => syncedWithin(d, a, HOUR_MS)))),
  argo('what got deployed today?', (d) => appList(d, apps(d, (a) => syncedSince(d, a, startOfDay(d))))),
  argo('apps synced since yesterday', (d) => appList(d, apps(d, (a) => syncedSince(d, a, startOfDay(d, 1))))),
  argo('which apps synced in the past 3 days', (d) => appList(d, apps(d, (a) => syncedWithin(d, a, 3 * DAY_MS)))),
  argo('how many syncs failed in the last 24 hours?', (d) => count(apps(d, syncFailed, (a) => syncedWithin(d, a, DAY_MS)))),
  argo('show me apps deployed in the last 2 hours', (d) => appList(d, apps(d, (a) => syncedWithin(d, a, 2 * HOUR_MS)))),
  argo('which prod apps were synced today?', (d) => appList(d, apps(d, envIs('prod'), (a) => syncedSince(d, a, startOfDay(d))))),
  argo('did any sync fail in the last 7 days?', (d) => appList(d, apps(d, syncFailed, (a) => syncedWithin(d, a, 7 * DAY_MS)))),

  // Two questions in one.
  argo('how many apps are in project ledger-staging, and which are unhealthy?', (d) => all(appCount(apps(d, (a) => project(a) === 'ledger-staging')), appList(d, apps(d, unhealthy, (a) => project(a) === 'ledger-staging')))),
  argo('how many apps does team billing have, and which of them are degraded?', (d) => all(appCount(apps(d, teamIs('billing'))), appList(d, apps(d, teamIs('billing'), degraded)))),
  argo('which apps are out of sync in staging-eu-1 and how many are degraded there?', (d) => all(appList(d, apps(d, outOfSync, inCluster(d, 'staging-eu-1'))), appCount(apps(d, degraded, inCluster(d, 'staging-eu-1'))))),

  // One application.
  argo('status of payments-api-prod', (d) => statusOf(d, 'payments-api-prod')),
  argo("what's wrong with payments-api-prod?", (d) => wrongWith(d, 'payments-api-prod')),
  argo('why is payments-migrator-prod degraded?', (d) => wrongWith(d, 'payments-migrator-prod')),
  argo('is ledger-gateway-prod healthy?', (d) => facts(health(app(d, 'ledger-gateway-prod')))),
  argo('show me identity-auth-prod', (d) => facts(health(app(d, 'identity-auth-prod')), sync(app(d, 'identity-auth-prod')), app(d, 'identity-auth-prod').status.operationState?.phase ?? '')),
  argo("why does identity-auth-prod's sync keep failing?", (d) => facts(...problems(app(d, 'identity-auth-prod')))),
  argo('when was payments-migrator-prod last synced?', (d) => facts(lastSync(app(d, 'payments-migrator-prod')))),
  argo('which revision is payments-api-prod running', (d) => facts(revision(app(d, 'payments-api-prod')))),
  argo('where does payments-migrator-prod deploy to?', (d) => facts(d.clusterOf(app(d, 'payments-migrator-prod')) ?? '', namespace(app(d, 'payments-migrator-prod')) ?? '')),
  argo('where is payments-api-prod deployed', (d) => facts(d.clusterOf(app(d, 'payments-api-prod')) ?? '', namespace(app(d, 'payments-api-prod')) ?? '')),
  argo('which repo does ledger-gateway-prod deploy from', (d) => facts(repos(app(d, 'ledger-gateway-prod'))[0] ?? '')),
  argo('who synced payments-migrator-prod last?', (d) => facts(initiator(app(d, 'payments-migrator-prod')))),
  argo('details for payments-cron-prod', (d) => facts(health(app(d, 'payments-cron-prod')), sync(app(d, 'payments-cron-prod')), app(d, 'payments-cron-prod').status.operationState?.phase ?? '')),
  argo('show the application payments-indexer-staging', (d) => statusOf(d, 'payments-indexer-staging')),
  argo('is checkout-web-dev ok?', (d) => wrongWith(d, 'checkout-web-dev')),
  argo('status of paymnts-api-prod', (d) => statusOf(d, 'payments-api-prod')),
  argo('payments-api-prod health', (d) => facts(health(app(d, 'payments-api-prod')))),

  // Projects, clusters, application sets.
  argo('list projects', (d) => names(d.projects.map((p) => p.metadata.name), d.names.projects)),
  argo('how many argo projects are there?', (d) => count(d.projects)),
  argo('list clusters', (d) => names(d.clusters.map((c) => c.name), d.names.clusters)),
  argo('how many clusters do we have', (d) => count(d.clusters)),
  argo('which clusters are we connected to?', (d) => names(d.clusters.filter((c) => c.connectionState.status === 'Successful').map((c) => c.name), d.names.clusters)),
  argo('any clusters with connection problems?', (d) => names(d.clusters.filter((c) => c.connectionState.status !== 'Successful').map((c) => c.name), d.names.clusters)),
  argo('list application sets', (d) => names(d.appSets.map((s) => s.metadata.name), d.names.appSets)),
  argo('how many applicationsets are there', (d) => count(d.appSets)),
  argo('which apps does the payments-api application set generate?', (d) => appList(d, apps(d, (a) => ownedBySet(a, 'payments-api')))),
  argo('application sets of the payments team', (d) => names(d.appSets.filter((s) => s.metadata.labels?.team === 'payments').map((s) => s.metadata.name), d.names.appSets)),

  // What the agent cannot do: it reads Argo CD, it does not act on it, and it has no costs, metrics or authors.
  argo('restart payments-api-prod', () => cannot()),
  argo('sync ledger-gateway-staging now please', () => cannot()),
  argo('roll back payments-api-prod to the previous version', () => cannot()),
  argo('delete the app payments-web-dev', () => cannot()),
  argo('which app costs the most?', () => cannot()),
  argo('apps created by alice', () => cannot()),
  argo('which app uses the most memory?', () => cannot()),
  // Its health, and a log excerpt (the answer's "log lines read from <pod>" section).
  argo('show me the logs of payments-api-prod', (d) => facts(health(app(d, 'payments-api-prod')), 'log lines read from')),
  argo('scale checkout-web-dev to 3 replicas', () => cannot()),

  // Conversations: the follow-ups continue the question before them.
  argo('which apps are degraded?', (d) => appList(d, apps(d, degraded))),
  argo('next page', (d) => appList(d, apps(d, degraded), 'page'), FOLLOW_UP),
  argo('next page', (d) => appList(d, apps(d, degraded), 'page'), FOLLOW_UP),
  argo('apps for the payments team', (d) => appList(d, apps(d, teamIs('payments')))),
  argo('only the degraded ones', (d) => appList(d, apps(d, teamIs('payments'), degraded)), FOLLOW_UP),
  argo('out of sync apps in prod', (d) => appList(d, apps(d, outOfSync, envIs('prod')))),
  argo('only the degraded ones', (d) => appList(d, apps(d, outOfSync, envIs('prod'), degraded)), FOLLOW_UP),
  argo('list apps in namespace catalog', (d) => appList(d, apps(d, (a) => namespace(a) === 'catalog'))),
  argo('next page', (d) => appList(d, apps(d, (a) => namespace(a) === 'catalog'), 'page'), FOLLOW_UP),

  // NetBox: devices by site, role, status, tag, maker.
  netbox('devices in fra1', (d) => deviceList(d, devices(d, atSite('fra1')))),
  netbox('devcies in lon1', (d) => deviceList(d, devices(d, atSite('lon1')))),
  netbox('how many devices are at ams1?', (d) => count(devices(d, atSite('ams1')))),
  netbox('list switches in ams2', (d) => deviceList(d, devices(d, atSite('ams2'), roleIs('switch')))),
  netbox('number of servers in sin1', (d) => count(devices(d, atSite('sin1'), roleIs('server')))),
  netbox('routers in lon1', (d) => deviceList(d, devices(d, atSite('lon1'), roleIs('router')))),
  netbox('which devices are offline?', (d) => deviceList(d, devices(d, statusIs('offline')))),
  netbox('offline switches in fra1', (d) => deviceList(d, devices(d, atSite('fra1'), roleIs('switch'), statusIs('offline')))),
  netbox('failed devices', (d) => deviceList(d, devices(d, statusIs('failed')))),
  netbox('devices in planned state at chi1', (d) => deviceList(d, devices(d, atSite('chi1'), statusIs('planned')))),
  netbox('how many firewalls do we have', (d) => count(devices(d, roleIs('firewall')))),
  netbox('show all pdus in ams1', (d) => deviceList(d, devices(d, atSite('ams1'), roleIs('pdu')))),
  netbox('console servers in nyc1', (d) => deviceList(d, devices(d, atSite('nyc1'), roleIs('console-server')))),
  netbox('devices tagged pci', (d) => deviceList(d, devices(d, (x) => tagged(x, 'pci')))),
  netbox('which devices are being decommissioned?', (d) => deviceList(d, devices(d, statusIs('decommissioning')))),
  netbox('staged devices in dub1', (d) => deviceList(d, devices(d, atSite('dub1'), statusIs('staged')))),
  netbox('how many devices do we have in total?', (d) => count(d.devices)),
  netbox('juniper devices', (d) => deviceList(d, devices(d, (x) => x.device_type.manufacturer.slug === 'juniper'))),
  netbox('arista switches in ams2', (d) => deviceList(d, devices(d, atSite('ams2'), roleIs('switch'), (x) => x.device_type.manufacturer.slug === 'arista'))),
  netbox('whats in rack ams1-r03', (d) => deviceList(d, devices(d, (x) => x.rack?.name === 'ams1-r03'))),

  // One device, its interfaces.
  netbox('show device ams1-sw-016', (d) => facts(role(device(d, 'ams1-sw-016')), status(device(d, 'ams1-sw-016')), device(d, 'ams1-sw-016').primary_ip4?.address ?? '')),
  netbox("what's the primary IP of fra1-rtr-01?", (d) => facts(device(d, 'fra1-rtr-01').primary_ip4?.address.split('/')[0] ?? '')),
  netbox('which rack is sfo1-sw-019 in?', (d) => facts(device(d, 'sfo1-sw-019').rack?.name ?? '')),
  netbox('interfaces of sfo1-sw-019', (d) => interfaceList(d, 'sfo1-sw-019')),
  netbox('interfaces on ams1-rtr-01', (d) => interfaceList(d, 'ams1-rtr-01')),
  netbox('how many interfaces does ams1-sw-016 have', (d) => count(interfacesOf(d, 'ams1-sw-016'))),
  netbox('uncabled interfaces of ams1-sw-016', (d) => interfaceList(d, 'ams1-sw-016', (i) => i.cable === null)),
  netbox('interfaces of every switch in ams1', (d) => count(d.interfaces.filter((i) => devices(d, atSite('ams1'), roleIs('switch')).some((x) => x.name === i.device.name)))),

  // VLANs, prefixes, IP addresses.
  netbox('vlans of lon1', (d) => names(d.vlans.filter((v) => v.site?.slug === 'lon1').map((v) => v.name), d.names.vlans)),
  netbox('how many vlans at fra1', (d) => count(d.vlans.filter((v) => v.site?.slug === 'fra1'))),
  netbox('vlans', (d) => names(d.vlans.map((v) => v.name), d.names.vlans)),
  netbox('prefixes in ams1', (d) => names(d.prefixes.filter((p) => p.site?.slug === 'ams1').map((p) => p.prefix), d.names.prefixes)),
  netbox('prefixes of tyo1', (d) => names(d.prefixes.filter((p) => p.site?.slug === 'tyo1').map((p) => p.prefix), d.names.prefixes)),
  netbox('active prefixes at fra1', (d) => names(d.prefixes.filter((p) => p.site?.slug === 'fra1' && status(p) === 'active').map((p) => p.prefix), d.names.prefixes)),
  netbox('deprecated prefixes', (d) => names(d.prefixes.filter(statusIs('deprecated')).map((p) => p.prefix), d.names.prefixes)),
  netbox('what is 10.1.0.1?', (d) => ipFacts(d, '10.1.0.1')),
  netbox('who has ip 10.3.0.5', (d) => ipFacts(d, '10.3.0.5')),
  netbox('used ips in 10.2.1.0/24', (d) => count(ipsIn(d, '10.2.1.0/24'))),
  netbox('how many free addresses are left in 10.3.3.0/24?', (d) => count(freeIn(d, '10.3.3.0/24'))),
  netbox('free ips in 10.1.18.0/24', (d) => count(freeIn(d, '10.1.18.0/24'))),

  // Sites, racks, cables.
  netbox('list sites', (d) => names(d.sites.map((s) => s.slug), d.names.sites)),
  netbox('how many sites do we have', (d) => count(d.sites)),
  netbox('sites in europe', (d) => names(d.sites.filter((s) => s.region?.slug === 'europe').map((s) => s.slug), d.names.sites)),
  netbox('which sites are not active yet?', (d) => names(d.sites.filter((s) => status(s) !== 'active').map((s) => s.slug), d.names.sites)),
  netbox('how many cables are there at ams2', (d) => count(d.cables.filter((c) => cableSite(d, c) === 'ams2'))),
  netbox('racks in fra1', (d) => names(d.racks.filter((r) => r.site.slug === 'fra1').map((r) => r.name), d.names.racks)),

  // What the NetBox agent cannot do.
  netbox('reboot ams1-rtr-01', () => cannot()),
  netbox('add vlan 300 to fra1', () => cannot()),
  netbox("what's the bandwidth on ams1-rtr-01 et-0/0/0 right now?", () => cannot()),

  // A NetBox conversation.
  netbox('switches in ams1', (d) => deviceList(d, devices(d, atSite('ams1'), roleIs('switch')))),
  netbox('next batch', (d) => deviceList(d, devices(d, atSite('ams1'), roleIs('switch')), 'page'), FOLLOW_UP),
  netbox('only the offline ones', (d) => deviceList(d, devices(d, atSite('ams1'), roleIs('switch'), statusIs('offline'))), FOLLOW_UP),

  // The supervisor: what it can do, a question for each agent, questions spanning both.
  supervisor('what can you do?', () => facts('Argo CD', 'NetBox')),
  supervisor('help', () => facts('Argo CD', 'NetBox')),
  supervisor('which apps are out of sync in prod?', (d) => appList(d, apps(d, outOfSync, envIs('prod')))),
  supervisor('status of payments-api-prod', (d) => statusOf(d, 'payments-api-prod')),
  supervisor("what's wrong with payments-api-prod?", (d) => wrongWith(d, 'payments-api-prod')),
  supervisor('apps on https://prod-eu-1.k8s.example.internal that are degraded', (d) => appList(d, apps(d, degraded, inCluster(d, 'prod-eu-1')))),
  supervisor('how many devices are in fra1?', (d) => count(devices(d, atSite('fra1')))),
  supervisor('vlans of lon1', (d) => names(d.vlans.filter((v) => v.site?.slug === 'lon1').map((v) => v.name), d.names.vlans)),
  supervisor('prefixes in tyo1', (d) => names(d.prefixes.filter((p) => p.site?.slug === 'tyo1').map((p) => p.prefix), d.names.prefixes)),
  supervisor('interfaces of ams1-rtr-01', (d) => interfaceList(d, 'ams1-rtr-01')),
  supervisor('which apps are out of sync in prod and which switches are offline in ams1?', (d) => all(appList(d, apps(d, outOfSync, envIs('prod'))), deviceList(d, devices(d, atSite('ams1'), roleIs('switch'), statusIs('offline'))))),
  supervisor('how many degraded apps are there, and how many devices are offline in fra1?', (d) => all(appCount(apps(d, degraded)), deviceCount(devices(d, atSite('fra1'), statusIs('offline'))))),
  supervisor('list clusters and sites', (d) => all(names(d.clusters.map((c) => c.name), d.names.clusters), names(d.sites.map((s) => s.slug), d.names.sites))),
  supervisor('restart payments-api-prod', () => cannot()),
  supervisor("what's the weather like in amsterdam?", () => cannot()),
  supervisor('unhealthy apps in staging', (d) => appList(d, apps(d, unhealthy, envIs('staging')))),
  supervisor('next page', (d) => appList(d, apps(d, unhealthy, envIs('staging')), 'page'), FOLLOW_UP),
  supervisor('degraded apps in staging', (d) => appList(d, apps(d, degraded, envIs('staging')))),
  supervisor('next page', (d) => appList(d, apps(d, degraded, envIs('staging')), 'page'), FOLLOW_UP),

  // ---- Regression questions added later: other words, orders, spellings and typos than the ones above. ----
  // Negations and combined filters.
  argo('everything except the healthy ones', (d) => appList(d, apps(d, unhealthy))),
  argo('apps not in prod', (d) => appList(d, apps(d, notEnv('prod')))),
  argo('non-prod apps that are degraded', (d) => appList(d, apps(d, notEnv('prod'), degraded))),
  argo('which apps are synced but not healthy', (d) => appList(d, apps(d, (a) => sync(a) === 'Synced', unhealthy))),
  argo('Could you kindly let me know which applications in the staging environment are currently degraded and also out of sync? Many thanks.', (d) => appList(d, apps(d, envIs('staging'), degraded, outOfSync))),
  argo('oos apps in stg', (d) => appList(d, apps(d, outOfSync, envIs('staging')))),
  argo('prd apps that are progressing', (d) => appList(d, apps(d, envIs('prod'), healthIs('Progressing')))),
  argo('total count of suspended applications in perf', (d) => count(apps(d, healthIs('Suspended'), envIs('perf')))),
  argo('apps in the perf enviroment with unknown sync status', (d) => appList(d, apps(d, envIs('perf'), (a) => sync(a) === 'Unknown'))),
  argo("fraud team's prd apps that are out of sync", (d) => appList(d, apps(d, teamIs('fraud'), envIs('prod'), outOfSync))),
  argo('number of unhealthy apps owned by the catalogue team', (d) => count(apps(d, teamIs('catalog'), unhealthy))),
  argo("which of the notifications team's apps in qa arent synced", (d) => appList(d, apps(d, teamIs('notifications'), envIs('qa'), notSynced))),
  argo('on prod-us-1, which apps are degraded or missing?', (d) => appList(d, apps(d, inCluster(d, 'prod-us-1'), (a) => degraded(a) || health(a) === 'Missing'))),
  argo('what is running on the qa-eu-1 k8s cluster that is out of sync', (d) => appList(d, apps(d, inCluster(d, 'qa-eu-1'), outOfSync))),
  argo('how many apps in ns search are healthy?', (d) => count(apps(d, inNamespace('search'), healthIs('Healthy')))),

  // Breakdowns: every group's number.
  argo('apps by health', (d) => breakdown(d.apps, health)),
  argo('sync status summary pls', (d) => breakdown(d.apps, sync)),
  argo('number of apps per cluster', (d) => breakdown(d.apps, (a) => d.clusterOf(a))),
  argo('apps per namespace', (d) => breakdown(d.apps, namespace)),

  // Time windows, other words (now is the estate's epoch; "since monday" is that week's Monday, 00:00 UTC).
  argo('what has been synced since monday?', (d) => appList(d, apps(d, (a) => syncedSince(d, a, sinceMonday(d))))),
  argo('how many apps were deployed in the past 2 days', (d) => count(apps(d, (a) => syncedWithin(d, a, 2 * DAY_MS)))),
  argo('anything synced over the last 30 minutes?', (d) => appList(d, apps(d, (a) => syncedWithin(d, a, HOUR_MS / 2)))),
  argo('failed syncs today', (d) => appList(d, apps(d, syncFailed, (a) => syncedSince(d, a, startOfDay(d))))),
  argo('which stg apps were deployed in the last 48h', (d) => appList(d, apps(d, envIs('staging'), (a) => syncedWithin(d, a, 2 * DAY_MS)))),

  // Two questions in one, other shapes.
  argo('which prod apps failed their last sync, and how many of those are degraded?', (d) => all(appList(d, apps(d, envIs('prod'), syncFailed)), appCount(apps(d, envIs('prod'), syncFailed, degraded)))),
  argo('list the missing apps in staging; also how many are suspended there?', (d) => all(appList(d, apps(d, envIs('staging'), healthIs('Missing'))), appCount(apps(d, envIs('staging'), healthIs('Suspended'))))),

  // One application: status, why, where, from which repository, at which revision.
  argo('whats up with analytics-scheduler-dev', (d) => wrongWith(d, 'analytics-scheduler-dev')),
  argo('why is pricing-worker-prod out of sync', (d) => wrongWith(d, 'pricing-worker-prod')),
  argo('which cluster is observability-scheduler-prod on?', (d) => facts(d.clusterOf(app(d, 'observability-scheduler-prod')) ?? '')),
  argo('what repo is support-ingest-qa built from', (d) => facts(repos(app(d, 'support-ingest-qa'))[0] ?? '')),
  argo('what revision is ml-gateway-dev at?', (d) => facts(revision(app(d, 'ml-gateway-dev')))),
  argo('has fraud-frontend-prod finished syncing yet?', (d) => facts(app(d, 'fraud-frontend-prod').status.operationState?.phase === 'Running' ? ['running', 'in progress', 'not finished', 'still syncing'] : ['finished', 'succeeded'])),
  argo('what project is checkout-api-prod-eu in?', (d) => facts(project(app(d, 'checkout-api-prod-eu')))),
  argo('staus of pricng-worker-prod', (d) => statusOf(d, 'pricing-worker-prod')),

  // What the Argo CD agent cannot do, other words.
  argo('please disable auto-sync for pricing-worker-prod', () => cannot()),
  argo('how much does the prod-eu-1 cluster cost per month?', () => cannot()),
  argo('who is the on-call engineer for pricing-worker-prod?', () => cannot()),
  argo('cpu utilisation on prod-us-1', () => cannot()),

  // An Argo CD conversation, narrowed by environment.
  argo('missing apps', (d) => appList(d, apps(d, healthIs('Missing')))),
  argo('just the ones in prod', (d) => appList(d, apps(d, healthIs('Missing'), envIs('prod'))), FOLLOW_UP),

  // NetBox, other words: devices by site, role, status; breakdowns; negations.
  netbox('list the firewalls in syd1', (d) => deviceList(d, devices(d, atSite('syd1'), roleIs('firewall')))),
  netbox('servers at tyo1 that are not active', (d) => deviceList(d, devices(d, atSite('tyo1'), roleIs('server'), (x) => status(x) !== 'active'))),
  netbox('planned or staged devices in syd1', (d) => deviceList(d, devices(d, atSite('syd1'), (x) => ['planned', 'staged'].includes(status(x))))),
  netbox('how many swtiches are in fra1?', (d) => count(devices(d, atSite('fra1'), roleIs('switch')))),
  netbox('cisco kit at lon1', (d) => deviceList(d, devices(d, atSite('lon1'), (x) => x.device_type.manufacturer.slug === 'cisco'))),
  netbox('devices per site', (d) => breakdown(d.devices, siteOf)),
  netbox('device count by role', (d) => breakdown(d.devices, role)),
  // One device, its interfaces.
  netbox('which rack is lon1-srv-007 mounted in', (d) => facts(device(d, 'lon1-srv-007').rack?.name ?? '')),
  netbox("what's the serial number of nyc1-sw-010", (d) => facts(device(d, 'nyc1-sw-010').serial)),
  netbox('disabled interfaces on nyc1-fw-02', (d) => interfaceList(d, 'nyc1-fw-02', (i) => !i.enabled)),
  netbox('what is the mgmt interface of lon1-rtr-01', (d) => interfaceList(d, 'lon1-rtr-01', (i) => i.mgmt_only)),
  // VLANs, prefixes, IP addresses, cables, sites, racks.
  netbox('vlans at ams1 that are not active', (d) => names(d.vlans.filter((v) => v.site?.slug === 'ams1' && status(v) !== 'active').map((v) => v.name), d.names.vlans)),
  netbox('how many reserved prefixes are there', (d) => count(d.prefixes.filter(statusIs('reserved')))),
  netbox('production prefixes at lon1', (d) => names(d.prefixes.filter((p) => p.site?.slug === 'lon1' && p.role?.slug === 'production').map((p) => p.prefix), d.names.prefixes)),
  netbox('which device is 10.5.0.4 assigned to?', (d) => ipFacts(d, '10.5.0.4')),
  netbox('how many addresses are free in 10.4.3.0/24', (d) => count(freeIn(d, '10.4.3.0/24'))),
  netbox('total number of cables in par1', (d) => count(d.cables.filter((c) => cableSite(d, c) === 'par1'))),
  netbox('how many cables are still planned?', (d) => count(d.cables.filter(cableStatusIs('planned')))),
  netbox('how many sites are in APAC?', (d) => count(d.sites.filter((s) => s.region?.slug === 'asia-pacific'))),
  // What the NetBox agent cannot do, other words.
  netbox('shut down interface xe-0/1/36 on lon1-rtr-01', () => cannot()),
  netbox('assign 10.4.3.50 to lon1-srv-007 please', () => cannot()),
  // A NetBox conversation.
  netbox('servers in ams1', (d) => deviceList(d, devices(d, atSite('ams1'), roleIs('server')))),
  netbox('how many of them are staged?', (d) => count(devices(d, atSite('ams1'), roleIs('server'), statusIs('staged'))), FOLLOW_UP),

  // The supervisor, other words: what it can do, a question per domain, questions spanning both, refusals.
  supervisor('hi there, what sort of things can you help me with?', () => facts('Argo CD', 'NetBox')),
  supervisor('how many prd apps are degraded?', (d) => count(apps(d, degraded, envIs('prod')))),
  supervisor('network devices with status failed at syd1 or par1', (d) => deviceList(d, devices(d, statusIs('failed'), (x) => ['syd1', 'par1'].includes(siteOf(x))))),
  supervisor('which cluster is pricing-worker-prod on, and how many routers are in sin1?', (d) => all(facts(d.clusterOf(app(d, 'pricing-worker-prod')) ?? ''), deviceCount(devices(d, atSite('sin1'), roleIs('router'))))),
  supervisor('how many apps are out of sync on prod-eu-1 and how many devices have failed in total?', (d) => all(appCount(apps(d, outOfSync, inCluster(d, 'prod-eu-1'))), deviceCount(devices(d, statusIs('failed'))))),
  supervisor('sync pricing-worker-prod and reboot ams1-rtr-01', () => cannot()),
  supervisor('what does our AWS bill look like this month?', () => cannot()),
];
