// The grpc-js side of the platform's one rule for an app's gRPC client to another app
// (`readGrpcClientTarget` in @trustmesh/platform-config decides TLS or plaintext and holds the bearer):
// the channel credentials and the bearer metadata, so every such client opens its channel the same way.
import { credentials, Metadata, type ChannelCredentials } from '@grpc/grpc-js';

/** What a client needs of a read target (structurally `GrpcClientTarget`). */
export interface ClientChannelTarget {
  /** null: plaintext; else TLS trusting `ca` (null: the system's CAs). */
  tls: { ca: Buffer | null } | null;
  credential: { reveal(): string };
}

/** TLS (with the target's CA, or the system's) or plaintext, as the target was read. */
export function channelCredentialsOf(target: Pick<ClientChannelTarget, 'tls'>): ChannelCredentials {
  return target.tls ? credentials.createSsl(target.tls.ca) : credentials.createInsecure();
}

/** `authorization: Bearer <credential>` metadata, revealed here and nowhere else. */
export function bearerMetadataOf(target: Pick<ClientChannelTarget, 'credential'>): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${target.credential.reveal()}`);
  return metadata;
}
