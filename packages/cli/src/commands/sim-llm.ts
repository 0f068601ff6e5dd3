import { boundedInt, HostSchema, LogLevelSchema, PortSchema, secretSchema } from '@flotilla/core';
import { startFakeAnthropic, startFakeOpenAi } from '@flotilla/simulators';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

/** What every fake LLM command shares; only the port (its default and variable) and the window default differ. */
function fakeLlmSettings(provider: { readonly name: string; readonly portEnv: string; readonly port: number; readonly contextWindow: number }) {
  return {
    host: { flag: 'host', env: 'FLOTILLA_HOST', schema: HostSchema.default('127.0.0.1'), help: 'Address to listen on' },
    port: { flag: 'port', env: provider.portEnv, schema: PortSchema.default(provider.port), help: `Port of the fake ${provider.name} API` },
    apiKey: {
      flag: 'api-key',
      env: 'FLOTILLA_LLM_API_KEY',
      // The fake refuses other keys at start; checking here names the flag instead.
      schema: secretSchema('the API key').regex(/^[\x21-\x7e]+$/, 'the API key must be printable ASCII without spaces'),
      help: 'API key clients must send (the agents\' --llm-api-key)',
      secret: true,
    },
    contextWindow: {
      flag: 'context-window',
      env: 'FLOTILLA_SIM_CONTEXT_WINDOW',
      schema: boundedInt(1, 100_000_000).optional(),
      help: `Prompt tokens above which a request gets the provider's "too long" 400 (default ${provider.contextWindow})`,
    },
    logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('info'), help: 'Log level' },
  } as const;
}

export const SIM_OPENAI_SETTINGS = fakeLlmSettings({ name: 'OpenAI', portEnv: 'FLOTILLA_OPENAI_SIM_PORT', port: 8096, contextWindow: 128_000 });
export const SIM_ANTHROPIC_SETTINGS = fakeLlmSettings({ name: 'Anthropic', portEnv: 'FLOTILLA_ANTHROPIC_SIM_PORT', port: 8097, contextWindow: 200_000 });

const SCRIPT =
  'It is a scripted stand-in for offline use (demos, tests, CI without a network or an API account), not a model: every\n' +
  'answer comes from a fixed script. After a question it calls find_tools (or the offered tool best matching the\n' +
  'question), then load_tools with the first match, then that tool, then quotes the tool\'s result back as its answer.\n' +
  'Every request is checked against the provider\'s wire format and the API key, and its prompt tokens against the\n' +
  'context window.';

export const simOpenAiCommand = defineCommand({
  ...listing('sim openai'),
  description:
    'Serves POST /v1/chat/completions (JSON and streamed) and GET /v1/models with OpenAI\'s wire format, bearer auth and error bodies.\n' +
    `${SCRIPT}\n` +
    'Give agents the logged base URL (it ends in /v1): --llm-provider openai --llm-base-url <url> --llm-api-key <key>.',
  settings: SIM_OPENAI_SETTINGS,
  examples: [
    'flotilla sim openai --api-key dev-key',
    'flotilla agent argocd --local --llm-provider openai --llm-base-url http://127.0.0.1:8096/v1 --llm-api-key dev-key',
    'FLOTILLA_LLM_API_KEY=dev-key flotilla sim openai --port 18096 --context-window 16000',
  ],
  async run({ settings, logger }) {
    const sim = await startFakeOpenAi({
      host: settings.host,
      port: settings.port,
      apiKey: settings.apiKey,
      ...(settings.contextWindow === undefined ? {} : { contextWindow: settings.contextWindow }),
      logger: logger.child({ component: 'openai-sim' }),
    });
    logger.info({ url: sim.url, llmBaseUrl: sim.baseUrl, agentFlags: `--llm-provider openai --llm-base-url ${sim.baseUrl}` }, 'fake OpenAI API listening');
    return sim;
  },
});

export const simAnthropicCommand = defineCommand({
  ...listing('sim anthropic'),
  description:
    'Serves POST /v1/messages (JSON and streamed) and GET /v1/models with Anthropic\'s wire format, x-api-key auth, the\n' +
    'anthropic-version header and its error bodies.\n' +
    `${SCRIPT}\n` +
    'Give agents the logged base URL: --llm-provider anthropic --llm-base-url <url> --llm-api-key <key>.',
  settings: SIM_ANTHROPIC_SETTINGS,
  examples: [
    'flotilla sim anthropic --api-key dev-key',
    'flotilla agent netbox --local --llm-provider anthropic --llm-base-url http://127.0.0.1:8097 --llm-api-key dev-key',
    'FLOTILLA_LLM_API_KEY=dev-key flotilla sim anthropic --port 18097 --context-window 32000',
  ],
  async run({ settings, logger }) {
    const sim = await startFakeAnthropic({
      host: settings.host,
      port: settings.port,
      apiKey: settings.apiKey,
      ...(settings.contextWindow === undefined ? {} : { contextWindow: settings.contextWindow }),
      logger: logger.child({ component: 'anthropic-sim' }),
    });
    logger.info({ url: sim.url, llmBaseUrl: sim.baseUrl, agentFlags: `--llm-provider anthropic --llm-base-url ${sim.baseUrl}` }, 'fake Anthropic API listening');
    return sim;
  },
});
