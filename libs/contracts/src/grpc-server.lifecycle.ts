// Binding and closing a plain @grpc/grpc-js server the way the shield's and the registry's gRPC listeners do:
// plaintext (TLS is the deployment's proxy's), an IPv6 host in brackets, and a graceful close that stops
// waiting for calls in flight after a bound.
import * as grpc from '@grpc/grpc-js';

/** Binds `server` on `host:port` without TLS; resolves with the port (the one chosen when `port` is 0). */
export function bindPlaintext(server: grpc.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
}

/** Lets calls in flight finish, and cuts them off after `graceMs` (default 2 s); never rejects. */
export function shutdownGracefully(server: grpc.Server, graceMs = 2_000): Promise<void> {
  return new Promise((resolve) => {
    server.tryShutdown(() => resolve());
    setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs).unref();
  });
}
