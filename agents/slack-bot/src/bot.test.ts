import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_CARD_PATH, A2A_PROTOCOL_VERSION, Role, TaskState, type AgentCard, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { startA2AServer, type RunningA2AServer } from '@flotilla/agent-kit';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent, type RunningNetBoxAgent } from '@flotilla/agent-netbox';
import { parseSettings, silentLogger } from '@flotilla/core';
import { startNetBoxSimulator, type RunningNetBoxSimulator } from '@flotilla/simulators';
import { loadTokenCounter } from '@flotilla/tokens';
import { SLACK_BOT_SETTINGS, startSlackBot, type RunningSlackBot } from './index.js';
import { buttonPressBody, eventEnvelope, postToSlackEndpoint, startFakeSlack, waitFor, type Block, type FakeMessage, type FakeSlack } from './fake-slack.test-util.js';

/**
 * The Slack bot end to end over real HTTP on 127.0.0.1: signed Slack events and button presses POSTed to its
 * /slack/events, a fake Slack Web API that records every call and refuses oversized messages, and real A2A
 * agents behind it (the NetBox agent on its simulator, and small scripted agents).
 */
const NETBOX_TOKEN = 'slack-bot-test-netbox-token-0123456789';
const SECRET = 'slack-signing-secret-for-tests';
const BOT_TOKEN = 'xoxb-slack-bot-test-token';
const TEAM = 'T0FAKE';
const CHANNEL = 'C0OPS';

let sim: RunningNetBoxSimulator;
let netbox: RunningNetBoxAgent;
let fake: FakeSlack;
let bot: RunningSlackBot;
let tiny: RunningA2AServer;
let tinyBot: RunningSlackBot;
const extraBots: RunningSlackBot[] = [];

/** What the scripted agent was asked, with the conversation. */
const tinyQuestions: { question: string; contextId: string }[] = [];
let releaseSlow: (() => void) | undefined;
const slowGate = (): Promise<void> => new Promise((resolve) => (releaseSlow = resolve));

const ROW_WIDTH = 80;
/** An answer of `rows` table rows, each ROW_WIDTH characters with its newline, under a heading. */
function rowsAnswer(rows: number): string {
  const lines = ['## Long answer', '', '| row | payload |', '|---|---|'];
  for (let i = 1; i <= rows; i += 1) {
    const start = `| row-${String(i).padStart(5, '0')} | `;
    lines.push(`${start}${'x'.repeat(ROW_WIDTH - start.length - 3)} |`);
  }
  return lines.join('\n');
}
const rowNames = (rows: number): string[] => Array.from({ length: rows }, (_, i) => `row-${String(i + 1).padStart(5, '0')}`);

function config(extra: Record<string, string> = {}): ReturnType<typeof parseSettings<typeof SLACK_BOT_SETTINGS>> {
  return parseSettings(
    SLACK_BOT_SETTINGS,
    { port: '0', 'agent-url': netbox.url, 'bot-token': BOT_TOKEN, 'signing-secret': SECRET, 'slack-api-url': fake.apiUrl, ...extra },
    {},
    'test Slack bot',
  );
}

async function extraBot(extra: Record<string, string>): Promise<RunningSlackBot> {
  const started = await startSlackBot(config(extra), silentLogger());
  extraBots.push(started);
  return started;
}

let tsCounter = 0;
const userTs = (): string => `1700000000.${String(++tsCounter).padStart(6, '0')}`;

/** A user's mention of the bot, signed and POSTed as Slack does; returns the message ts (the thread). */
async function mention(botUrl: string, text: string, threadTs?: string, channel = CHANNEL): Promise<string> {
  const ts = userTs();
  const body = eventEnvelope(TEAM, { type: 'app_mention', user: 'UALICE', text: `<@UBOT> ${text}`, ts, channel, ...(threadTs === undefined ? {} : { thread_ts: threadTs }) });
  const res = await postToSlackEndpoint(botUrl, body, 'application/json', { secret: SECRET });
  expect(res.status).toBe(200);
  return ts;
}

const blockText = (b: Block): string => b.text?.text ?? (b.type === 'context' ? (b.elements ?? []).map((e) => String(e.text)).join(' ') : '');
const messageText = (m: FakeMessage): string => m.blocks.map(blockText).join('\n');
/** The bot's messages in a thread (the fake only holds the bot's posts). */
const botThread = (threadTs: string, channel = CHANNEL): FakeMessage[] => fake.thread(channel, threadTs);
const threadText = (threadTs: string, channel = CHANNEL): string => botThread(threadTs, channel).map(messageText).join('\n');
const settled = (threadTs: string, channel = CHANNEL): boolean => botThread(threadTs, channel).every((m) => !m.text.startsWith(':hourglass'));

/** Waits until the thread holds no progress message and its text matches `pattern`. */
async function answerIn(threadTs: string, pattern: RegExp, channel = CHANNEL): Promise<string> {
  return waitFor(`an answer matching ${String(pattern)} in thread ${threadTs}`, () => {
    const text = threadText(threadTs, channel);
    return settled(threadTs, channel) && pattern.test(text) ? text : undefined;
  });
}

const callsFor = (method: string, threadTs?: string): { args: Readonly<Record<string, unknown>> }[] =>
  fake.calls.filter((c) => c.method === method && (threadTs === undefined || c.args.thread_ts === threadTs));

beforeAll(async () => {
  sim = await startNetBoxSimulator({ token: NETBOX_TOKEN });
  netbox = await startNetBoxAgent(parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', 'netbox-url': sim.url, 'netbox-token': NETBOX_TOKEN }, {}, 'test agent'), silentLogger());
  tiny = await startA2AServer({
    agent: { name: 'Scripted agent', description: 'Answers by script, for the Slack bot tests.', version: '0.0.1', skills: [] },
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    answer: async (question, contextId) => {
      tinyQuestions.push({ question, contextId });
      if (question === 'long messages') return { answer: rowsAnswer(100), options: ['more rows'], metadata: {} };
      if (question === 'long file') return { answer: rowsAnswer(750), options: ['summary instead'], metadata: {} };
      if (question.startsWith('slow')) await slowGate();
      return { answer: `You asked: ${question}`, options: [], metadata: {} };
    },
  });
  fake = await startFakeSlack({ token: BOT_TOKEN, botUserId: 'UBOT', teamId: TEAM });
  bot = await startSlackBot(config(), silentLogger());
  tinyBot = await startSlackBot(config({ 'agent-url': tiny.url }), silentLogger());
});

afterAll(async () => {
  releaseSlow?.();
  for (const b of [bot, tinyBot, ...extraBots]) await b?.close();
  await tiny?.close();
  await netbox?.close();
  await sim?.close();
  await fake?.close();
});

afterEach(() => {
  // Every call the bot made was one Slack takes: no message past Slack's limits, no unknown method.
  expect(fake.calls.filter((c) => !c.ok && !c.injected)).toEqual([]);
});

describe('Slack bot: questions and answers in threads', () => {
  it('answers a mention in its thread: one progress message, then the answer in place, with the follow-up buttons', async () => {
    const before = fake.calls.length;
    const thread = await mention(bot.url, 'interfaces of every switch in ams1');
    const text = await answerIn(thread, /Batch 1 of \d+/);
    const calls = fake.calls.slice(before);
    const firstPost = calls.find((c) => c.method === 'chat.postMessage');
    expect(firstPost?.args.thread_ts).toBe(thread);
    expect(String(firstPost?.args.text)).toContain('Working on it');
    const messages = botThread(thread);
    // The progress message itself became the answer (edited in place), no second "working" message.
    expect(messages[0]?.edits).toBeGreaterThanOrEqual(1);
    expect(messages.every((m) => m.threadTs === thread)).toBe(true);
    expect(text).toMatch(/\| ams1-sw-\d+/);
    const buttons = messages.flatMap((m) => m.blocks.filter((b) => b.type === 'actions').flatMap((b) => b.elements ?? []));
    expect(buttons.map((b) => b.value)).toEqual(expect.arrayContaining(['next batch', 'summary instead']));
    expect(new Set(buttons.map((b) => b.action_id)).size).toBe(buttons.length);
    expect(buttons.every((b) => /^flotilla_option_\d+$/.test(b.action_id ?? ''))).toBe(true);
  });

  it('continues the conversation with a follow-up in the same thread ("next batch")', async () => {
    const thread = await mention(bot.url, 'interfaces of every switch in ams1');
    await answerIn(thread, /Batch 1 of \d+/);
    await mention(bot.url, 'next batch', thread);
    const text = await answerIn(thread, /Batch 2 of \d+/);
    expect(text).toMatch(/Batch 1 of \d+/);
    // A different thread is a different conversation: "next batch" there has nothing to continue.
    const other = await mention(bot.url, 'next batch');
    const otherText = await waitFor('the other thread answered', () => (settled(other) && botThread(other).length > 0 ? threadText(other) : undefined));
    expect(otherText).not.toMatch(/Batch 2 of/);
  });

  it('continues a paged answer when a follow-up button is pressed', async () => {
    const thread = await mention(bot.url, 'interfaces of every switch in ams1');
    await answerIn(thread, /Batch 1 of \d+/);
    const withButtons = botThread(thread).find((m) => m.blocks.some((b) => b.type === 'actions'));
    const button = withButtons?.blocks.find((b) => b.type === 'actions')?.elements?.find((e) => e.value === 'next batch');
    expect(withButtons).toBeDefined();
    expect(button?.action_id).toMatch(/^flotilla_option_\d+$/);
    // Slack wants the press acknowledged within 3 s: the bot acknowledges before any work, so the 200 comes while
    // the turn's first Slack call (its progress message) is still held.
    const release = fake.holdNext('chat.postMessage');
    const res = await postToSlackEndpoint(
      bot.url,
      buttonPressBody({ team: TEAM, user: 'UBOB', channel: CHANNEL, messageTs: withButtons?.ts ?? '', threadTs: thread, actionId: button?.action_id ?? '', value: button?.value ?? '', label: 'Next batch' }),
      'application/x-www-form-urlencoded',
      { secret: SECRET },
    );
    expect(res.status).toBe(200);
    release();
    await answerIn(thread, /Batch 2 of \d+/);
  });

  it('answers a direct message, and ignores bot messages, edits and other subtypes', async () => {
    const before = callsFor('chat.postMessage').length;
    const dm = 'D0ALICE';
    const ignored = [
      { type: 'message', channel_type: 'im', user: 'UOTHERBOT', bot_id: 'B0OTHER', text: 'from a bot', ts: userTs(), channel: dm },
      { type: 'message', channel_type: 'im', subtype: 'message_changed', text: 'an edit', ts: userTs(), channel: dm },
      { type: 'message', channel_type: 'channel', user: 'UALICE', text: 'chatter in a channel', ts: userTs(), channel: CHANNEL },
    ];
    for (const event of ignored) expect((await postToSlackEndpoint(tinyBot.url, eventEnvelope(TEAM, event), 'application/json', { secret: SECRET })).status).toBe(200);
    const ts = userTs();
    const res = await postToSlackEndpoint(tinyBot.url, eventEnvelope(TEAM, { type: 'message', channel_type: 'im', user: 'UALICE', text: 'hello &lt;there&gt;', ts, channel: dm }), 'application/json', {
      secret: SECRET,
    });
    expect(res.status).toBe(200);
    const text = await answerIn(ts, /You asked: hello &lt;there&gt;/, dm);
    expect(text).not.toContain('from a bot');
    expect(callsFor('chat.postMessage').length - before).toBe(1); // only the progress message of the real DM
    expect(tinyQuestions.at(-1)).toEqual({ question: 'hello <there>', contextId: `slack:${TEAM}:${dm}:${ts}` });
  });
});

describe('Slack bot: answers longer than Slack allows arrive whole', () => {
  it('splits a ~8,000-character answer over several thread messages, each within Slack limits, every row present', async () => {
    const thread = await mention(tinyBot.url, 'long messages');
    const text = await answerIn(thread, /row-00100/);
    const messages = botThread(thread);
    expect(messages.length).toBeGreaterThanOrEqual(2);
    expect(messages.length).toBeLessThanOrEqual(5);
    for (const row of rowNames(100)) expect(text).toContain(`| ${row} | `);
    expect(text.indexOf('row-00001')).toBeLessThan(text.indexOf('row-00100'));
    for (const m of messages) {
      expect(m.text.length).toBeLessThanOrEqual(4000);
      expect(m.blocks.length).toBeLessThanOrEqual(50);
    }
    // The buttons come once, on the last message.
    const withButtons = messages.filter((m) => m.blocks.some((b) => b.type === 'actions'));
    expect(withButtons.map((m) => m.ts)).toEqual([messages.at(-1)?.ts]);
    expect(callsFor('files.getUploadURLExternal')).toHaveLength(0);
  });

  it('uploads a 60,000-character answer whole as a file in the thread, with a short summary message', async () => {
    const thread = await mention(tinyBot.url, 'long file');
    const summary = await answerIn(thread, /answer\.md/);
    const answer = rowsAnswer(750);
    expect(answer.length).toBeGreaterThan(60_000);
    const file = await waitFor('the uploaded file', () => fake.files.find((f) => f.threadTs === thread));
    expect(file.content).toBe(answer);
    expect(file.channelId).toBe(CHANNEL);
    expect(file.length).toBe(Buffer.byteLength(answer));
    for (const row of rowNames(750)) expect(file.content).toContain(`| ${row} | `);
    expect(summary).toContain('60,');
    expect(botThread(thread)).toHaveLength(1); // the summary replaced the progress message; nothing else posted
    const order = fake.calls.filter((c) => ['files.getUploadURLExternal', 'upload', 'files.completeUploadExternal'].includes(c.method)).map((c) => c.method);
    expect(order.slice(-3)).toEqual(['files.getUploadURLExternal', 'upload', 'files.completeUploadExternal']);
    expect(botThread(thread)[0]?.blocks.some((b) => b.type === 'actions')).toBe(true);
  });

  it('says so in the thread when Slack refuses the upload, and takes the next question', async () => {
    fake.failNext('files.getUploadURLExternal', 'ratelimited');
    const thread = await mention(tinyBot.url, 'long file');
    const text = await answerIn(thread, /Slack refused the answer/);
    expect(text).toContain('ratelimited');
    expect(fake.files.some((f) => f.threadTs === thread)).toBe(false);
    const next = await mention(tinyBot.url, 'long file');
    await answerIn(next, /answer\.md/);
  });
});

describe('Slack bot: requests and failures', () => {
  it('refuses a bad signature and a stale timestamp with 401, and asks the agent nothing', async () => {
    const asked = tinyQuestions.length;
    const posts = callsFor('chat.postMessage').length;
    const body = eventEnvelope(TEAM, { type: 'app_mention', user: 'UMALLORY', text: '<@UBOT> forged', ts: userTs(), channel: CHANNEL });
    const forged = await postToSlackEndpoint(tinyBot.url, body, 'application/json', { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    const stale = await postToSlackEndpoint(tinyBot.url, body, 'application/json', { secret: SECRET, timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect(stale.status).toBe(401);
    // The same body, freshly and correctly signed, is taken: the two refusals were about the signature alone.
    const thread = await mention(tinyBot.url, 'genuine');
    await answerIn(thread, /You asked: genuine/);
    expect(tinyQuestions.slice(asked).map((q) => q.question)).toEqual(['genuine']);
    expect(callsFor('chat.postMessage').length - posts).toBe(1);
  });

  it('serves /healthz', async () => {
    const res = await fetch(`${bot.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('says clearly in the thread when the agent is down, and keeps running', async () => {
    const closed = await new Promise<Server>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => resolve(s));
    });
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const downBot = await extraBot({ 'agent-url': `http://127.0.0.1:${port}` });
    const thread = await mention(downBot.url, 'interfaces of every switch in ams1');
    const text = await answerIn(thread, /could not reach the Flotilla agent/);
    expect(text).toMatch(/try again in a minute/i);
    expect(botThread(thread)).toHaveLength(1);
    expect((await fetch(`${downBot.url}/healthz`)).status).toBe(200);
    const again = await mention(downBot.url, 'still there?');
    await answerIn(again, /could not reach the Flotilla agent/);
  });

  it('gives up on an agent slower than agentTimeoutMs and says so', async () => {
    const slowBot = await extraBot({ 'agent-url': tiny.url, 'agent-timeout-ms': '1000' });
    const thread = await mention(slowBot.url, 'slow question');
    const text = await answerIn(thread, /did not answer within 1 seconds/);
    expect(text).toMatch(/narrower question/);
    releaseSlow?.();
  });

  it('turns away questions past maxInFlight politely', async () => {
    const busyBot = await extraBot({ 'agent-url': tiny.url, 'max-in-flight': '1' });
    const first = await mention(busyBot.url, 'slow and first');
    await waitFor('the first question at the agent', () => tinyQuestions.find((q) => q.question === 'slow and first'));
    const second = await mention(busyBot.url, 'second');
    await answerIn(second, /try again in a minute/i);
    expect(tinyQuestions.some((q) => q.question === 'second')).toBe(false);
    releaseSlow?.();
    await answerIn(first, /You asked: slow and first/);
  });

  it('cuts a question longer than questionMaxTokens, tells the user, and sends the agent only its beginning', async () => {
    const capBot = await extraBot({ 'agent-url': tiny.url, 'question-max-tokens': '20' });
    const counter = await loadTokenCounter();
    const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
    const before = fake.calls.length;
    const thread = await mention(capBot.url, words);
    await answerIn(thread, /You asked: word0/);
    const sent = tinyQuestions.at(-1)?.question ?? '';
    expect(counter.count(sent)).toBeLessThanOrEqual(20);
    expect(counter.count(sent)).toBeGreaterThan(10);
    expect(words.startsWith(sent)).toBe(true);
    const progress = fake.calls.slice(before).find((c) => c.method === 'chat.postMessage');
    expect(String(progress?.args.text)).toMatch(/cut it/);
    expect(String(progress?.args.text)).toContain('20 tokens');
  });
});

describe('Slack bot: progress', () => {
  let streaming: { url: string; close(): Promise<void> };
  const NOTES = 12;

  beforeAll(async () => {
    // An agent that sends a progress note every 100 ms before answering: the bot must show them throttled.
    const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
    const executor: AgentExecutor = {
      cancelTask: () => Promise.resolve(),
      execute: async (context: RequestContext, bus: ExecutionEventBus) => {
        const { taskId, contextId } = context;
        const status = (state: TaskState, note?: string): void =>
          bus.publish(
            AgentEvent.statusUpdate({
              taskId,
              contextId,
              status: {
                state,
                timestamp: new Date().toISOString(),
                message: note === undefined ? undefined : { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [text(note)], metadata: undefined, extensions: [], referenceTaskIds: [] },
              },
              metadata: undefined,
            }),
          );
        bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [context.userMessage], metadata: undefined }));
        for (let i = 1; i <= NOTES; i += 1) {
          status(TaskState.TASK_STATE_WORKING, `step ${i} of ${NOTES}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: { artifactId: randomUUID(), name: 'answer', description: 'The answer', parts: [text('All steps done.')], metadata: { options: ['again'] }, extensions: [] },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
        status(TaskState.TASK_STATE_COMPLETED);
      },
    };
    const card: AgentCard = {
      name: 'Streaming agent',
      description: 'Progress notes, then an answer.',
      supportedInterfaces: [],
      provider: { organization: 'Flotilla', url: 'https://github.com/flotilla' },
      version: '0.0.1',
      capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      signatures: [],
    };
    const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
    const app = express();
    app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
    app.use('/a2a/jsonrpc', express.json(), jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    card.supportedInterfaces.push({ url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION });
    streaming = {
      url,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  });
  afterAll(async () => {
    await streaming?.close();
  });

  it('edits the progress message with the agent’s notes at most about once a second, then replaces it with the answer', async () => {
    const streamBot = await extraBot({ 'agent-url': streaming.url });
    const started = Date.now();
    const thread = await mention(streamBot.url, 'do the steps');
    await answerIn(thread, /All steps done\./);
    const seconds = (Date.now() - started) / 1000;
    const progressTs = botThread(thread)[0]?.ts;
    const edits = callsFor('chat.update').filter((c) => c.args.ts === progressTs);
    const notes = edits.filter((c) => String(c.args.text).includes('step '));
    // 12 notes in ~1.2 s: shown at least once, at most one edit per second (plus the first).
    expect(notes.length).toBeGreaterThanOrEqual(1);
    expect(notes.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(notes.length).toBeLessThan(NOTES);
    // The answer is the last edit: no late progress note overwrote it.
    expect(String(edits.at(-1)?.args.text)).toContain('All steps done.');
    expect(botThread(thread)[0]?.blocks.some((b) => b.type === 'actions')).toBe(true);
  });
});
