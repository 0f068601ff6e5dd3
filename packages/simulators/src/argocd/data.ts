import { z } from 'zod';
import { createRng } from '../prng.js';
import { generateApplications } from './applications.js';
import { buildApplicationSets, planApplicationSets } from './appsets.js';
import { buildClusters, indexClusters, planClusters } from './clusters.js';
import { parseOptions } from './options.js';
import { generateProjects } from './projects.js';
import type { ArgoEstate } from './types.js';

export interface ArgoEstateOptions {
  seed?: number;
  applications?: number;
  projects?: number;
  applicationSets?: number;
  clusters?: number;
}

/** The scale of the estate in the OOM design note: 819 applications, 236 projects, 287 sets, 13 clusters. */
export const ARGO_ESTATE_DEFAULTS = { seed: 20251105, applications: 819, projects: 236, applicationSets: 287, clusters: 13 } as const;

const count = (min: number, max: number) =>
  z
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max.toLocaleString('en-US')}`);

export const ArgoEstateOptionsSchema = z.strictObject({
  seed: count(0, 2 ** 32 - 1).default(ARGO_ESTATE_DEFAULTS.seed),
  applications: count(0, 200_000).default(ARGO_ESTATE_DEFAULTS.applications),
  // `default` always exists in Argo CD, so an estate has at least one project; in-cluster is always a cluster.
  projects: count(1, 100_000).default(ARGO_ESTATE_DEFAULTS.projects),
  applicationSets: count(0, 100_000).default(ARGO_ESTATE_DEFAULTS.applicationSets),
  clusters: count(1, 10_000).default(ARGO_ESTATE_DEFAULTS.clusters),
});

/**
 * A deterministic Argo CD estate: the same options give byte-identical JSON on every machine (a seeded mulberry32
 * sequence and a fixed epoch; nothing reads the clock). Applications, projects and sets come sorted by name;
 * cross-references agree (projects, destinations, ApplicationSet owners, cluster application counts).
 */
export function generateArgoEstate(options: ArgoEstateOptions = {}): ArgoEstate {
  const o = parseOptions(ArgoEstateOptionsSchema, options, 'Argo CD estate options');
  const rng = createRng(o.seed);
  const clusterPlans = planClusters(rng, o.clusters);
  const projects = generateProjects(rng, o.projects, clusterPlans);
  const setPlans = planApplicationSets(rng, o.applicationSets);
  const owners = new Map(setPlans.filter((p) => p.owns).map((p) => [`${p.team}-${p.service}`, p]));
  const applications = generateApplications(rng, o.applications, {
    projects: new Set(projects.map((p) => p.metadata.name)),
    clusters: clusterPlans,
    owners,
  });
  const applicationSets = buildApplicationSets(rng, setPlans, applications, indexClusters(clusterPlans));
  const clusters = buildClusters(clusterPlans, applications);
  return { applications, projects, applicationSets, clusters };
}
