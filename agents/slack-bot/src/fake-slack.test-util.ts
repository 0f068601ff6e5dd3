import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

/**
 * A fake Slack Web API on 127.0.0.1 for the bot's tests: it records every call with its body, keeps the messages
 * of each channel (with their edits) and the uploaded files, and refuses what Slack refuses: a message whose
 * `text` passes 4,000 characters (msg_too_long), more than 50 blocks, a section text over 3,000 characters, a
 * button text over 75 or value over 2,000 characters, duplicate action ids (invalid_blocks).
 */
export interface RecordedCall {
  readonly method: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly ok: boolean;
  readonly error: string | undefined;
  /** A failure the test asked for (failNext), not one the bot caused. */
  readonly injected: boolean;
}

export interface FakeMessage {
  readonly channel: string;
  readonly ts: string;
  readonly threadTs: string | undefined;
  text: string;
  blocks: readonly Block[];
  edits: number;
}

export interface FakeFile {
  readonly id: string;
  readonly filename: string;
  readonly length: number;
  content: string | undefined;
  channelId: string | undefined;
  threadTs: string | undefined;
}

export interface Block {
  readonly type: string;
  readonly block_id?: string;
  readonly text?: { readonly type: string; readonly text: string };
  readonly elements?: readonly { readonly type: string; readonly text?: unknown; readonly value?: string; readonly action_id?: string }[];
}

export interface FakeSlack {
  /** The Web API base URL (…/api/), for --slack-api-url. */
  readonly apiUrl: string;
  readonly token: string;
  readonly calls: RecordedCall[];
  readonly files: FakeFile[];
  /** Messages of a thread (the parent's own ts included), oldest first. */
  thread(channel: string, threadTs: string): FakeMessage[];
  message(channel: string, ts: string): FakeMessage | undefined;
  /** The next call of `method` fails with `error`, as Slack would (ok: false). */
  failNext(method: string, error: string): void;
  close(): Promise<void>;
}

const SLACK = { textMax: 4000, blocksMax: 50, sectionMax: 3000, buttonTextMax: 75, buttonValueMax: 2000 } as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Slack's verdict on a message's text and blocks: undefined when it takes them. */
export function messageProblem(text: unknown, rawBlocks: unknown): string | undefined {
  let blocks: unknown = rawBlocks;
  if (typeof rawBlocks === 'string') {
    try {
      blocks = JSON.parse(rawBlocks);
    } catch {
      return 'invalid_blocks_format';
    }
  }
  if (typeof text !== 'string' && blocks === undefined) return 'no_text';
  if (typeof text === 'string' && text.length > SLACK.textMax) return 'msg_too_long';
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks) || blocks.length > SLACK.blocksMax) return 'invalid_blocks';
  const actionIds = new Set<string>();
  const blockIds = new Set<string>();
  for (const block of blocks) {
    if (!isRecord(block)) return 'invalid_blocks';
    if (typeof block.block_id === 'string') {
      if (blockIds.has(block.block_id)) return 'invalid_blocks';
      blockIds.add(block.block_id);
    }
    if (block.type === 'section') {
      const t = block.text;
      if (!isRecord(t) || typeof t.text !== 'string' || t.text.length === 0 || t.text.length > SLACK.sectionMax) return 'invalid_blocks';
    } else if (block.type === 'context') {
      if (!Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 10) return 'invalid_blocks';
      for (const e of block.elements) if (!isRecord(e) || typeof e.text !== 'string' || e.text.length === 0 || e.text.length > SLACK.sectionMax) return 'invalid_blocks';
    } else if (block.type === 'actions') {
      if (!Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 25) return 'invalid_blocks';
      for (const e of block.elements) {
        if (!isRecord(e) || e.type !== 'button' || !isRecord(e.text) || typeof e.text.text !== 'string') return 'invalid_blocks';
        if (e.text.text.length === 0 || e.text.text.length > SLACK.buttonTextMax) return 'invalid_blocks';
        if (typeof e.value !== 'string' || e.value.length > SLACK.buttonValueMax) return 'invalid_blocks';
        if (typeof e.action_id !== 'string' || e.action_id.length > 255 || actionIds.has(e.action_id)) return 'invalid_blocks';
        actionIds.add(e.action_id);
      }
    } else {
      return 'invalid_blocks';
    }
  }
  return undefined;
}

const parseBlocks = (raw: unknown): Block[] => {
  const value: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
  return Array.isArray(value) ? (value as Block[]) : [];
};

export async function startFakeSlack(options: { token: string; botUserId?: string; teamId?: string }): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const messages: FakeMessage[] = [];
  const files: FakeFile[] = [];
  const failures = new Map<string, string>();
  let clock = 0;
  const nextTs = (): string => `1800000000.${String(++clock).padStart(6, '0')}`;
  let base = '';

  const app = express();
  app.post('/upload/:id', express.raw({ type: () => true, limit: '20mb' }), (req, res, next) => {
    const file = files.find((f) => f.id === req.params.id);
    if (file === undefined) {
      res.status(404).send('no such upload');
      return;
    }
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    new Response(body, { headers: { 'content-type': req.headers['content-type'] ?? 'application/octet-stream' } })
      .formData()
      .then(async (form) => {
        const part = [...form.values()][0];
        file.content = part === undefined ? '' : typeof part === 'string' ? part : await part.text();
        calls.push({ method: 'upload', args: { id: file.id, bytes: body.length }, ok: true, error: undefined, injected: false });
        res.status(200).type('text/plain').send(`OK - ${body.length}`);
      })
      .catch(next);
  });
  app.post('/api/:method', express.urlencoded({ extended: false, limit: '5mb' }), express.json({ limit: '5mb' }), (req, res) => {
    const method = req.params.method;
    const args: Record<string, unknown> = isRecord(req.body) ? req.body : {};
    const reply = (body: Record<string, unknown>, injected = false): void => {
      const ok = body.ok === true;
      calls.push({ method, args, ok, error: ok ? undefined : String(body.error), injected });
      res.json(body);
    };
    const failure = failures.get(method);
    if (failure !== undefined) {
      failures.delete(method);
      reply({ ok: false, error: failure }, true);
      return;
    }
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      reply({ ok: false, error: 'invalid_auth' });
      return;
    }
    switch (method) {
      case 'auth.test':
        reply({ ok: true, url: 'https://fake.slack.test/', team: 'Fake', user: 'flotilla', team_id: options.teamId ?? 'T0FAKE', user_id: options.botUserId ?? 'UBOT', bot_id: 'BBOT' });
        return;
      case 'chat.postMessage': {
        const problem = messageProblem(args.text, args.blocks);
        if (problem !== undefined || typeof args.channel !== 'string') {
          reply({ ok: false, error: problem ?? 'channel_not_found' });
          return;
        }
        const ts = nextTs();
        messages.push({
          channel: args.channel,
          ts,
          threadTs: typeof args.thread_ts === 'string' ? args.thread_ts : undefined,
          text: typeof args.text === 'string' ? args.text : '',
          blocks: parseBlocks(args.blocks),
          edits: 0,
        });
        reply({ ok: true, channel: args.channel, ts, message: { ts, text: args.text } });
        return;
      }
      case 'chat.update': {
        const problem = messageProblem(args.text, args.blocks);
        const message = messages.find((m) => m.channel === args.channel && m.ts === args.ts);
        if (problem !== undefined || message === undefined) {
          reply({ ok: false, error: problem ?? 'message_not_found' });
          return;
        }
        message.text = typeof args.text === 'string' ? args.text : '';
        message.blocks = parseBlocks(args.blocks);
        message.edits += 1;
        reply({ ok: true, channel: message.channel, ts: message.ts, text: message.text });
        return;
      }
      case 'files.getUploadURLExternal': {
        const length = Number(args.length);
        if (typeof args.filename !== 'string' || !Number.isInteger(length) || length <= 0) {
          reply({ ok: false, error: 'invalid_arguments' });
          return;
        }
        const id = `F${String(files.length + 1).padStart(6, '0')}`;
        files.push({ id, filename: args.filename, length, content: undefined, channelId: undefined, threadTs: undefined });
        reply({ ok: true, upload_url: `${base}/upload/${id}`, file_id: id });
        return;
      }
      case 'files.completeUploadExternal': {
        let listed: unknown;
        try {
          listed = typeof args.files === 'string' ? JSON.parse(args.files) : args.files;
        } catch {
          listed = undefined;
        }
        const ids = Array.isArray(listed) ? listed.map((f) => (isRecord(f) ? f.id : undefined)) : [];
        const found = ids.map((id) => files.find((f) => f.id === id));
        if (ids.length === 0 || found.some((f) => f === undefined || f.content === undefined)) {
          reply({ ok: false, error: 'invalid_arguments' });
          return;
        }
        for (const f of found) {
          if (f === undefined) continue;
          f.channelId = typeof args.channel_id === 'string' ? args.channel_id : undefined;
          f.threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
        }
        reply({ ok: true, files: found.map((f) => ({ id: f?.id, name: f?.filename })) });
        return;
      }
      default:
        reply({ ok: false, error: 'unknown_method' });
    }
  });

  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (error?: Error) => (error === undefined ? resolve(s) : reject(error)));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${base}/api/`,
    token: options.token,
    calls,
    files,
    thread: (channel, threadTs) => messages.filter((m) => m.channel === channel && (m.ts === threadTs || m.threadTs === threadTs)),
    message: (channel, ts) => messages.find((m) => m.channel === channel && m.ts === ts),
    failNext: (method, error) => {
      failures.set(method, error);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Polls `probe` until it returns a value (every 20 ms, at most `ms`), or fails naming `what`. */
export async function waitFor<T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Slack's request signature: v0=HMAC-SHA256(signing secret, "v0:<timestamp>:<body>"). */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** POSTs `body` to the bot's /slack/events as Slack does, signed with `secret` (or a given signature). */
export async function postToSlackEndpoint(
  botUrl: string,
  body: string,
  contentType: 'application/json' | 'application/x-www-form-urlencoded',
  sign: { secret: string; timestamp?: number; signature?: string },
): Promise<Response> {
  const timestamp = sign.timestamp ?? Math.floor(Date.now() / 1000);
  return fetch(`${botUrl}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': sign.signature ?? slackSignature(sign.secret, timestamp, body),
    },
    body,
  });
}

let eventCounter = 0;

/** An Events API envelope around `event`. */
export function eventEnvelope(team: string, event: Record<string, unknown>): string {
  eventCounter += 1;
  return JSON.stringify({
    token: 'legacy-verification-token',
    team_id: team,
    api_app_id: 'A0FLOTILLA',
    event: { event_ts: event.ts, ...event },
    type: 'event_callback',
    event_id: `Ev${String(eventCounter).padStart(8, '0')}`,
    event_time: Math.floor(Date.now() / 1000),
  });
}

/** The form body of a block_actions payload: a button pressed on message `messageTs` of thread `threadTs`. */
export function buttonPressBody(p: { team: string; user: string; channel: string; messageTs: string; threadTs: string; actionId: string; value: string; label: string }): string {
  const payload = {
    type: 'block_actions',
    team: { id: p.team, domain: 'fake' },
    user: { id: p.user, username: 'someone', team_id: p.team },
    api_app_id: 'A0FLOTILLA',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: p.messageTs, channel_id: p.channel, is_ephemeral: false, thread_ts: p.threadTs },
    trigger_id: '123.456.abc',
    channel: { id: p.channel, name: 'ops' },
    message: { type: 'message', ts: p.messageTs, thread_ts: p.threadTs, user: 'UBOT', bot_id: 'BBOT', text: '…', blocks: [] },
    response_url: 'https://hooks.slack.invalid/actions/T/1/x',
    actions: [{ type: 'button', action_id: p.actionId, block_id: 'flotilla_options', text: { type: 'plain_text', text: p.label, emoji: true }, value: p.value, action_ts: String(Date.now() / 1000) }],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}
