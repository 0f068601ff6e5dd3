import { z } from 'zod';
import { boundedInt, HostSchema, LogLevelSchema, PortSchema, secretSchema } from '@flotilla/core';
import { NETBOX_ESTATE_DEFAULTS, startNetBoxSimulator } from '@flotilla/simulators';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

const fraction = z.coerce
  .number({ message: 'must be a number from 0 to 1' })
  .min(0, 'must be a number from 0 to 1')
  .max(1, 'must be a number from 0 to 1');

export const SIM_NETBOX_SETTINGS = {
  host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address to listen on' },
  port: { flag: 'port', env: 'FLOTILLA_NETBOX_SIM_PORT', schema: PortSchema.default(8000), help: 'Port of the NetBox API (/api/...)' },
  token: { flag: 'token', env: 'FLOTILLA_NETBOX_TOKEN', schema: secretSchema('the NetBox token'), help: 'API token clients must send (Authorization: Token ...)', secret: true },
  seed: { flag: 'seed', env: 'FLOTILLA_SIM_SEED', schema: boundedInt(0, 2 ** 31 - 1).default(NETBOX_ESTATE_DEFAULTS.seed), help: 'Seed of the generated estate' },
  sites: { flag: 'sites', env: 'FLOTILLA_SIM_SITES', schema: boundedInt(1, 1_000).default(NETBOX_ESTATE_DEFAULTS.sites), help: 'Sites' },
  devices: { flag: 'devices', env: 'FLOTILLA_SIM_DEVICES', schema: boundedInt(1, 100_000).default(NETBOX_ESTATE_DEFAULTS.devices), help: 'Devices' },
  interfacesPerDevice: {
    flag: 'interfaces-per-device',
    env: 'FLOTILLA_SIM_INTERFACES_PER_DEVICE',
    schema: boundedInt(1, 200).default(NETBOX_ESTATE_DEFAULTS.interfacesPerDevice),
    help: 'Interfaces per device on average',
  },
  vlans: { flag: 'vlans', env: 'FLOTILLA_SIM_VLANS', schema: boundedInt(0, 100_000).default(NETBOX_ESTATE_DEFAULTS.vlans), help: 'VLANs' },
  maxPageSize: { flag: 'max-page-size', env: 'FLOTILLA_SIM_MAX_PAGE_SIZE', schema: boundedInt(1, 100_000).default(1_000), help: 'NetBox MAX_PAGE_SIZE (limit=0 means this)' },
  rateLimit: { flag: 'rate-limit', env: 'FLOTILLA_SIM_RATE_LIMIT', schema: z.coerce.number().min(0).max(100_000).default(0), help: 'Requests per second per token before 429 (0: no limit)' },
  rateBurst: { flag: 'rate-burst', env: 'FLOTILLA_SIM_RATE_BURST', schema: boundedInt(1, 100_000).default(10), help: 'Burst of the per-token rate limit' },
  latencyMs: { flag: 'latency-ms', env: 'FLOTILLA_SIM_LATENCY_MS', schema: boundedInt(0, 120_000).default(0), help: 'Fault: delay before every answer' },
  errorRate: { flag: 'error-rate', env: 'FLOTILLA_SIM_ERROR_RATE', schema: fraction.default(0), help: 'Fault: fraction of API calls answered 503' },
  truncateRate: { flag: 'truncate-rate', env: 'FLOTILLA_SIM_TRUNCATE_RATE', schema: fraction.default(0), help: 'Fault: fraction of list bodies cut off midway' },
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
} as const;

export const simNetBoxCommand = defineCommand({
  ...listing('sim netbox'),
  description:
    'Serves /api/dcim/{sites,racks,devices,interfaces,cables,modules} and /api/ipam/{vlans,prefixes,ip-addresses} with NetBox\'s\n' +
    'semantics (limit/offset paging, brief, fields, OR-ed repeated filters, q search, Token auth, 429 with Retry-After) over a\n' +
    'deterministic estate: 12 sites, 600 devices, 24,000 interfaces by default.',
  settings: SIM_NETBOX_SETTINGS,
  examples: [
    'flotilla sim netbox --token dev-token',
    'flotilla sim netbox --token dev-token --devices 6000 --sites 60 --port 18000',
    'FLOTILLA_NETBOX_TOKEN=dev-token flotilla sim netbox --rate-limit 5 --rate-burst 5 --error-rate 0.1',
  ],
  async run({ settings, logger }) {
    const sim = await startNetBoxSimulator({
      host: settings.host,
      port: settings.port,
      token: settings.token,
      estate: { seed: settings.seed, sites: settings.sites, devices: settings.devices, interfacesPerDevice: settings.interfacesPerDevice, vlans: settings.vlans },
      maxPageSize: settings.maxPageSize,
      ...(settings.rateLimit > 0 ? { rateLimit: { requestsPerSecond: settings.rateLimit, burst: settings.rateBurst } } : {}),
      faults: { latencyMs: settings.latencyMs, errorRate: settings.errorRate, truncateRate: settings.truncateRate },
      logger: logger.child({ component: 'netbox-sim' }),
    });
    logger.info({ url: sim.url, devices: settings.devices }, 'NetBox simulator listening');
    return sim;
  },
});
