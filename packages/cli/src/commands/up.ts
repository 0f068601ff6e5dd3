import { z } from 'zod';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent } from '@flotilla/agent-argocd';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent } from '@flotilla/agent-netbox';
import { SUPERVISOR_SETTINGS, startSupervisor } from '@flotilla/agent-supervisor';
import { HostSchema, HttpUrlSchema, LogLevelSchema, PortSchema, parseSettings, type FlagValues } from '@flotilla/core';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

export const UP_SETTINGS = {
  host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address every piece listens on' },
  port: { flag: 'port', env: 'FLOTILLA_SUPERVISOR_PORT', schema: PortSchema.default(8090), help: 'Port of the supervisor; the Argo CD agent takes port+2, the NetBox agent port+4 (0: any free ports)' },
  argocdUrl: { flag: 'argocd-url', env: 'FLOTILLA_ARGOCD_URL', schema: HttpUrlSchema.optional(), help: 'Argo CD API; unset starts the Argo CD simulator' },
  argocdToken: { flag: 'argocd-token', env: 'FLOTILLA_ARGOCD_TOKEN', schema: z.string().min(1).max(4096).optional(), help: 'Argo CD token', secret: true },
  netboxUrl: { flag: 'netbox-url', env: 'FLOTILLA_NETBOX_URL', schema: HttpUrlSchema.optional(), help: 'NetBox URL; unset starts the NetBox simulator' },
  netboxToken: { flag: 'netbox-token', env: 'FLOTILLA_NETBOX_TOKEN', schema: z.string().min(1).max(4096).optional(), help: 'NetBox API token', secret: true },
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
} as const;

export const upCommand = defineCommand({
  ...listing('up'),
  description:
    'Starts the Argo CD agent and the NetBox agent (each with its tools in process, against the given upstream or a local simulator)\n' +
    'and the supervisor in front of them, on loopback by default. Then ask: flotilla ask "which apps are out of sync in prod?"',
  settings: UP_SETTINGS,
  examples: ['flotilla up', 'flotilla up --netbox-url https://netbox.example.com --netbox-token "$NETBOX_TOKEN"', 'flotilla up --port 9090'],
  async run({ settings, logger }) {
    const flags = (values: Record<string, string | undefined>): FlagValues => Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined));
    const common = { host: settings.host, 'log-level': settings.logLevel };
    const argocd = await startArgoCdAgent(
      parseSettings(
        ARGOCD_AGENT_SETTINGS,
        flags({ ...common, port: String(settings.port === 0 ? 0 : settings.port + 2), 'argocd-url': settings.argocdUrl, 'argocd-token': settings.argocdToken, ...(settings.argocdUrl === undefined ? { local: 'true' } : {}) }),
        {},
        'flotilla up: Argo CD agent',
      ),
      logger.child({ agent: 'argocd' }),
    );
    const netbox = await startNetBoxAgent(
      parseSettings(
        NETBOX_AGENT_SETTINGS,
        flags({ ...common, port: String(settings.port === 0 ? 0 : settings.port + 4), 'netbox-url': settings.netboxUrl, 'netbox-token': settings.netboxToken, ...(settings.netboxUrl === undefined ? { local: 'true' } : {}) }),
        {},
        'flotilla up: NetBox agent',
      ),
      logger.child({ agent: 'netbox' }),
    );
    const supervisor = await startSupervisor(
      parseSettings(SUPERVISOR_SETTINGS, flags({ ...common, port: String(settings.port), agents: `argocd=${argocd.url},netbox=${netbox.url}` }), {}, 'flotilla up: supervisor'),
      logger.child({ agent: 'supervisor' }),
    );
    logger.info({ url: supervisor.url, argocd: argocd.url, netbox: netbox.url }, 'Flotilla is up');
    return {
      // Together, not one after the other: each drains its turns for up to TURN_LIMITS.drainMs, and the whole stop
      // must fit the CLI's force-exit.
      async close() {
        await Promise.all([supervisor.close(), argocd.close(), netbox.close()]);
      },
    };
  },
});
