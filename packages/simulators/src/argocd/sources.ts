import type { Rng } from '../prng.js';
import { helmValues, type ValuesFacts } from './helm-values.js';
import type { ArgoSource } from './types.js';

export type SourceKind = 'helm-git' | 'helm-chart' | 'kustomize' | 'directory' | 'multi';

export const SOURCE_KIND_WEIGHTS: readonly (readonly [SourceKind, number])[] = [
  ['helm-git', 50],
  ['helm-chart', 15],
  ['kustomize', 15],
  ['directory', 8],
  ['multi', 12],
];

/** An application's sources and what they resolve to (the revisions Argo CD reports for them). */
export interface ResolvedSources {
  readonly source?: ArgoSource;
  readonly sources?: ArgoSource[];
  /** The revision of a single-source application; `revisions` (one per source) for several. */
  readonly revision?: string;
  readonly revisions?: string[];
  readonly sourceType?: string;
  readonly sourceTypes?: string[];
}

export function sha(rng: Rng): string {
  return rng.hex(40);
}

/** Source(s) of one application, with inline Helm values for most Helm applications. */
export function resolveSources(rng: Rng, kind: SourceKind, name: string, team: string, service: string, env: string, facts: ValuesFacts): ResolvedSources {
  const git = `https://git.example.com/${team}/${service}.git`;
  const chartVersion = `${rng.int(0, 4)}.${rng.int(0, 30)}.${rng.int(0, 12)}`;
  switch (kind) {
    case 'helm-git': {
      const inline = rng.next() < 0.35;
      const parameters = [{ name: 'image.tag', value: facts.imageTag }];
      if (rng.next() < 0.3) parameters.push({ name: 'replicaCount', value: String(facts.replicas) });
      const source: ArgoSource = {
        repoURL: git,
        path: 'deploy/helm',
        targetRevision: rng.pick(['main', 'HEAD', `v${facts.imageTag}`]),
        helm: {
          valueFiles: ['values.yaml', `values-${env}.yaml`],
          parameters,
          ...(rng.next() < 0.3 ? { releaseName: name } : {}),
          ...(inline ? { values: helmValues(rng, team, service, env, facts) } : {}),
        },
      };
      return { source, revision: sha(rng), sourceType: 'Helm' };
    }
    case 'helm-chart': {
      const source: ArgoSource = {
        repoURL: 'https://charts.example.com',
        targetRevision: chartVersion,
        helm: { releaseName: service, ...(rng.next() < 0.55 ? { values: helmValues(rng, team, service, env, facts) } : {}) },
        chart: `${team}-${service}`,
      };
      return { source, revision: chartVersion, sourceType: 'Helm' };
    }
    case 'kustomize': {
      const source: ArgoSource = {
        repoURL: git,
        path: `deploy/overlays/${env}`,
        targetRevision: 'main',
        kustomize: { images: [`registry.example.com/${team}/${service}:${facts.imageTag}`], ...(rng.next() < 0.4 ? { commonLabels: { 'app.kubernetes.io/instance': name } } : {}) },
      };
      return { source, revision: sha(rng), sourceType: 'Kustomize' };
    }
    case 'directory': {
      const source: ArgoSource = { repoURL: git, path: `manifests/${env}`, targetRevision: 'HEAD', directory: { recurse: true, jsonnet: {} } };
      return { source, revision: sha(rng), sourceType: 'Directory' };
    }
    case 'multi': {
      const chart: ArgoSource = {
        repoURL: 'https://charts.example.com',
        targetRevision: chartVersion,
        helm: {
          valueFiles: [`$values/${team}/${service}/values.yaml`, `$values/${team}/${service}/values-${env}.yaml`],
          ...(rng.next() < 0.3 ? { values: helmValues(rng, team, service, env, facts) } : {}),
        },
        chart: `${team}-${service}`,
      };
      const values: ArgoSource = { repoURL: `https://git.example.com/${team}/deploy-config.git`, targetRevision: 'main', ref: 'values' };
      return { sources: [chart, values], revisions: [chartVersion, sha(rng)], sourceTypes: ['Helm', 'Directory'] };
    }
  }
}
