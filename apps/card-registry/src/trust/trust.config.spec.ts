/**
 * The trust configuration: production defaults with every test-only override off, the overrides read only
 * from their explicitly named variables, and bad values named in one ConfigError.
 */
import { ConfigError } from '@trustmesh/platform-config';

import { loadCardRegistryConfig } from '../config/card-registry.config';

const BASE = { TRUSTMESH_DATA_DIR: '/tmp/registry-trust-config' };

describe('trust configuration', () => {
  it('defaults to day-long re-checks, month-long proofs and no test-only override at all', () => {
    const { trust } = loadCardRegistryConfig(BASE);
    expect(trust).toEqual({ proofRecheckMs: 86_400_000, proofValidityMs: 30 * 86_400_000, claimTtlMs: 7 * 86_400_000, taskIntervalMs: 600_000, keyRecheckMs: 6 * 3_600_000, testOnly: null });
  });

  it('reads the test-only overrides from their REGISTRY_TEST_ONLY_* variables', () => {
    const { trust } = loadCardRegistryConfig({
      ...BASE,
      REGISTRY_TEST_ONLY_FETCH_CA_PEM: '-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----',
      REGISTRY_TEST_ONLY_FETCH_HOSTS: 'acme.example=127.0.0.1, globex.example=127.0.0.1',
      REGISTRY_TEST_ONLY_ADMIT_LOOPBACK: 'true',
      REGISTRY_TEST_ONLY_HTTPS_PORT: '8443',
      REGISTRY_TEST_ONLY_DNS_SERVERS: '127.0.0.1:5353',
    });
    expect(trust.testOnly).toEqual({
      caPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
      hosts: { 'acme.example': '127.0.0.1', 'globex.example': '127.0.0.1' },
      admitLoopback: true,
      httpsPort: 8443,
      dnsServers: ['127.0.0.1:5353'],
    });
  });

  it('names every bad trust variable at once', () => {
    let error: unknown;
    try {
      loadCardRegistryConfig({ ...BASE, REGISTRY_PROOF_RECHECK_MS: '5000', REGISTRY_PROOF_VALIDITY_MS: '1000', REGISTRY_TEST_ONLY_FETCH_HOSTS: 'acme.example', REGISTRY_TEST_ONLY_DNS_SERVERS: 'localhost', REGISTRY_TEST_ONLY_ADMIT_LOOPBACK: 'maybe' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    for (const variable of ['REGISTRY_PROOF_VALIDITY_MS', 'REGISTRY_TEST_ONLY_FETCH_HOSTS', 'REGISTRY_TEST_ONLY_DNS_SERVERS', 'REGISTRY_TEST_ONLY_ADMIT_LOOPBACK']) expect((error as Error).message).toContain(variable);
  });
});
