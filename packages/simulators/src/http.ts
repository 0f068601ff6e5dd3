import { createServer } from 'node:http';
import type { Express } from 'express';

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
