import { createServer } from 'node:http';
import type { Express, Request, Response } from 'express';

export interface ListeningApp {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Closes the server and its connections; safe to call more than once. */
  close(): Promise<void>;
}

/** Serves `app` on `host:port` (port 0: any free port) and gives the URL clients use. */
export async function listen(app: Express, host: string, port: number): Promise<ListeningApp> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actual = typeof address === 'object' && address !== null ? address.port : port;
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${actual}`,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Counts every body byte a response writes into `counters.bytesSent` (HEAD responses send none). */
export function countBodyBytes(req: Request, res: Response, counters: { bytesSent: number }): void {
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => Response;
  const count = (chunk: unknown): void => {
    if (req.method === 'HEAD') return; // Node sends no body for HEAD, whatever is written.
    if (typeof chunk === 'string') counters.bytesSent += Buffer.byteLength(chunk);
    else if (chunk instanceof Uint8Array) counters.bytesSent += chunk.length;
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    count(chunk);
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') count(chunk);
    return end(chunk, ...rest);
  }) as typeof res.end;
}
