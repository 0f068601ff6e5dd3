import { z } from 'zod';
import { createRng } from '../prng.js';
import { generateApplications } from './applications.js';
import { applicationManagedFields } from './managed-fields.js';
import { buildApplicationSets, planApplicationSets } from './appsets.js';
import { buildClusters, indexClusters, planClusters } from './clusters.js';
import { parseOptions } from './options.js';
import { generateProjects } from './projects.js';
import type { ArgoEstate } from './types.js';
import { ARGO_ESTATE_EPOCH } from './words.js';

export interface ArgoEstateOptions {
  seed?: number;
  applications?: number;
  projects?: number;
  applicationSets?: number;
  clusters?: number;
  /**
   * The estate's "now": an ISO 8601 instant or epoch milliseconds (default `ARGO_ESTATE_EPOCH`,
   * 2025-11-20T09:30:00Z). Every timestamp of the estate moves with it, and the simulator's events, logs and
   * `sinceSeconds` are relative to it, so a demo with `epoch: Date.now()` looks current.
   */
  epoch?: number | string;
  /** Adds `metadata.managedFields` to every application as the API server sends them (default false). */
  managedFields?: boolean;
}

/** The scale of the estate in the OOM design note: 819 applications, 236 projects, 287 sets, 13 clusters. */
export const ARGO_ESTATE_DEFAULTS = { seed: 20251105, applications: 819, projects: 236, applicationSets: 287, clusters: 13 } as const;

const count = (min: number, max: number) =>
  z
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max.toLocaleString('en-US')}`);

/** The range `epoch` may take: 2000-01-01 to 2100-01-01 (any instant a demo or a test could want). */
const EPOCH_RANGE = [Date.UTC(2000, 0, 1), Date.UTC(2100, 0, 1)] as const;
const epochMessage = 'must be an ISO 8601 instant or epoch milliseconds from 2000 to 2100';
const EpochSchema = z.unknown().transform((value, ctx) => {
  const ms = typeof value === 'number' && Number.isInteger(value) ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms) || ms < EPOCH_RANGE[0] || ms > EPOCH_RANGE[1]) {
    ctx.addIssue({ code: 'custom', message: epochMessage });
    return z.NEVER;
  }
  // Timestamps are whole seconds (metav1.Time); so is the epoch.
  return Math.floor(ms / 1000) * 1000;
});

export const ArgoEstateOptionsSchema = z.strictObject({
  seed: count(0, 2 ** 32 - 1).default(ARGO_ESTATE_DEFAULTS.seed),
  applications: count(0, 200_000).default(ARGO_ESTATE_DEFAULTS.applications),
  // `default` always exists in Argo CD, so an estate has at least one project; in-cluster is always a cluster.
  projects: count(1, 100_000).default(ARGO_ESTATE_DEFAULTS.projects),
  applicationSets: count(0, 100_000).default(ARGO_ESTATE_DEFAULTS.applicationSets),
  clusters: count(1, 10_000).default(ARGO_ESTATE_DEFAULTS.clusters),
  epoch: EpochSchema.default(ARGO_ESTATE_EPOCH),
  managedFields: z.boolean({ message: 'must be true or false' }).default(false),
});

/** The "now" each generated estate was built for (estates built elsewhere get the default). */
const EPOCHS = new WeakMap<ArgoEstate, number>();

/** The instant an estate is "now" at: its `epoch` option, else `ARGO_ESTATE_EPOCH`. */
export function estateEpoch(estate: ArgoEstate): number {
  return EPOCHS.get(estate) ?? ARGO_ESTATE_EPOCH;
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * Moves every timestamp of a freshly generated estate by `deltaMs`, in place: each string that is an RFC 3339
 * instant (creation times, status times, managedFields times...) and the JWT `iat`/`exp` seconds of project
 * tokens. Generating at the default epoch and shifting at the end keeps the default output byte-identical.
 * The generator shares some objects between places (a cluster's connection state is also its info's), so each
 * object is shifted once.
 */
function shiftTimes(value: unknown, deltaMs: number, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return RFC3339.test(value) ? new Date(Date.parse(value) + deltaMs).toISOString().replace(/\.000Z$/, 'Z') : value;
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) value[i] = shiftTimes(value[i], deltaMs, seen);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const child = record[key];
    record[key] = (key === 'iat' || key === 'exp') && typeof child === 'number' ? child + Math.round(deltaMs / 1000) : shiftTimes(child, deltaMs, seen);
  }
  return value;
}

/**
 * A deterministic Argo CD estate: the same options give byte-identical JSON on every machine (a seeded mulberry32
 * sequence and a fixed epoch, `options.epoch`; nothing reads the clock). Applications, projects and sets come
 * sorted by name; cross-references agree (projects, destinations, ApplicationSet owners, cluster application
 * counts).
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
  if (o.managedFields) for (const app of applications) app.metadata.managedFields = applicationManagedFields(app);
  const estate: ArgoEstate = { applications, projects, applicationSets, clusters };
  if (o.epoch !== ARGO_ESTATE_EPOCH) shiftTimes(estate, o.epoch - ARGO_ESTATE_EPOCH);
  EPOCHS.set(estate, o.epoch);
  return estate;
}
