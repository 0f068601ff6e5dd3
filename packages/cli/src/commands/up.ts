import { SUPERVISOR_SETTINGS, startSupervisor } from '@flotilla/agent-supervisor';
import { hostSetting, HttpUrlSchema, logLevelSetting, optionalSecretSchema, portSetting, parseSettings, type FlagValues, type SettingsSpec } from '@flotilla/core';
import { defineCommand, type Running } from '../cli.js';
import { listing } from './catalogue.js';
import { DOMAIN_AGENTS, SUPERVISOR_DEFAULT_PORT, type DomainAgentEntry } from './registry.js';

/** Where `up` puts an agent: as far from the supervisor's port as their default ports are (0: any free port). */
export function upPort(entry: DomainAgentEntry, supervisorPort: number): number {
  return supervisorPort === 0 ? 0 : supervisorPort + (entry.ports.agent - SUPERVISOR_DEFAULT_PORT);
}

/** `--<name>-url` and `--<name>-token` of every domain agent: unset, `up` starts its simulator. */
const upstreamSettings = Object.fromEntries(
  DOMAIN_AGENTS.flatMap((entry) => [
    [`${entry.name}Url`, { flag: `${entry.name}-url`, env: `FLOTILLA_${entry.name.toUpperCase()}_URL`, schema: HttpUrlSchema.optional(), help: `${entry.title} API; unset starts the ${entry.title} simulator` }],
    [`${entry.name}Token`, { flag: `${entry.name}-token`, env: `FLOTILLA_${entry.name.toUpperCase()}_TOKEN`, schema: optionalSecretSchema(`the ${entry.title} token`), help: `${entry.title} token`, secret: true }],
  ]),
) as SettingsSpec;

export const UP_SETTINGS = {
  host: hostSetting('127.0.0.1', 'Address every piece listens on'),
  port: portSetting({
    env: 'FLOTILLA_SUPERVISOR_PORT',
    default: SUPERVISOR_DEFAULT_PORT,
    help: `Port of the supervisor; ${DOMAIN_AGENTS.map((e) => `the ${e.title} agent takes port+${e.ports.agent - SUPERVISOR_DEFAULT_PORT}`).join(', ')} (0: any free ports)`,
  }),
  ...upstreamSettings,
  logLevel: logLevelSetting(),
} as const satisfies SettingsSpec;

export const upCommand = defineCommand({
  ...listing('up'),
  description:
    `Starts ${DOMAIN_AGENTS.map((e) => `the ${e.title} agent`).join(' and ')} (each with its tools in process, against the given upstream or a local simulator)\n` +
    'and the supervisor in front of them, on loopback by default. Then ask: flotilla ask "which apps are out of sync in prod?"',
  settings: UP_SETTINGS,
  examples: ['flotilla up', 'flotilla up --netbox-url https://netbox.example.com --netbox-token "$NETBOX_TOKEN"', 'flotilla up --port 9090'],
  async run({ settings, logger }) {
    const values = settings as Readonly<Record<string, string | number | undefined>>;
    const flags = (given: Record<string, string | undefined>): FlagValues => Object.fromEntries(Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined));
    const common = { host: settings.host, 'log-level': settings.logLevel };
    const started: { readonly name: string; readonly agent: Running & { readonly url: string } }[] = [];
    try {
      for (const entry of DOMAIN_AGENTS) {
        const url = values[`${entry.name}Url`] as string | undefined;
        const token = values[`${entry.name}Token`] as string | undefined;
        const hosted = await entry.agent.load();
        const config = parseSettings(
          hosted.settings,
          flags({ ...common, port: String(upPort(entry, settings.port)), [`${entry.name}-url`]: url, [`${entry.name}-token`]: token, ...(url === undefined ? { local: 'true' } : {}) }),
          {},
          `flotilla up: ${entry.title} agent`,
        );
        started.push({ name: entry.name, agent: await hosted.startAgent(config, logger.child({ agent: entry.name }), { simulator: entry.startSimulator }) });
      }
    } catch (error) {
      await Promise.all(started.map((s) => s.agent.close()));
      throw error;
    }
    const agents = started.map((s) => `${s.name}=${s.agent.url}`).join(',');
    let supervisor: Running & { readonly url: string };
    try {
      supervisor = await startSupervisor(parseSettings(SUPERVISOR_SETTINGS, flags({ ...common, port: String(settings.port), agents }), {}, 'flotilla up: supervisor'), logger.child({ agent: 'supervisor' }));
    } catch (error) {
      await Promise.all(started.map((s) => s.agent.close()));
      throw error;
    }
    logger.info({ url: supervisor.url, ...Object.fromEntries(started.map((s) => [s.name, s.agent.url])) }, 'Flotilla is up');
    return {
      // Together, not one after the other: each drains its turns for up to TURN_LIMITS.drainMs, and the whole stop
      // must fit the CLI's force-exit.
      async close() {
        await Promise.all([supervisor.close(), ...started.map((s) => s.agent.close())]);
      },
    };
  },
});
