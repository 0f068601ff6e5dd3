import { createServer, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { FlotillaError } from '@flotilla/core';

/**
 * Test helpers for upstream clients (`@flotilla/upstream/testing`, for tests only: it imports vitest): nothing here is
 * loaded by a running agent. `fakeUpstream` serves a test's own misbehaving upstream for a suite.
 *
 * `streamParts` writes `parts` as a 200 JSON body, each after the one before it drained (backpressure, as a real
 * upstream streams), until all are written or the client hangs up; it resolves with how many were written.
 */
export async function streamParts(res: ServerResponse, parts: Iterable<string | Buffer>): Promise<number> {
  res.writeHead(200, { 'content-type': 'application/json' });
  let written = 0;
  for (const part of parts) {
    if (res.destroyed) return written;
    written += 1;
    if (!res.write(part)) {
      await new Promise<void>((drained) => {
        const done = (): void => {
          res.off('drain', done).off('close', done);
          drained();
        };
        res.on('drain', done).on('close', done);
      });
    }
  }
  res.end();
  return written;
}

/** An HTTP server of a test's own (a fake upstream that misbehaves on purpose), for the suite it is called in. */
export interface FakeUpstream {
  /** Its base URL (http://127.0.0.1:<port>), once started. */
  readonly url: string;
}

/**
 * Serves `handler` on 127.0.0.1 at a free port for the suite it is called in: started before its tests, closed after
 * (open connections too, so a stream that never ends does not hold the close).
 */
export function fakeUpstream(handler: RequestListener): FakeUpstream {
  const server = createServer(handler);
  let url: string | undefined;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    get url(): string {
      if (url === undefined) throw new Error('the fake upstream is not started (use it from a test)');
      return url;
    },
  };
}


/** The FlotillaError a promise rejects with; anything else (a value, another error) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<FlotillaError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof FlotillaError) return error;
  throw new Error(`expected a FlotillaError, got ${String(error)}`);
}
