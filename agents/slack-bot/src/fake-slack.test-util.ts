import { createHash, createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import express from 'express';

/**
 * A fake Slack Web API on 127.0.0.1 for the bot's tests: it records every call with its body, keeps the messages
 * of each channel (with their edits) and the uploaded files, and refuses what Slack refuses: a message whose
 * `text` passes 4,000 characters (msg_too_long), more than 50 blocks, a section text over 3,000 characters, a
 * button text over 75 or value over 2,000 characters, duplicate action ids (invalid_blocks). With an app token it
 * also speaks Socket Mode: apps.connections.open hands out a WebSocket URL of its own, where it says hello, sends
 * envelopes, records the bot's acknowledgements, answers pings and can drop the connection.
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
  /** The next call of `method` gets `body` as its answer, whatever it is (an answer the bot does not expect). */
  answerNext(method: string, body: Record<string, unknown>): void;
  /** The next call of `method` waits until the returned function is called, then goes on as usual. */
  holdNext(method: string): () => void;
  /** Socket Mode (with an app token). */
  readonly socketMode: FakeSocketMode;
  close(): Promise<void>;
}

export interface FakeSocketMode {
  /** WebSocket connections the bot has open now. */
  readonly open: number;
  /** Connections the bot opened so far. */
  readonly opened: number;
  /** Envelope ids the bot acknowledged, in order. */
  readonly acks: string[];
  /** While held, connections get no hello (Slack's "you are connected"); releasing says hello to those waiting. */
  holdHello(hold: boolean): void;
  /** Sends an envelope (`events_api` with an Events API body, `interactive` with a block_actions payload) to every open connection; returns its id. */
  send(type: 'events_api' | 'interactive', payload: unknown): string;
  /** Drops every open connection without a close frame, as a lost network would. */
  drop(): void;
}

/** RFC 6455: the GUID the server's Sec-WebSocket-Accept hashes with the client's key. */
const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const WS_OPCODE = { text: 0x1, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** One unfragmented, unmasked server frame. */
function wsFrame(opcode: number, payload: Buffer): Buffer {
  const first = 0x80 | opcode;
  if (payload.length < 126) return Buffer.concat([Buffer.from([first, payload.length]), payload]);
  if (payload.length < 65_536) {
    const head = Buffer.from([first, 126, 0, 0]);
    head.writeUInt16BE(payload.length, 2);
    return Buffer.concat([head, payload]);
  }
  const head = Buffer.alloc(10);
  head[0] = first;
  head[1] = 127;
  head.writeBigUInt64BE(BigInt(payload.length), 2);
  return Buffer.concat([head, payload]);
}

/** Reads the whole client frames at the front of `buffer` (masked, unfragmented) into `onFrame`; returns the rest. */
function readWsFrames(buffer: Buffer, onFrame: (opcode: number, payload: Buffer) => void): Buffer {
  let offset = 0;
  for (;;) {
    if (buffer.length - offset < 2) break;
    const first = buffer.readUInt8(offset);
    const second = buffer.readUInt8(offset + 1);
    let length = second & 0x7f;
    let pos = offset + 2;
    if (length === 126) {
      if (buffer.length < pos + 2) break;
      length = buffer.readUInt16BE(pos);
      pos += 2;
    } else if (length === 127) {
      if (buffer.length < pos + 8) break;
      length = Number(buffer.readBigUInt64BE(pos));
      pos += 8;
    }
    const masked = (second & 0x80) !== 0;
    if (buffer.length < pos + (masked ? 4 : 0) + length) break;
    const mask = masked ? buffer.subarray(pos, pos + 4) : undefined;
    if (masked) pos += 4;
    const payload = Buffer.from(buffer.subarray(pos, pos + length));
    if (mask !== undefined) for (let i = 0; i < payload.length; i += 1) payload.writeUInt8(payload.readUInt8(i) ^ mask.readUInt8(i & 3), i);
    onFrame(first & 0x0f, payload);
    offset = pos + length;
  }
  return buffer.subarray(offset);
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

export async function startFakeSlack(options: { token: string; botUserId?: string; teamId?: string; appToken?: string }): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const messages: FakeMessage[] = [];
  const files: FakeFile[] = [];
  const injected = new Map<string, Record<string, unknown>>();
  const holds = new Map<string, Promise<void>>();
  const sockets = new Set<{ readonly socket: Duplex; hello: boolean }>();
  const acks: string[] = [];
  let opened = 0;
  let helloHeld = false;
  let envelopes = 0;
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
    const held = holds.get(method);
    holds.delete(method);
    if (held === undefined) answer(method, req, res);
    else void held.then(() => answer(method, req, res));
  });
  const answer = (method: string, req: express.Request, res: express.Response): void => {
    const args: Record<string, unknown> = isRecord(req.body) ? req.body : {};
    const reply = (body: Record<string, unknown>, wasInjected = false): void => {
      const ok = body.ok === true;
      calls.push({ method, args, ok, error: ok ? undefined : String(body.error), injected: wasInjected });
      res.json(body);
    };
    const forced = injected.get(method);
    if (forced !== undefined) {
      injected.delete(method);
      reply(forced, true);
      return;
    }
    if (method === 'apps.connections.open') {
      // Socket Mode: the app-level token opens a connection on this server's WebSocket endpoint.
      if (options.appToken === undefined || req.headers.authorization !== `Bearer ${options.appToken}`) reply({ ok: false, error: 'invalid_auth' });
      else reply({ ok: true, url: `${base.replace(/^http/, 'ws')}/socket/${opened + 1}` });
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
  };

  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (error?: Error) => (error === undefined ? resolve(s) : reject(error)));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const sendFrame = (socket: Duplex, opcode: number, payload: Buffer): void => {
    if (!socket.destroyed) socket.write(wsFrame(opcode, payload));
  };
  const sayHello = (connection: { readonly socket: Duplex; hello: boolean }): void => {
    connection.hello = true;
    sendFrame(connection.socket, WS_OPCODE.text, Buffer.from(JSON.stringify({ type: 'hello', num_connections: sockets.size, connection_info: { app_id: 'A0FLOTILLA' } })));
  };
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    const key = req.headers['sec-websocket-key'];
    if (!(req.url ?? '').startsWith('/socket/') || typeof key !== 'string') {
      socket.destroy();
      return;
    }
    const accept = createHash('sha1').update(`${key}${WS_GUID}`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    opened += 1;
    const connection = { socket, hello: false };
    sockets.add(connection);
    let pending: Buffer = Buffer.from(head);
    socket.on('data', (chunk: Buffer) => {
      pending = readWsFrames(Buffer.concat([pending, chunk]), (opcode, payload) => {
        if (opcode === WS_OPCODE.ping) sendFrame(socket, WS_OPCODE.pong, payload);
        else if (opcode === WS_OPCODE.close) {
          sendFrame(socket, WS_OPCODE.close, payload.subarray(0, 2));
          socket.end();
        } else if (opcode === WS_OPCODE.text) {
          const message: unknown = JSON.parse(payload.toString('utf8'));
          if (isRecord(message) && typeof message.envelope_id === 'string') acks.push(message.envelope_id);
        }
      });
    });
    const forget = (): void => {
      sockets.delete(connection);
    };
    socket.on('close', forget);
    socket.on('error', forget);
    if (!helloHeld) sayHello(connection);
  });
  const socketMode: FakeSocketMode = {
    get open() {
      return sockets.size;
    },
    get opened() {
      return opened;
    },
    acks,
    holdHello(hold) {
      helloHeld = hold;
      if (!hold) for (const connection of sockets) if (!connection.hello) sayHello(connection);
    },
    send(type, payload) {
      envelopes += 1;
      const id = `envelope-${envelopes}`;
      const envelope = { envelope_id: id, type, payload, accepts_response_payload: false, retry_attempt: 0, retry_reason: '' };
      for (const connection of sockets) sendFrame(connection.socket, WS_OPCODE.text, Buffer.from(JSON.stringify(envelope)));
      return id;
    },
    drop() {
      for (const connection of sockets) connection.socket.destroy();
      sockets.clear();
    },
  };
  return {
    apiUrl: `${base}/api/`,
    token: options.token,
    calls,
    files,
    thread: (channel, threadTs) => messages.filter((m) => m.channel === channel && (m.ts === threadTs || m.threadTs === threadTs)),
    message: (channel, ts) => messages.find((m) => m.channel === channel && m.ts === ts),
    failNext: (method, error) => {
      injected.set(method, { ok: false, error });
    },
    answerNext: (method, body) => {
      injected.set(method, body);
    },
    holdNext: (method) => {
      let release: () => void = () => undefined;
      holds.set(method, new Promise<void>((resolve) => (release = resolve)));
      return () => release();
    },
    socketMode,
    close: () =>
      new Promise<void>((resolve) => {
        socketMode.drop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Polls `probe` (sync or async) until it returns a value (every 20 ms, at most `ms`), or fails naming `what`. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
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
