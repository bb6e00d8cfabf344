/**
 * The certificate and key the gateway serves HTTPS/WSS (and optionally gRPC) with:
 * - `files`: PEM files named by RELAY_TLS_CERT_FILE / RELAY_TLS_KEY_FILE (production, or a dev CA's);
 * - `self-signed`: embedded development. A P-256 certificate for localhost/127.0.0.1/::1 (or
 *   RELAY_TLS_SELF_SIGNED_HOSTS) is created once and kept under TRUSTMESH_DATA_DIR, so descriptors are valid
 *   `wss://` URLs on every run and a client can pin `cert.pem`. It is renewed when it is within 30 days of
 *   expiry or its host names changed. The key file is written with mode 0600.
 * - `terminated-by-proxy`: plain listeners (loopback by default) behind a proxy that terminates TLS
 *   (RELAY_PUBLIC_BASE_URL stays https://); `off`: plain, embedded development only. Neither has material.
 *
 * `selfsigned` (pure JS over @peculiar/x509, no install script) generates the certificate.
 */
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';

import { generate } from 'selfsigned';

import type { RelayGatewayConfig } from '../config/relay-gateway.config';

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where the certificate came from, for logs. */
  source: 'files' | 'self-signed';
  /** Path of the certificate file (clients trust it in development). */
  certFile: string;
  /** SHA-256 fingerprint of the certificate (colon-separated hex), safe to log and print. */
  fingerprint: string;
}

export class TlsConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'TlsConfigError';
  }
}

const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

export async function loadTlsMaterial(tls: RelayGatewayConfig['tls'], now: () => Date = () => new Date()): Promise<TlsMaterial | null> {
  if (tls.mode === 'off' || tls.mode === 'terminated-by-proxy') return null;
  if (tls.mode === 'files') {
    const cert = await readFile(tls.certFile, 'utf8').catch(() => {
      throw new TlsConfigError('RELAY_TLS_CERT_FILE', `cannot read the certificate file ${tls.certFile}`);
    });
    const key = await readFile(tls.keyFile, 'utf8').catch(() => {
      throw new TlsConfigError('RELAY_TLS_KEY_FILE', `cannot read the key file ${tls.keyFile}`);
    });
    let parsed: X509Certificate;
    try {
      parsed = new X509Certificate(cert);
    } catch {
      throw new TlsConfigError('RELAY_TLS_CERT_FILE', `${tls.certFile} is not a PEM certificate`);
    }
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) throw new TlsConfigError('RELAY_TLS_KEY_FILE', `${tls.keyFile} is not a PEM private key`);
    let matches = false;
    try {
      matches = parsed.checkPrivateKey(createPrivateKey(key));
    } catch {
      matches = false;
    }
    if (!matches) {
      throw new TlsConfigError('RELAY_TLS_KEY_FILE', 'the key does not belong to the certificate in RELAY_TLS_CERT_FILE');
    }
    return { cert, key, source: 'files', certFile: tls.certFile, fingerprint: parsed.fingerprint256 };
  }
  return selfSigned(tls.dir, tls.hostnames, now());
}

async function selfSigned(dir: string, hostnames: string[], now: Date): Promise<TlsMaterial> {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  const wanted = createHash('sha256').update(hostnames.join(',')).digest('hex');
  const existing = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8'), readFile(join(dir, 'hosts.sha256'), 'utf8')]).catch(() => null);
  if (existing) {
    const [cert, key, hosts] = existing;
    try {
      const parsed = new X509Certificate(cert);
      if (hosts.trim() === wanted && Date.parse(parsed.validTo) - now.getTime() > RENEW_BEFORE_MS) {
        return { cert, key, source: 'self-signed', certFile, fingerprint: parsed.fingerprint256 };
      }
    } catch {
      // unreadable: make a new one below
    }
  }
  const notAfterDate = new Date(now.getTime() + 365 * 24 * 3600 * 1000);
  const pems = await generate([{ name: 'commonName', value: hostnames[0] ?? 'localhost' }, { name: 'organizationName', value: 'Trustmesh relay development' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: hostnames.map((host) => (isIP(host.replace(/^\[|\]$/g, '')) ? { type: 7 as const, ip: host.replace(/^\[|\]$/g, '') } : { type: 2 as const, value: host })),
      },
    ],
  });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  await chmod(keyFile, 0o600);
  await writeFile(certFile, pems.cert);
  await writeFile(join(dir, 'hosts.sha256'), `${wanted}\n`);
  return { cert: pems.cert, key: pems.private, source: 'self-signed', certFile, fingerprint: new X509Certificate(pems.cert).fingerprint256 };
}
