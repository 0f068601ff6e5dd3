import type { ServerResponse } from 'node:http';

/**
 * Test helpers for upstream clients (`@flotilla/upstream/testing`): nothing here is loaded by a running agent.
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
