import {
  BooleanFlagSchema,
  FlotillaError,
  HttpUrlSchema,
  boundedInt,
  hostSetting,
  logLevelSetting,
  optionalSecretSchema,
  portSetting,
  secretSchema,
  tokenSchema,
  type Settings,
  type SettingsSpec,
} from '@flotilla/core';

export const SLACK_BOT_SETTINGS = {
  host: hostSetting(),
  port: portSetting({ env: 'FLOTILLA_SLACK_PORT', default: 8095, help: 'Port of /slack/events (events and interactivity, HTTP mode), /healthz, /readyz and /metrics' }),
  agentUrl: {
    flag: 'agent-url',
    env: 'FLOTILLA_SUPERVISOR_URL',
    schema: HttpUrlSchema.default('http://127.0.0.1:8090'),
    help: 'Base URL of the A2A agent that answers (the supervisor)',
  },
  agentToken: {
    flag: 'agent-token',
    env: 'FLOTILLA_SUPERVISOR_TOKEN',
    schema: tokenSchema('the supervisor\'s token').optional(),
    help: 'Token the supervisor accepts (one of its --a2a-tokens), sent as a bearer token',
    secret: true,
  },
  botToken: { flag: 'bot-token', env: 'FLOTILLA_SLACK_BOT_TOKEN', schema: secretSchema('the Slack bot token (xoxb-...)'), help: 'Slack bot token (xoxb-...)', secret: true },
  signingSecret: {
    flag: 'signing-secret',
    env: 'FLOTILLA_SLACK_SIGNING_SECRET',
    schema: optionalSecretSchema('the Slack signing secret'),
    help: 'Slack signing secret, to verify requests (required in HTTP mode)',
    secret: true,
  },
  socketMode: {
    flag: 'socket-mode',
    env: 'FLOTILLA_SLACK_SOCKET_MODE',
    schema: BooleanFlagSchema.default(false),
    help: 'Receive events over Socket Mode (needs --app-token) instead of HTTP',
    isSwitch: true,
  },
  appToken: { flag: 'app-token', env: 'FLOTILLA_SLACK_APP_TOKEN', schema: optionalSecretSchema('the Slack app-level token'), help: 'Slack app-level token (xapp-...), required in Socket Mode', secret: true },
  slackApiUrl: {
    flag: 'slack-api-url',
    env: 'FLOTILLA_SLACK_API_URL',
    schema: HttpUrlSchema.optional(),
    help: 'Base URL of a Slack-compatible Web API (…/api/); https://slack.com/api/ when unset',
  },
  questionMaxTokens: {
    flag: 'question-max-tokens',
    env: 'FLOTILLA_SLACK_QUESTION_MAX_TOKENS',
    schema: boundedInt(1, 100_000).default(1000),
    help: 'Longest question sent to the agent, in tokens; longer ones are cut (and the user told)',
  },
  agentTimeoutMs: {
    flag: 'agent-timeout-ms',
    env: 'FLOTILLA_SLACK_AGENT_TIMEOUT_MS',
    schema: boundedInt(1000, 3_600_000).default(120_000),
    help: 'How long one question may take at the agent before the user is told it timed out',
  },
  maxInFlight: {
    flag: 'max-in-flight',
    env: 'FLOTILLA_SLACK_MAX_IN_FLIGHT',
    schema: boundedInt(1, 1000).default(20),
    help: 'Questions answered at once; more get a "busy, try again" reply',
  },
  logLevel: logLevelSetting(),
} as const satisfies SettingsSpec;

export type SlackBotConfig = Settings<typeof SLACK_BOT_SETTINGS>;

/** The rules between settings that one field's schema cannot express; throws `config_invalid` naming each. */
export function checkSlackBotConfig(config: SlackBotConfig): void {
  const problems: string[] = [];
  if (config.socketMode && config.appToken === undefined) problems.push('  --app-token / FLOTILLA_SLACK_APP_TOKEN: is required in Socket Mode (not set)');
  if (!config.socketMode && config.signingSecret === undefined) {
    problems.push('  --signing-secret / FLOTILLA_SLACK_SIGNING_SECRET: is required in HTTP mode (not set); or use --socket-mode with --app-token');
  }
  if (problems.length > 0) {
    throw new FlotillaError('config_invalid', `invalid Slack bot settings:\n${problems.join('\n')}`, {
      remedy: 'Fix the settings named above (flags or environment variables) and start again; --help lists them.',
    });
  }
}
