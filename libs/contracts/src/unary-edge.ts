// The server side of a unary RPC on plain @grpc/grpc-js, as the shield's and the registry's gRPC edges serve it
// (the client side is unary-call.ts): decoders that never blame the server for a client's bytes, the bearer
// credential read from `authorization` metadata, the status each refusal kind is answered with, and the one way a
// handler's answer, refusal or thrown error reaches the caller and the log. What a refusal carries besides its
// status (the app's `*-issues-bin` trailer) stays the app's.
import * as grpc from '@grpc/grpc-js';

/** What a request that is not a protobuf message of its method decodes to (see `tolerantDecoding`). */
const UNDECODABLE = Symbol('undecodable request');

/**
 * The service definition with decoders that never throw: grpc-js answers a decoder's exception with INTERNAL, which
 * would blame the server for a client's bytes. Such a request reaches its handler as a value `isUndecodable` spots,
 * to be refused there like any other bad input (INVALID_ARGUMENT).
 */
export function tolerantDecoding<D extends grpc.ServiceDefinition>(definition: D): D {
  const methods = Object.entries(definition).map(([name, method]) => [
    name,
    {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return method.requestDeserialize(bytes);
        } catch {
          return UNDECODABLE;
        }
      },
    },
  ]);
  return Object.fromEntries(methods) as D;
}

/** Whether the request did not decode as its method's message (only with `tolerantDecoding`). */
export const isUndecodable = (request: unknown): boolean => request === UNDECODABLE;

/** The credential of `authorization: Bearer <token>` metadata (printable ASCII, at most 512 characters). */
export function bearerCredentialOf(metadata: grpc.Metadata): string | undefined {
  const value = metadata.get('authorization')[0];
  const match = typeof value === 'string' ? /^Bearer ([\x21-\x7e]{1,512})$/i.exec(value) : null;
  return match?.[1];
}

/** The refusal kinds the apps' services return, as their REST edges know them (400, 422, 401, 403, 404, 410, 429, 409). */
export type RefusalKind = 'invalid' | 'unprocessable' | 'unauthenticated' | 'forbidden' | 'not_found' | 'gone' | 'exhausted' | 'conflict';

/** The status of each kind but `conflict`, whose status depends on what conflicted and is each app's to choose. */
export const GRPC_STATUS_OF_REFUSAL: Readonly<Record<Exclude<RefusalKind, 'conflict'>, grpc.status>> = {
  invalid: grpc.status.INVALID_ARGUMENT,
  unprocessable: grpc.status.INVALID_ARGUMENT,
  unauthenticated: grpc.status.UNAUTHENTICATED,
  forbidden: grpc.status.PERMISSION_DENIED,
  not_found: grpc.status.NOT_FOUND,
  gone: grpc.status.NOT_FOUND,
  exhausted: grpc.status.RESOURCE_EXHAUSTED,
};

/** A refusal as grpc-js sends it: a status, the details line, and the app's trailer. */
export type UnaryRefusal = Partial<grpc.StatusObject> & { code: grpc.status };

export type UnaryAnswer<Res> = { ok: true; value: Res } | { ok: false; refusal: UnaryRefusal };

export interface UnaryEdge {
  /** Names the log lines: `<name> grpc call` and `<name> grpc call failed`. */
  readonly name: string;
  /** The platform logger's `log` (structurally: this library depends on no platform library). */
  log(level: 'info' | 'warn' | 'error', message: string, fields: Readonly<Record<string, string | number | boolean>>): void;
  /** Whether a thrown error is a failure of the world (the database unreachable) rather than of the service. */
  isUnavailable(error: unknown): boolean;
  /** The UNAVAILABLE refusal, with the app's trailer. */
  unavailable(): UnaryRefusal;
  /**
   * Runs each call's handling (`handle` resolves to the status code sent) under the app's server span: the call's
   * path (`/package.Service/Method`) names it, its metadata carries the caller's trace context. The platform's
   * `traceGrpcServerCall` fits.
   */
  trace?(path: string, metadata: grpc.Metadata, handle: () => Promise<grpc.status>): Promise<grpc.status>;
}

/**
 * A grpc-js unary handler around `answer`: its value or refusal is sent, and a thrown error becomes UNAVAILABLE
 * (the caller's to retry) when `edge.isUnavailable` says so, else INTERNAL with no internal text. One log line per
 * call with the method and the status code, or the error's name; never the request, the answer or a credential.
 */
export function serveUnary<Req, Res>(edge: UnaryEdge, method: string, answer: (call: grpc.ServerUnaryCall<Req, Res>) => Promise<UnaryAnswer<Res>>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const handle = () =>
      answer(call).then(
        (outcome) => {
          if (outcome.ok) callback(null, outcome.value);
          else callback(outcome.refusal);
          const code = outcome.ok ? grpc.status.OK : outcome.refusal.code;
          edge.log('info', `${edge.name} grpc call`, { method, code });
          return code;
        },
        (error: unknown) => {
          const unavailable = edge.isUnavailable(error);
          edge.log(unavailable ? 'warn' : 'error', `${edge.name} grpc call failed`, { method, errorName: error instanceof Error ? error.name : 'unknown', unavailable });
          callback(unavailable ? edge.unavailable() : { code: grpc.status.INTERNAL, details: 'Internal error' });
          return unavailable ? grpc.status.UNAVAILABLE : grpc.status.INTERNAL;
        },
      );
    void (edge.trace ? edge.trace(call.getPath(), call.metadata, handle) : handle());
  };
}
