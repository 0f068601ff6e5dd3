import type { UpstreamErrorReading, UpstreamStreamError } from '@flotilla/upstream';

/**
 * gRPC codes worth a retry: UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL. Argo CD answers
 * some caller mistakes (a bad label selector) as HTTP 500 with code 2 UNKNOWN: retrying those only repeats the
 * mistake.
 */
const RETRYABLE_GRPC_CODES: ReadonlySet<number> = new Set([4, 8, 10, 13, 14]);
/** gRPC codes that mean the request itself was wrong: UNKNOWN (a plain Go error, how Argo CD reports them) and INVALID_ARGUMENT. */
const REJECTED_GRPC_CODES: ReadonlySet<number> = new Set([2, 3]);

/** HTTP statuses grpc-gateway gives gRPC codes, for a stream error that carries only its gRPC code. */
const GRPC_HTTP_STATUS: Readonly<Record<number, number>> = { 1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 10: 409, 11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401 };

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What a gRPC code says of a failure: the caller's mistake, worth a retry, or not. */
function reading(message: string | undefined, grpcCode: number | undefined): UpstreamErrorReading {
  if (grpcCode === undefined) return { message };
  const failure = REJECTED_GRPC_CODES.has(grpcCode) ? 'rejected' : RETRYABLE_GRPC_CODES.has(grpcCode) ? 'transient' : 'permanent';
  return { message, failure, details: { grpc_code: grpcCode } };
}

/** grpc-gateway's error chunk in a stream: `{"error": {grpc_code, http_code, message}}` with no `result`. */
function streamErrorOf(value: unknown): { message: string; grpcCode: number | undefined; status: number } | undefined {
  if (!isRecord(value) || 'result' in value || !isRecord(value.error)) return undefined;
  const inner = value.error;
  const grpcCode = typeof inner.grpc_code === 'number' ? inner.grpc_code : typeof inner.code === 'number' ? inner.code : undefined;
  const httpStatus = typeof inner.http_code === 'number' ? inner.http_code : undefined;
  const message = typeof inner.message === 'string' && inner.message !== '' ? inner.message : `gRPC code ${grpcCode ?? 'unknown'}`;
  return { message, grpcCode, status: httpStatus ?? (grpcCode === undefined ? 500 : (GRPC_HTTP_STATUS[grpcCode] ?? 500)) };
}

/**
 * An error a line of an Argo CD server stream (its logs) reports instead of a message, with the HTTP status it
 * stands for (`UpstreamHttpOptions.streamError`).
 */
export function grpcStreamError(line: unknown): UpstreamStreamError | undefined {
  const error = streamErrorOf(line);
  return error === undefined ? undefined : { ...reading(error.message, error.grpcCode), status: error.status };
}

/**
 * The error of an Argo CD (grpc-gateway) error body (`UpstreamHttpOptions.errorBody`): `{error, code, message}`, or
 * a stream's error chunk (its answer to a stream that failed before its first message).
 */
export function grpcGatewayError(body: unknown): UpstreamErrorReading | undefined {
  if (!isRecord(body)) return undefined;
  const streamed = streamErrorOf(body);
  if (streamed !== undefined) return reading(streamed.message, streamed.grpcCode);
  const message = typeof body.message === 'string' && body.message !== '' ? body.message : typeof body.error === 'string' && body.error !== '' ? body.error : undefined;
  return reading(message, typeof body.code === 'number' ? body.code : undefined);
}
