import { performance } from 'node:perf_hooks';
import type { FlotillaMetrics, UpstreamOutcome, UpstreamSystem } from '@flotilla/metrics';
import { ERROR_BODY_MAX_BYTES, readErrorBody, type Attempt, type Classifier, type ErrorBodyParser } from './classify.js';
import { parseRetryAfter } from './rate-limit.js';
import type { BodyReader } from './readers.js';
import type { UpstreamTarget } from './requests.js';

/** What one exchange needs of its client. */
export interface ExchangeContext {
  readonly system: UpstreamSystem;
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly limits: { readonly maxBodyBytes: number; readonly timeoutMs: number };
  readonly metrics: FlotillaMetrics;
  readonly classify: Classifier;
  readonly errorBody: ErrorBodyParser | undefined;
}

/**
 * One request and its response, within `timeoutMs` (headers and body) and `maxBodyBytes` (refused as declared, or
 * mid-stream as counted, unless the reader stops within it by itself): the body fed to `reader` chunk by chunk, the
 * response abandoned as soon as the reader is done. Counted in the request metrics whatever the outcome. Anything
 * but a value is thrown as a classified `Attempt`.
 */
export async function exchange<T>(context: ExchangeContext, request: UpstreamTarget, reader: BodyReader<T>): Promise<T> {
  const { system, metrics, limits, classify } = context;
  const labels = { system, operation: request.operation };
  const url = new URL(request.path, context.baseUrl);
  if (request.query !== undefined) url.search = request.query.toString();
  const started = performance.now();
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = request.signal === undefined ? timeout : AbortSignal.any([timeout, request.signal]);
  let bytes = 0;
  const counted = (attempt: Attempt): Attempt => {
    finish(attempt.outcome);
    return attempt;
  };
  const finish = (outcome: UpstreamOutcome): void => {
    metrics.upstreamRequests.inc({ ...labels, outcome });
    metrics.upstreamDuration.observe(labels, (performance.now() - started) / 1000);
    metrics.upstreamResponseBytes.observe(labels, bytes);
  };

  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...context.headers }, signal });
  } catch (error) {
    throw counted(classify.network(error, { cancelled: request.signal?.aborted === true, timedOut: timeout.aborted, origin: url.origin }));
  }

  // Refuse a declared oversized body before reading a byte of it.
  const declared = Number(response.headers.get('content-length') ?? 'NaN');
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) {
    await response.body?.cancel();
    throw counted(classify.bodyTooLarge(declared));
  }

  if (!response.ok) {
    const text = await readSmall(response, ERROR_BODY_MAX_BYTES);
    bytes = Buffer.byteLength(text);
    if (response.status === 429) throw counted(classify.throttled(parseRetryAfter(response.headers.get('retry-after'))));
    throw counted(classify.status(response.status, readErrorBody(text, context.errorBody)));
  }

  try {
    if (response.body !== null) {
      for await (const chunk of response.body) {
        const buffer = Buffer.from(chunk as Uint8Array);
        bytes += buffer.length;
        if (bytes > limits.maxBodyBytes && reader.stopsWithinBodyCap !== true) throw classify.bodyTooLarge(bytes);
        reader.push(buffer);
        // Leaving the loop cancels the body: the connection is closed, the rest never sent or read.
        if (reader.done === true) break;
      }
    }
    const value = reader.finish();
    finish('ok');
    return value;
  } catch (error) {
    // Whatever failed, the rest of the body is not wanted (a no-op when it was read to the end).
    await response.body?.cancel().catch(() => undefined);
    throw counted(classify.reading(error, { operation: request.operation, bytes, cancelled: request.signal?.aborted === true, timedOut: timeout.aborted }));
  }
}

/** An error body, read up to `max` bytes (error bodies are small; a huge one is cut, not buffered). */
async function readSmall(response: Response, max: number): Promise<string> {
  if (response.body === null) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      const buffer = Buffer.from(chunk as Uint8Array);
      chunks.push(buffer);
      size += buffer.length;
      if (size >= max) {
        await response.body.cancel().catch(() => undefined);
        break;
      }
    }
  } catch {
    // A broken error body still leaves the status to report.
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, max);
}
