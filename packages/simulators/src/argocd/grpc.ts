import type { Response } from 'express';

/**
 * gRPC status codes Argo CD's API answers with, and the HTTP statuses grpc-gateway (v1, as Argo CD vendors it)
 * maps them to. Error bodies are grpc-gateway's: `{"error":m,"code":c,"message":m}` (`details` omitted when empty),
 * marshalled by Argo CD's encoding/json marshaller.
 */
export const GrpcCode = {
  Unknown: 2,
  InvalidArgument: 3,
  NotFound: 5,
  PermissionDenied: 7,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  Unauthenticated: 16,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

const HTTP_STATUS: Readonly<Record<GrpcCode, number>> = {
  2: 500,
  3: 400,
  5: 404,
  7: 403,
  12: 501,
  13: 500,
  14: 503,
  16: 401,
};

export class GrpcError extends Error {
  constructor(
    readonly code: GrpcCode,
    message: string,
  ) {
    super(message);
    this.name = 'GrpcError';
  }

  get httpStatus(): number {
    return HTTP_STATUS[this.code];
  }
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_ALL = /[<>&\u2028\u2029]/g;

/** JSON as Go's encoding/json writes it: compact, with `<`, `>`, `&`, U+2028 and U+2029 escaped as \uXXXX. */
export function goJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return HTML_UNSAFE.test(text) ? text.replace(HTML_UNSAFE_ALL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}

/** Headers every grpc-gateway answer carries: the gRPC response's content type, forwarded as metadata. */
export function setGatewayHeaders(res: Response): void {
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Grpc-Metadata-Content-Type', 'application/grpc');
}

export function sendJson(res: Response, status: number, value: unknown): void {
  setGatewayHeaders(res);
  res.status(status).end(goJson(value));
}

export function sendGrpcError(res: Response, error: GrpcError): void {
  sendJson(res, error.httpStatus, { error: error.message, code: error.code, message: error.message });
}

export const PERMISSION_DENIED = 'permission denied';
