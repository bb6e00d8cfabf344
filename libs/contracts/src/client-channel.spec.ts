import { bearerMetadataOf, channelCredentialsOf } from './client-channel';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('a client channel from a read gRPC target', () => {
  it('is plaintext only when the target says so, else TLS', () => {
    expect(channelCredentialsOf({ tls: null })._isSecure()).toBe(false);
    expect(channelCredentialsOf({ tls: { ca: null } })._isSecure()).toBe(true);
    expect(channelCredentialsOf({ tls: { ca: Buffer.from(PEM) } })._isSecure()).toBe(true);
  });

  it('carries the credential as a bearer', () => {
    expect(bearerMetadataOf({ credential: { reveal: () => 'tmsa_secret' } }).get('authorization')).toEqual(['Bearer tmsa_secret']);
  });
});
