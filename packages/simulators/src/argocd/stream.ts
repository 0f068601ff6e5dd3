import type { Response } from 'express';
import { goJson, setGatewayHeaders } from './grpc.js';

/** Bytes gathered before one `write`: big enough to be cheap, small enough never to hold a whole list. */
const CHUNK = 64 * 1024;

/**
 * Writes `chunk`, then waits while the socket's buffer is full (`onWait` is told when a wait starts and ends).
 * False once the client has gone.
 */
export async function write(res: Response, chunk: string, onWait?: (waiting: boolean) => void): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(chunk)) return true;
  onWait?.(true);
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
  onWait?.(false);
  return !res.destroyed;
}

const half = (text: string): string => text.slice(0, Math.max(1, Math.floor(text.length / 2)));

/** Sends `text`, waits for it to reach the socket, then ends the connection without finishing the body. */
async function cutOff(res: Response, text: string): Promise<void> {
  if (!res.destroyed) await new Promise<void>((resolve) => res.write(text, () => resolve()));
  res.destroy();
}

/**
 * Streams a list body, `{"metadata":{...},"items":[...]}`, one serialised item at a time and honouring
 * backpressure, so a 10,000-application list never exists as one string. An empty list is `"items":null`, as
 * Argo CD's lists are once they have crossed gRPC. With `truncate` the body stops in the middle of an item
 * halfway through the list and the connection is destroyed.
 */
export async function streamList<T>(res: Response, metadata: Record<string, string>, items: readonly T[], serialise: (item: T) => string, truncate: boolean): Promise<void> {
  setGatewayHeaders(res);
  res.status(200);
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  const head = `{"metadata":${goJson(metadata)},"items":`;
  if (items.length === 0) {
    if (truncate) return cutOff(res, half(`${head}null}`));
    res.end(`${head}null}`);
    return;
  }
  const cutAt = truncate ? Math.floor(items.length / 2) : -1;
  let pending = `${head}[`;
  for (let i = 0; i < items.length; i += 1) {
    const text = serialise(items[i] as T);
    const separated = i > 0 ? `,${text}` : text;
    if (i === cutAt) return cutOff(res, pending + half(separated));
    pending += separated;
    if (pending.length >= CHUNK) {
      if (!(await write(res, pending))) return;
      pending = '';
    }
  }
  if (!res.destroyed) res.end(`${pending}]}`);
}

/** A small list or document sent whole (or cut off halfway when `truncate`). */
export async function sendWhole(res: Response, text: string, truncate: boolean): Promise<void> {
  setGatewayHeaders(res);
  res.status(200);
  if (truncate) return cutOff(res, half(text));
  res.end(text);
}
