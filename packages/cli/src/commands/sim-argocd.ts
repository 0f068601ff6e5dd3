import { z } from 'zod';
import { boundedInt, HostSchema, LogLevelSchema, PortSchema, secretSchema } from '@flotilla/core';
import { ARGO_ESTATE_DEFAULTS, startArgoCdSimulator } from '@flotilla/simulators';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

const fraction = z.coerce
  .number({ message: 'must be a number from 0 to 1' })
  .min(0, 'must be a number from 0 to 1')
  .max(1, 'must be a number from 0 to 1');

export const SIM_ARGOCD_SETTINGS = {
  host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address to listen on' },
  port: { flag: 'port', env: 'FLOTILLA_ARGOCD_SIM_PORT', schema: PortSchema.default(8080), help: 'Port of the Argo CD API' },
  token: { flag: 'token', env: 'FLOTILLA_ARGOCD_TOKEN', schema: secretSchema('the Argo CD token'), help: 'Bearer token clients must send', secret: true },
  seed: { flag: 'seed', env: 'FLOTILLA_SIM_SEED', schema: boundedInt(0, 2 ** 31 - 1).default(ARGO_ESTATE_DEFAULTS.seed), help: 'Seed of the generated estate' },
  applications: {
    flag: 'applications',
    env: 'FLOTILLA_SIM_APPLICATIONS',
    schema: boundedInt(0, 100_000).default(ARGO_ESTATE_DEFAULTS.applications),
    help: 'Applications in the estate',
  },
  projects: { flag: 'projects', env: 'FLOTILLA_SIM_PROJECTS', schema: boundedInt(1, 10_000).default(ARGO_ESTATE_DEFAULTS.projects), help: 'Projects' },
  applicationSets: {
    flag: 'application-sets',
    env: 'FLOTILLA_SIM_APPLICATION_SETS',
    schema: boundedInt(0, 10_000).default(ARGO_ESTATE_DEFAULTS.applicationSets),
    help: 'Application sets',
  },
  epoch: {
    flag: 'epoch',
    env: 'FLOTILLA_SIM_EPOCH',
    schema: z
      .string()
      .refine((v) => v === 'now' || !Number.isNaN(Date.parse(v)), 'must be "now" or an RFC 3339 time, e.g. 2025-11-20T09:30:00Z')
      .default('now'),
    help: 'The estate\'s "now": its last syncs, events and logs lead up to it ("now": the start time; a fixed time gives the same bytes every run)',
  },
  clusters: { flag: 'clusters', env: 'FLOTILLA_SIM_CLUSTERS', schema: boundedInt(1, 1_000).default(ARGO_ESTATE_DEFAULTS.clusters), help: 'Clusters' },
  latencyMs: { flag: 'latency-ms', env: 'FLOTILLA_SIM_LATENCY_MS', schema: boundedInt(0, 120_000).default(0), help: 'Fault: delay before every answer' },
  errorRate: { flag: 'error-rate', env: 'FLOTILLA_SIM_ERROR_RATE', schema: fraction.default(0), help: 'Fault: fraction of API calls answered 503' },
  truncateRate: { flag: 'truncate-rate', env: 'FLOTILLA_SIM_TRUNCATE_RATE', schema: fraction.default(0), help: 'Fault: fraction of list bodies cut off midway' },
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
} as const;

export const simArgoCdCommand = defineCommand({
  ...listing('sim argocd'),
  description:
    'Serves /api/v1/applications (with each one\'s resource tree, managed resources, events and streamed logs), projects, applicationsets\n' +
    'and clusters with Argo CD\'s semantics (fields projection, label selectors, no pagination, bearer auth) over a deterministic estate,\n' +
    '819 applications by default.',
  settings: SIM_ARGOCD_SETTINGS,
  examples: [
    'flotilla sim argocd --token dev-token',
    'flotilla sim argocd --token dev-token --applications 10000 --port 18080',
    'FLOTILLA_ARGOCD_TOKEN=dev-token flotilla sim argocd --error-rate 0.2 --latency-ms 300',
  ],
  async run({ settings, logger }) {
    const sim = await startArgoCdSimulator({
      host: settings.host,
      port: settings.port,
      token: settings.token,
      estate: {
        seed: settings.seed,
        applications: settings.applications,
        projects: settings.projects,
        applicationSets: settings.applicationSets,
        clusters: settings.clusters,
        epoch: settings.epoch === 'now' ? Date.now() : Date.parse(settings.epoch),
      },
      faults: { latencyMs: settings.latencyMs, errorRate: settings.errorRate, truncateRate: settings.truncateRate },
      logger: logger.child({ component: 'argocd-sim' }),
    });
    logger.info({ url: sim.url, applications: settings.applications }, 'Argo CD simulator listening');
    return sim;
  },
});
