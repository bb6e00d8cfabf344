/**
 * Test support for the gateway's e2e suites: start a real gateway in this process (the same bootstrap as
 * `nx serve`), talk to it with a real grpc-js client (relayControlV1GrpcJs) and real HTTPS requests that
 * verify the gateway's certificate.
 */
import { request as httpsRequest } from 'node:https';

import * as grpc from '@grpc/grpc-js';
import { relayControlV1GrpcJs, serviceInfoV1GrpcJs } from '@trustmesh/contracts';

import { startRelayGateway, type RelayGatewayHandle } from '../../src/relay-gateway.bootstrap';

export type RelayControlClient = relayControlV1GrpcJs.RelayControlClient;

export async function startTestGateway(env: Record<string, string>): Promise<{ gateway: RelayGatewayHandle; printed: string[]; logs: string[] }> {
  const printed: string[] = [];
  const logs: string[] = [];
  const gateway = await startRelayGateway(
    { RELAY_HTTP_PORT: '0', RELAY_GRPC_PORT: '0', RELAY_OPERATOR_PORT: '0', LOG_LEVEL: 'info', ...env },
    { print: (line) => printed.push(line), writeLog: (line) => logs.push(line) },
  );
  return { gateway, printed, logs };
}

/** TLS trusting only the gateway's certificate when it serves gRPC over TLS, else plaintext. */
function channelCredentials(gateway: RelayGatewayHandle): grpc.ChannelCredentials {
  return gateway.config.grpc.tls && gateway.tls ? grpc.credentials.createSsl(Buffer.from(gateway.tls.cert)) : grpc.credentials.createInsecure();
}

export function controlClient(gateway: RelayGatewayHandle): RelayControlClient {
  return new relayControlV1GrpcJs.RelayControlClient(gateway.grpcAddress, channelCredentials(gateway));
}

export function serviceInfoClient(gateway: RelayGatewayHandle): serviceInfoV1GrpcJs.ServiceInfoClient {
  return new serviceInfoV1GrpcJs.ServiceInfoClient(gateway.grpcAddress, channelCredentials(gateway));
}

export function bearer(credential: string | null): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (credential !== null) metadata.set('authorization', `Bearer ${credential}`);
  return metadata;
}

// The generated clients' last overload (TypeScript infers from it): request, metadata, options, callback.
type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: grpc.Metadata,
  options: Partial<grpc.CallOptions>,
  callback: (error: grpc.ServiceError | null, response: Res) => void,
) => grpc.ClientUnaryCall;

/** Calls a unary method; resolves with the response or rejects with the ServiceError (status code in `.code`). */
export function call<Req, Res>(client: grpc.Client, method: UnaryMethod<Req, Res>, request: Req, metadata: grpc.Metadata): Promise<Res> {
  return new Promise((resolve, reject) => {
    method.call(client, request, metadata, {}, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** The gRPC status code a call fails with (or 'OK'). */
export async function statusOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'OK';
  } catch (error) {
    const code = (error as grpc.ServiceError).code;
    return grpc.status[code] ?? String(code);
  }
}

export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: unknown;
}

/** An HTTPS request to the gateway that trusts its (development) certificate and nothing else. */
export function https(
  gateway: RelayGatewayHandle,
  path: string,
  options: { method?: string; body?: string | Buffer; headers?: Record<string, string>; servername?: string } = {},
): Promise<HttpReply> {
  const url = new URL(path, gateway.httpUrl);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: options.method ?? 'GET',
        headers: options.headers,
        ca: gateway.tls?.cert,
        // Full verification: the chain (the development certificate is its own root) and the name.
        servername: options.servername ?? 'localhost',
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let json: unknown = undefined;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
        });
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export function redeem(gateway: RelayGatewayHandle, code: unknown, headers: Record<string, string> = {}): Promise<HttpReply> {
  return https(gateway, '/v1/device-enrollments/redeem', {
    method: 'POST',
    body: JSON.stringify({ code }),
    headers: { 'content-type': 'application/json', ...headers },
  });
}
