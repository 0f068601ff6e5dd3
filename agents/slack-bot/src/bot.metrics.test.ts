import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startA2AServer, type RunningA2AServer } from '@flotilla/agent-kit';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC, SLACK_ANSWER_OUTCOMES, SLACK_API_METHODS, SLACK_EVENT_KINDS } from '@flotilla/metrics';
import { SLACK_BOT_SETTINGS, startSlackBot, type RunningSlackBot } from './index.js';
import { buttonPressBody, eventEnvelope, postToSlackEndpoint, startFakeSlack, waitFor, type FakeMessage, type FakeSlack } from './fake-slack.test-util.js';

/**
 * What the Slack bot lets its operators watch, over real HTTP on 127.0.0.1: /metrics (events acted on, how each
 * question ended, its duration, Slack Web API failures by method, unexpected errors, questions in flight; the process
 * metrics beside them) and /readyz (started, not stopping, and in Socket Mode connected to Slack), in HTTP mode and in
 * Socket Mode, with the fake Slack (its Web API and its Socket Mode WebSocket) and a scripted A2A agent.
 */
const SECRET = 'slack-metrics-signing-secret';
const BOT_TOKEN = 'xoxb-slack-metrics-token';
const APP_TOKEN = 'xapp-slack-metrics-app-token';
const TEAM = 'T0FAKE';
const CHANNEL = 'C0OPS';

let fake: FakeSlack;
let agent: RunningA2AServer;
const bots: RunningSlackBot[] = [];
const asked: string[] = [];
const gates: (() => void)[] = [];
/** Questions starting with "slow" wait until released; "fail" makes the agent fail the turn. */
const releaseSlow = (): void => {
  for (const release of gates.splice(0)) release();
};

beforeAll(async () => {
  agent = await startA2AServer({
    agent: { name: 'Scripted agent', description: 'Answers by script, for the Slack bot metrics tests.', version: '0.0.1', skills: [] },
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger(),
    answer: async (question) => {
      asked.push(question);
      if (question.startsWith('slow')) await new Promise<void>((resolve) => gates.push(resolve));
      if (question === 'fail') throw new Error('scripted failure');
      if (question === 'long file') return { answer: 'x'.repeat(80).concat('\n').repeat(800), options: [], metadata: {} };
      return { answer: `You asked: ${question}`, options: ['again'], metadata: {} };
    },
  });
  fake = await startFakeSlack({ token: BOT_TOKEN, botUserId: 'UBOT', teamId: TEAM, appToken: APP_TOKEN });
});

afterAll(async () => {
  releaseSlow();
  for (const bot of bots) await bot.close();
  await agent?.close();
  await fake?.close();
});

afterEach(() => {
  releaseSlow();
  expect(fake.calls.filter((c) => !c.ok && !c.injected)).toEqual([]);
});

async function startBot(extra: Record<string, string> = {}): Promise<RunningSlackBot> {
  const config = parseSettings(
    SLACK_BOT_SETTINGS,
    { port: '0', 'agent-url': agent.url, 'bot-token': BOT_TOKEN, 'signing-secret': SECRET, 'slack-api-url': fake.apiUrl, ...extra },
    {},
    'metrics Slack bot',
  );
  const bot = await startSlackBot(config, silentLogger());
  bots.push(bot);
  return bot;
}

let tsCounter = 0;
const userTs = (): string => `1750000000.${String(++tsCounter).padStart(6, '0')}`;

/** A mention of the bot, signed and POSTed as Slack does; returns its ts (the thread). */
async function mention(botUrl: string, text: string): Promise<string> {
  const ts = userTs();
  const res = await postToSlackEndpoint(botUrl, eventEnvelope(TEAM, { type: 'app_mention', user: 'UALICE', text: `<@UBOT> ${text}`, ts, channel: CHANNEL }), 'application/json', { secret: SECRET });
  expect(res.status).toBe(200);
  return ts;
}

const messageText = (m: FakeMessage): string => m.blocks.map((b) => b.text?.text ?? (b.elements ?? []).map((e) => String(e.text)).join(' ')).join('\n');
/** Waits until the thread holds no progress message and its text matches `pattern`. */
async function answerIn(thread: string, pattern: RegExp): Promise<string> {
  return waitFor(`an answer matching ${String(pattern)} in thread ${thread}`, () => {
    const messages = fake.thread(CHANNEL, thread);
    const text = messages.map(messageText).join('\n');
    return messages.every((m) => !m.text.startsWith(':hourglass')) && pattern.test(text) ? text : undefined;
  });
}

/** /metrics of a bot, checked to be Prometheus' text format. */
async function scrape(botUrl: string): Promise<string> {
  const res = await fetch(`${botUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one series (`name` with exactly `labels`) in a scrape; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const selector = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(',');
  const prefix = selector === '' ? `${name} ` : `${name}{${selector}} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

/** The bot's Slack series as one object, to compare whole. */
async function slackSeries(botUrl: string): Promise<Record<string, number | undefined>> {
  const text = await scrape(botUrl);
  return {
    ...Object.fromEntries(SLACK_EVENT_KINDS.map((kind) => [`event:${kind}`, sample(text, METRIC.slackEvents, { kind })])),
    ...Object.fromEntries(SLACK_ANSWER_OUTCOMES.map((outcome) => [`answer:${outcome}`, sample(text, METRIC.slackAnswers, { outcome })])),
    ...Object.fromEntries(SLACK_API_METHODS.map((method) => [`api:${method}`, sample(text, METRIC.slackApiFailures, { method })])),
    errors: sample(text, METRIC.slackErrors),
    inFlight: sample(text, METRIC.slackInFlight),
    durations: sample(text, `${METRIC.slackAnswerDuration}_count`),
  };
}

const ZERO = {
  'event:app_mention': 0,
  'event:message': 0,
  'event:block_action': 0,
  'answer:answered': 0,
  'answer:failed': 0,
  'answer:timed_out': 0,
  'answer:busy': 0,
  'api:chat.postMessage': 0,
  'api:chat.update': 0,
  'api:files.uploadV2': 0,
  'api:other': 0,
  errors: 0,
  inFlight: 0,
  durations: 0,
} as const;

/** Polls the bot's Slack series until they equal `expected` (the counters move just after Slack is called). */
async function seriesBecome(botUrl: string, expected: Record<string, number>): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last: Record<string, number | undefined> = {};
  while (Date.now() < deadline) {
    last = await slackSeries(botUrl);
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(last).toEqual(expected);
}

async function readyz(botUrl: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${botUrl}/readyz`);
  return { status: res.status, body: await res.json() };
}

describe('Slack bot: /metrics', () => {
  it('serves its own and the process metrics, every labelled Slack series at zero from the start', async () => {
    const bot = await startBot();
    const text = await scrape(bot.url);
    expect(await slackSeries(bot.url)).toEqual(ZERO);
    for (const name of Object.values(METRIC).filter((n) => n.startsWith('flotilla_slack_'))) expect(text).toContain(`# TYPE ${name} `);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(text, METRIC.eventLoopLag)).toBeGreaterThanOrEqual(0);
  });

  it('counts each event acted on by kind (a redelivery, a bot message and an edit are not), each answer, its duration, and in flight back to 0', async () => {
    const bot = await startBot();
    const thread = await mention(bot.url, 'first');
    await answerIn(thread, /You asked: first/);
    // Slack's redelivery of one event (the same event_id) and messages the bot ignores.
    const ts = userTs();
    const dm = eventEnvelope(TEAM, { type: 'message', channel_type: 'im', user: 'UALICE', text: 'a direct question', ts, channel: CHANNEL });
    for (const body of [
      dm,
      dm,
      eventEnvelope(TEAM, { type: 'message', channel_type: 'im', user: 'UOTHER', bot_id: 'B0OTHER', text: 'from a bot', ts: userTs(), channel: CHANNEL }),
      eventEnvelope(TEAM, { type: 'message', channel_type: 'im', subtype: 'message_changed', text: 'an edit', ts: userTs(), channel: CHANNEL }),
    ]) {
      expect((await postToSlackEndpoint(bot.url, body, 'application/json', { secret: SECRET })).status).toBe(200);
    }
    await answerIn(ts, /You asked: a direct question/);
    const withButton = fake.thread(CHANNEL, thread).find((m) => m.blocks.some((b) => b.type === 'actions'));
    const button = withButton?.blocks.find((b) => b.type === 'actions')?.elements?.[0];
    const press = buttonPressBody({ team: TEAM, user: 'UBOB', channel: CHANNEL, messageTs: withButton?.ts ?? '', threadTs: thread, actionId: button?.action_id ?? '', value: 'pressed', label: 'Again' });
    expect((await postToSlackEndpoint(bot.url, press, 'application/x-www-form-urlencoded', { secret: SECRET })).status).toBe(200);
    await answerIn(thread, /You asked: pressed/);
    await seriesBecome(bot.url, { ...ZERO, 'event:app_mention': 1, 'event:message': 1, 'event:block_action': 1, 'answer:answered': 3, durations: 3 });
  });

  it('counts a failing agent and an unreachable one as failed, a slow one as timed_out', async () => {
    const failing = await startBot();
    await answerIn(await mention(failing.url, 'fail'), /could not answer that/);
    await seriesBecome(failing.url, { ...ZERO, 'event:app_mention': 1, 'answer:failed': 1, durations: 1 });

    const closed = await new Promise<Server>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => resolve(s));
    });
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await startBot({ 'agent-url': `http://127.0.0.1:${port}` });
    await answerIn(await mention(down.url, 'anyone there?'), /could not reach the Flotilla agent/);
    await seriesBecome(down.url, { ...ZERO, 'event:app_mention': 1, 'answer:failed': 1, durations: 1 });

    const impatient = await startBot({ 'agent-timeout-ms': '1000' });
    await answerIn(await mention(impatient.url, 'slow one'), /did not answer within 1 seconds/);
    await seriesBecome(impatient.url, { ...ZERO, 'event:app_mention': 1, 'answer:timed_out': 1, durations: 1 });
  });

  it('counts questions turned away past maxInFlight as busy, with in flight at the limit meanwhile', async () => {
    const bot = await startBot({ 'max-in-flight': '1' });
    const first = await mention(bot.url, 'slow and first');
    await waitFor('the first question at the agent', () => asked.find((q) => q === 'slow and first'));
    await seriesBecome(bot.url, { ...ZERO, 'event:app_mention': 1, inFlight: 1 });
    await answerIn(await mention(bot.url, 'second'), /try again in a minute/i);
    await seriesBecome(bot.url, { ...ZERO, 'event:app_mention': 2, 'answer:busy': 1, inFlight: 1 });
    releaseSlow();
    await answerIn(first, /You asked: slow and first/);
    await seriesBecome(bot.url, { ...ZERO, 'event:app_mention': 2, 'answer:busy': 1, 'answer:answered': 1, durations: 1 });
  });

  it('counts Slack Web API failures by method, and the question whose answer Slack refused as failed', async () => {
    const bot = await startBot();
    fake.failNext('chat.update', 'ratelimited');
    await answerIn(await mention(bot.url, 'refused update'), /Slack refused the answer \(.*ratelimited/);
    await seriesBecome(bot.url, { ...ZERO, 'event:app_mention': 1, 'api:chat.update': 1, 'answer:failed': 1, durations: 1 });

    // The progress message itself refused: nothing reaches the thread, and the question still ends, counted once.
    fake.failNext('chat.postMessage', 'channel_not_found');
    const silent = await mention(bot.url, 'refused post');
    await seriesBecome(bot.url, { ...ZERO, 'event:app_mention': 2, 'api:chat.update': 1, 'api:chat.postMessage': 1, 'answer:failed': 2, durations: 2 });
    expect(fake.thread(CHANNEL, silent)).toEqual([]);

    fake.failNext('files.getUploadURLExternal', 'ratelimited');
    await answerIn(await mention(bot.url, 'long file'), /Slack refused the answer/);
    await seriesBecome(bot.url, {
      ...ZERO,
      'event:app_mention': 3,
      'api:chat.update': 1,
      'api:chat.postMessage': 1,
      'api:files.uploadV2': 1,
      'answer:failed': 3,
      durations: 3,
    });
  });

  it('counts an answer from Slack the bot cannot use as an unexpected error, not as an API failure', async () => {
    const bot = await startBot();
    fake.answerNext('chat.postMessage', { ok: true });
    await mention(bot.url, 'no ts');
    await seriesBecome(bot.url, { ...ZERO, 'event:app_mention': 1, 'answer:failed': 1, errors: 1, durations: 1 });
  });
});

describe('Slack bot: /readyz', () => {
  it('is ready when up, 503 "shutting down" from the moment stop begins (events then refused with 503), then closed', async () => {
    const bot = await startBot();
    expect(await readyz(bot.url)).toEqual({ status: 200, body: { status: 'ready' } });
    const thread = await mention(bot.url, 'slow while stopping');
    await waitFor('the question at the agent', () => asked.find((q) => q === 'slow while stopping'));
    // The in-flight answer's "restarting" note is held at Slack, so the bot is still draining when probed.
    const release = fake.holdNext('chat.update');
    const closing = bot.close();
    expect(await readyz(bot.url)).toEqual({ status: 503, body: { status: 'not_ready', reason: 'shutting down' } });
    const late = eventEnvelope(TEAM, { type: 'app_mention', user: 'UALICE', text: '<@UBOT> too late', ts: userTs(), channel: CHANNEL });
    expect((await postToSlackEndpoint(bot.url, late, 'application/json', { secret: SECRET })).status).toBe(503);
    release();
    await closing;
    await answerIn(thread, /restarted before the answer arrived/);
    await expect(fetch(`${bot.url}/readyz`)).rejects.toThrow();
    expect(asked).not.toContain('too late');
  });

  it('in Socket Mode: ready while connected, answers over the socket, 503 while the connection is down, ready again once reconnected', { timeout: 60_000 }, async () => {
    const bot = await startBot({ 'socket-mode': 'true', 'app-token': APP_TOKEN });
    expect(fake.socketMode.opened).toBe(1);
    expect(await readyz(bot.url)).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await fetch(`${bot.url}/healthz`)).status).toBe(200);

    const ts = userTs();
    const envelope = fake.socketMode.send('events_api', JSON.parse(eventEnvelope(TEAM, { type: 'app_mention', user: 'UALICE', text: '<@UBOT> over the socket', ts, channel: CHANNEL })) as unknown);
    await answerIn(ts, /You asked: over the socket/);
    expect(fake.socketMode.acks).toContain(envelope);
    await seriesBecome(bot.url, { ...ZERO, 'event:app_mention': 1, 'answer:answered': 1, durations: 1 });

    // The network drops the socket; the client reconnects after its pause, and is not connected until Slack's hello.
    fake.socketMode.holdHello(true);
    fake.socketMode.drop();
    const down = await waitFor('/readyz to fail', async () => {
      const probe = await readyz(bot.url);
      return probe.status === 503 ? probe : undefined;
    });
    expect(down.body).toEqual({ status: 'not_ready', reason: 'the Socket Mode connection to Slack is down (reconnecting)' });
    await waitFor('the bot to reconnect', () => (fake.socketMode.opened === 2 ? true : undefined), 30_000);
    expect((await readyz(bot.url)).status).toBe(503);
    fake.socketMode.holdHello(false);
    await waitFor('/readyz to pass again', async () => ((await readyz(bot.url)).status === 200 ? true : undefined));
  });
});
