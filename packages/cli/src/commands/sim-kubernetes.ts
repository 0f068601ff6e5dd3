import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { FlotillaError, HostSchema, LogLevelSchema, optionalSecretSchema, PortSchema } from '@flotilla/core';
import { KUBERNETES_SIM_LIMITS, startKubernetesSimulator, type KubeService } from '@flotilla/simulators';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

/** Largest --services file read. */
const SERVICES_FILE_MAX_BYTES = 16 * 1024 * 1024;

/** Longest file path taken (Linux's PATH_MAX). */
const PATH_MAX_CHARS = 4096;

export const SIM_KUBERNETES_SETTINGS = {
  host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address to listen on' },
  port: { flag: 'port', env: 'FLOTILLA_KUBERNETES_SIM_PORT', schema: PortSchema.default(6443), help: 'Port of the Kubernetes API' },
  services: {
    flag: 'services',
    env: 'FLOTILLA_SIM_SERVICES',
    schema: z.string().min(1).max(PATH_MAX_CHARS).optional(),
    help: 'JSON file of the Services to serve from the start: a list of Service objects, or a v1 List/ServiceList (e.g. `helm template` output converted to JSON); other kinds are ignored',
  },
  token: {
    flag: 'token',
    env: 'FLOTILLA_KUBERNETES_TOKEN',
    schema: optionalSecretSchema('the token'),
    help: 'Bearer token clients must send (a ServiceAccount token); unset: no authentication',
    secret: true,
  },
  tlsCert: { flag: 'tls-cert', env: 'FLOTILLA_TLS_CERT', schema: z.string().min(1).max(PATH_MAX_CHARS).optional(), help: 'PEM certificate file: serve HTTPS, as a real API server (with --tls-key)' },
  tlsKey: { flag: 'tls-key', env: 'FLOTILLA_TLS_KEY', schema: z.string().min(1).max(PATH_MAX_CHARS).optional(), help: 'PEM private key file of --tls-cert' },
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
} as const;

const ServiceFileSchema = z.union([
  z.array(z.record(z.string(), z.unknown())),
  z.object({ items: z.array(z.record(z.string(), z.unknown())) }).transform((list) => list.items),
]);

/** The Services in a JSON file (kind Service, or no kind), bounded in bytes and count. */
async function readServices(path: string): Promise<KubeService[]> {
  const fail = (why: string): never => {
    throw new FlotillaError('config_invalid', `--services ${path}: ${why}`, { remedy: 'Give a JSON file holding a list of Service objects, or a v1 List or ServiceList.' });
  };
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    fail(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (text.length > SERVICES_FILE_MAX_BYTES) fail(`is over ${SERVICES_FILE_MAX_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail('is not JSON');
  }
  const parsed = ServiceFileSchema.safeParse(json);
  if (!parsed.success) return fail('is not a list of objects');
  const services = parsed.data.filter((o) => o.kind === undefined || o.kind === 'Service') as KubeService[];
  if (services.length > KUBERNETES_SIM_LIMITS.maxServices) fail(`holds more than ${KUBERNETES_SIM_LIMITS.maxServices} Services`);
  return services;
}

export const simKubernetesCommand = defineCommand({
  ...listing('sim kubernetes'),
  description:
    'Serves /api/v1/services and /api/v1/namespaces/<ns>/services with the API server\'s list and watch semantics (label selectors,\n' +
    'resourceVersion, 410 Gone, Status errors), over HTTPS with --tls-cert/--tls-key and behind a bearer token with --token.',
  settings: SIM_KUBERNETES_SETTINGS,
  examples: ['flotilla sim kubernetes --services services.json', 'flotilla sim kubernetes --host 0.0.0.0 --tls-cert tls.crt --tls-key tls.key --token sa-token --services services.json'],
  async run({ settings, logger }) {
    if ((settings.tlsCert === undefined) !== (settings.tlsKey === undefined)) {
      throw new FlotillaError('config_invalid', '--tls-cert and --tls-key go together', { remedy: 'Give both PEM files, or neither for plain HTTP.' });
    }
    const tls = settings.tlsCert === undefined || settings.tlsKey === undefined ? undefined : { cert: await readFile(settings.tlsCert), key: await readFile(settings.tlsKey) };
    const sim = await startKubernetesSimulator({
      host: settings.host,
      port: settings.port,
      services: settings.services === undefined ? [] : await readServices(settings.services),
      token: settings.token,
      tls,
      logger: logger.child({ component: 'kubernetes-sim' }),
    });
    return { url: sim.url, close: () => sim.close() };
  },
});
