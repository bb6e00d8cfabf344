// A generated grpc-js client's unary method as a promise with a deadline: the one way the project's tools and
// apps call a unary RPC, so each caller only maps the ServiceError to its own error type.
import type { Metadata, ServiceError } from '@grpc/grpc-js';

export type UnaryInvoker<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: { deadline: Date },
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

/** Calls `invoke` with a deadline `timeoutMs` from now; rejects with the call's `ServiceError`. */
export function callUnary<Req, Res>(invoke: UnaryInvoker<Req, Res>, request: Req, metadata: Metadata, timeoutMs: number): Promise<Res> {
  return new Promise((resolve, reject) => {
    invoke(request, metadata, { deadline: new Date(Date.now() + timeoutMs) }, (error, response) => (error ? reject(error) : resolve(response)));
  });
}
