import type { Rng } from '../prng.js';
import type { ClusterPlan } from './clusters.js';
import type { ArgoProject, ProjectRole } from './types.js';
import { ARGOCD_NAMESPACE, ENVS, REGIONS, TEAMS, byName, sortedMap, timestamp, uuid } from './words.js';

/** Project names: Argo CD's built-in `default`, then `<team>-<env>`, then `<team>-<env>-<region>[-n]`. */
function projectNames(rng: Rng, count: number): string[] {
  const names = ['default'];
  const teamEnv = rng.shuffle(TEAMS.flatMap((team) => ENVS.map((env) => `${team}-${env}`)));
  const regional = rng.shuffle(TEAMS.flatMap((team) => ENVS.flatMap((env) => REGIONS.map((region) => `${team}-${env}-${region}`))));
  names.push(...teamEnv.slice(0, count - names.length));
  names.push(...regional.slice(0, Math.max(0, count - names.length)));
  for (let n = 2; names.length < count; n += 1) {
    for (const base of regional) {
      if (names.length >= count) break;
      names.push(`${base}-${n}`);
    }
  }
  return names.slice(0, count);
}

function defaultProject(rng: Rng): ArgoProject {
  return {
    metadata: { name: 'default', namespace: ARGOCD_NAMESPACE, uid: uuid(rng), resourceVersion: String(rng.int(1_000, 99_999)), generation: 1, creationTimestamp: timestamp(rng, 1_000 * 86_400) },
    spec: { sourceRepos: ['*'], destinations: [{ server: '*', namespace: '*' }], clusterResourceWhitelist: [{ group: '*', kind: '*' }] },
    status: {},
  };
}

function teamProject(rng: Rng, name: string, clusters: readonly ClusterPlan[]): ArgoProject {
  const [team = 'platform', env = 'dev', region] = name.split('-');
  const targets = clusters.filter((c) => c.env === env && (region === undefined || c.region === region));
  const destinations = (targets.length > 0 ? targets : clusters.slice(0, 1)).flatMap((c) => [
    { server: c.server, namespace: team },
    { server: c.server, namespace: `${team}-*` },
  ]);
  const ci = rng.next() < 0.35;
  const tokens = ci ? Array.from({ length: rng.int(1, 3) }, () => ({ iat: rng.int(1_700_000_000, 1_760_000_000), id: uuid(rng) })) : [];
  const roles: ProjectRole[] = [
    {
      name: 'developers',
      description: `${team} engineers: read everything, sync outside ${env === 'prod' ? 'change freezes' : 'nothing'}`,
      policies: [`p, proj:${name}:developers, applications, get, ${name}/*, allow`, `p, proj:${name}:developers, applications, sync, ${name}/*, allow`, `p, proj:${name}:developers, logs, get, ${name}/*, allow`],
      groups: [`${team}-engineers`, `${team}-oncall`],
    },
  ];
  if (ci) {
    roles.push({ name: 'ci', description: 'CI pipeline token', policies: [`p, proj:${name}:ci, applications, sync, ${name}/*, allow`, `p, proj:${name}:ci, applications, get, ${name}/*, allow`], jwtTokens: tokens });
  }
  const project: ArgoProject = {
    metadata: {
      name,
      namespace: ARGOCD_NAMESPACE,
      uid: uuid(rng),
      resourceVersion: String(rng.int(10_000, 99_999_999)),
      generation: rng.int(1, 40),
      creationTimestamp: timestamp(rng, 900 * 86_400),
      labels: sortedMap({ team, env, 'example.com/cost-center': `cc-${rng.int(1000, 9999)}` }),
    },
    spec: {
      sourceRepos: [`https://git.example.com/${team}/*`, 'https://charts.example.com', 'https://git.example.com/platform/helm-charts.git'],
      destinations,
      description: `${team} services in ${env}${region === undefined ? '' : ` (${region})`}`,
      roles,
      clusterResourceWhitelist: [{ group: '', kind: 'Namespace' }],
      namespaceResourceBlacklist: [
        { group: '', kind: 'ResourceQuota' },
        { group: '', kind: 'LimitRange' },
      ],
      ...(rng.next() < 0.3 ? { orphanedResources: { warn: true } } : {}),
      ...(env === 'prod'
        ? { syncWindows: [{ kind: 'deny', schedule: '0 22 * * *', duration: '8h', applications: ['*'], manualSync: true, timeZone: 'Europe/Berlin' }] }
        : {}),
    },
    status: ci ? { jwtTokensByRole: { ci: { items: tokens } } } : {},
  };
  return project;
}

/** `count` projects (at least `default`), sorted by name as the Kubernetes API lists them. */
export function generateProjects(rng: Rng, count: number, clusters: readonly ClusterPlan[]): ArgoProject[] {
  return projectNames(rng, count)
    .map((name) => (name === 'default' ? defaultProject(rng) : teamProject(rng, name, clusters)))
    .sort(byName);
}
