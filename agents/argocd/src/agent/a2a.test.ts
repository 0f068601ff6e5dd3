import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role, TaskState, type Message } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import type { Client } from '@modelcontextprotocol/client';
import { startA2AServer, type RunningA2AServer } from '@flotilla/agent-kit';
import { silentLogger } from '@flotilla/core';
import { generateArgoEstate } from '@flotilla/simulators';
import type { TokenCounter } from '@flotilla/tokens';
import { createArgoCdAgent } from './agent.js';
import { argoCdToolsOverSimulator, type ArgoCdToolsHarness } from '../simulated-tools.test-util.js';

const TOKEN = 'a2a-test-token-0001';
const estate = generateArgoEstate();
let harness: ArgoCdToolsHarness;
let counter: TokenCounter;
let mcp: Client;
let tools: ArgoCdToolsHarness['tools'];
let a2a: RunningA2AServer;

beforeAll(async () => {
  harness = await argoCdToolsOverSimulator({ token: TOKEN, estate });
  ({ tools, counter } = harness);
  mcp = tools.client;
  const agent = createArgoCdAgent({ mcp, counter });
  a2a = await startA2AServer({
    agent: { name: 'Flotilla Argo CD agent', description: 'Argo CD, read-only', version: '0.1.0', skills: [{ id: 'argocd', name: 'Argo CD', description: 'Applications', tags: ['argocd'], examples: ['list all applications'] }] },
    answer: async (question, contextId) => {
      const turn = await agent.ask(question, contextId);
      return { answer: turn.answer, options: turn.options, metadata: { intent: turn.intent ?? 'none', strategy: turn.strategy ?? 'none' } };
    },
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
  });
});
afterAll(async () => {
  await a2a.close();
  await harness?.close();
});

const message = (text: string, contextId: string): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

describe('Argo CD agent over A2A (official client, 127.0.0.1)', () => {
  it('publishes a card and answers SendMessage and SendStreamingMessage in one conversation', async () => {
    const card = (await (await fetch(a2a.cardUrl, { headers: { 'A2A-Version': '1.0' } })).json()) as { name: string; supportedInterfaces: unknown[] };
    expect(card.name).toBe('Flotilla Argo CD agent');
    expect(card.supportedInterfaces.length).toBeGreaterThan(0);
    const client = await new ClientFactory().createFromUrl(a2a.url);
    const contextId = randomUUID();
    const result = await client.sendMessage({ tenant: '', message: message('list all applications', contextId), configuration: undefined, metadata: undefined });
    const answer = JSON.stringify(result);
    expect(answer).toContain(`(${estate.applications.length} applications)`);
    // The task is kept: GetTask returns it completed; cancelling a finished task is a protocol error, not a crash.
    const taskId = 'id' in result ? result.id : '';
    const task = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(client.cancelTask({ tenant: '', id: taskId, metadata: undefined })).rejects.toThrow();
    const events = [];
    for await (const event of client.sendMessageStream({ tenant: '', message: message('next page', contextId), configuration: undefined, metadata: undefined })) events.push(event);
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds).toContain('statusUpdate');
    expect(kinds).toContain('artifactUpdate');
    expect(JSON.stringify(events)).toContain('Page 2 of');
  });

  it('serves an older message/send client and answers bad input with errors, not crashes', async () => {
    const legacy = await fetch(`${a2a.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'list clusters' }] } } }),
    });
    const body = JSON.stringify(await legacy.json());
    expect(body).toContain('13 clusters');
    const malformed = await fetch(`${a2a.url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: '{"jsonrpc": "2.0", "id": 2, "method": ' });
    expect(malformed.status).toBeLessThan(500);
    const unknownTask = await fetch(`${a2a.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'no-such-task' } }),
    });
    expect(JSON.stringify(await unknownTask.json())).toMatch(/error/);
    const client = await new ClientFactory().createFromUrl(a2a.url);
    const empty = await client.sendMessage({ tenant: '', message: message('', randomUUID()), configuration: undefined, metadata: undefined });
    expect(JSON.stringify(empty)).toContain('Send your question as text');
    const huge = await client.sendMessage({ tenant: '', message: message('x'.repeat(5_000), randomUUID()), configuration: undefined, metadata: undefined });
    expect(JSON.stringify(huge)).toContain('Ask something shorter');
    expect((await fetch(`${a2a.url}/healthz`)).status).toBe(200);
  });
});
