import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { BooleanFlagSchema, HttpUrlSchema, LogLevelSchema, TOKEN_MAX_CHARS } from '@flotilla/core';
import { connectA2AAgent, QUESTION_MAX_CHARS, textRequest } from '@flotilla/agent-kit';
import { defineCommand, type Output } from '../cli.js';
import { listing } from './catalogue.js';

export const ASK_SETTINGS = {
  question: { flag: 'question', env: 'FLOTILLA_QUESTION', schema: z.string().min(1, 'must not be empty').max(QUESTION_MAX_CHARS, `must be at most ${QUESTION_MAX_CHARS} characters`), help: 'The question (or give it as the first word after ask)' },
  agent: { flag: 'agent', env: 'FLOTILLA_AGENT_URL', schema: HttpUrlSchema.default('http://127.0.0.1:8090'), help: 'Base URL of the A2A agent (default: the supervisor)' },
  token: { flag: 'token', env: 'FLOTILLA_A2A_TOKEN', schema: z.string().min(1).max(TOKEN_MAX_CHARS).optional(), help: 'Token of an agent started with --a2a-tokens (sent as a bearer token)', secret: true },
  context: { flag: 'context', env: 'FLOTILLA_CONTEXT_ID', schema: z.string().min(1).max(200).optional(), help: 'Conversation id, to continue one ("next page")' },
  json: {
    flag: 'json',
    env: 'FLOTILLA_ASK_JSON',
    schema: BooleanFlagSchema.default(false),
    help: 'Print one JSON object ({answer, options, metadata, data, contextId}) instead of text and progress (for scripts)',
    isSwitch: true,
  },
  logLevel: { flag: 'log-level', env: 'FLOTILLA_LOG_LEVEL', schema: LogLevelSchema.default('warn'), help: 'Log level' },
} as const;

/** Sends one question through the official A2A client and streams progress and the answer to `out`. */
export async function askAgent(
  agentUrl: string,
  question: string,
  contextId: string,
  out: Output,
  token?: string,
): Promise<{ answer: string; metadata: Record<string, unknown>; data: Record<string, unknown> | undefined }> {
  const client = await connectA2AAgent(agentUrl, token);
  let answer = '';
  let metadata: Record<string, unknown> = {};
  let data: Record<string, unknown> | undefined;
  const stream = client.sendMessageStream(textRequest(question, contextId));
  for await (const event of stream) {
    const payload = event.payload;
    if (payload?.$case === 'statusUpdate') {
      const note = payload.value.status?.message?.parts[0]?.content;
      if (note?.$case === 'text') out.write(`  … ${note.value}\n`);
    } else if (payload?.$case === 'artifactUpdate') {
      for (const part of payload.value.artifact?.parts ?? []) {
        if (part.content?.$case === 'text') answer = part.content.value;
        else if (part.content?.$case === 'data') data = part.content.value as Record<string, unknown>;
      }
      metadata = payload.value.artifact?.metadata ?? {};
    }
  }
  return { answer, metadata, data };
}

export const askCommand = defineCommand({
  ...listing('ask'),
  description: 'Uses the official A2A client (streaming). Pass --context to continue a conversation, e.g. with "next page".',
  settings: ASK_SETTINGS,
  positional: 'question',
  examples: [
    'flotilla ask "which apps are out of sync in prod?"',
    'flotilla ask "next page" --context my-thread',
    'flotilla ask --json "list the clusters"',
    'flotilla ask "interfaces of every switch in ams1" --agent http://127.0.0.1:8094',
  ],
  async run({ settings, out }) {
    const contextId = settings.context ?? randomUUID();
    const silent: Output = { write: () => undefined };
    const { answer, metadata, data } = await askAgent(settings.agent, settings.question, contextId, settings.json ? silent : out, settings.token);
    const options = Array.isArray(metadata.options) ? (metadata.options as string[]) : [];
    if (settings.json) {
      out.write(`${JSON.stringify({ answer, options, metadata, data: data ?? null, contextId })}\n`);
      return undefined;
    }
    out.write(`${answer}\n`);
    if (options.length > 0) out.write(`\nYou can say: ${options.map((o) => `"${o}"`).join(', ')}\n`);
    out.write(`(context ${contextId}; pass --context ${contextId} to continue)\n`);
    return undefined;
  },
});
