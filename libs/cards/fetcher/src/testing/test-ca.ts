/**
 * A throwaway certificate authority for tests that fetch over real HTTPS: a P-256 CA and leaf certificates for test
 * host names (`acme.test`). Built with `selfsigned` (pure JS over @peculiar/x509), as apps/relay-gateway already does.
 */
import { generate } from 'selfsigned';

export interface TestCertificate {
  readonly cert: string;
  readonly key: string;
}

export interface TestCa extends TestCertificate {
  /** Issues a server certificate for the given DNS names (and IP addresses), signed by this CA. */
  issue(hostnames: readonly string[]): Promise<TestCertificate>;
}

const DAY_MS = 24 * 3600 * 1000;

export async function createTestCa(commonName = 'Trustmesh Test CA'): Promise<TestCa> {
  const now = Date.now();
  const ca = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const issue = async (hostnames: readonly string[]): Promise<TestCertificate> => {
    const leaf = await generate([{ name: 'commonName', value: hostnames[0] ?? 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notBeforeDate: new Date(now - 60_000),
      notAfterDate: new Date(now + DAY_MS),
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: hostnames.map((host) => (/^[\d.]+$|:/.test(host) ? { type: 7 as const, ip: host } : { type: 2 as const, value: host })) },
      ],
    });
    return { cert: leaf.cert, key: leaf.private };
  };
  return { cert: ca.cert, key: ca.private, issue };
}
