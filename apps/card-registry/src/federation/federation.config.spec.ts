import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { envReader, type ConfigProblem } from '@trustmesh/platform-config';

import { readFederationConfig } from './federation.config';

const read = (env: Record<string, string>) => {
  const problems: ConfigProblem[] = [];
  const config = readFederationConfig(envReader(env, problems));
  return { config, problems };
};

describe('federation configuration', () => {
  it('defaults to the scheduler on and safe fetching untouched', () => {
    expect(read({})).toEqual({ config: { scheduler: true, tickMs: 10_000, crawlDeadlineMs: 60_000, testOnly: { admitLoopback: false } }, problems: [] });
  });

  it('reads the test-only CA file, host table and loopback admission', () => {
    const dir = mkdtempSync(join(tmpdir(), 'federation-config-'));
    try {
      const caFile = join(dir, 'ca.pem');
      writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
      const { config, problems } = read({
        REGISTRY_FEDERATION_TEST_ONLY_CA_FILE: caFile,
        REGISTRY_FEDERATION_TEST_ONLY_HOSTS: 'Acme.test=127.0.0.1, internal.test=10.0.0.7',
        REGISTRY_FEDERATION_TEST_ONLY_ADMIT_LOOPBACK: 'true',
        REGISTRY_FEDERATION_SCHEDULER: 'off',
      });
      expect(problems).toEqual([]);
      expect(config).toMatchObject({ scheduler: false, testOnly: { admitLoopback: true, hosts: { 'acme.test': '127.0.0.1', 'internal.test': '10.0.0.7' } } });
      expect(config.testOnly.ca).toContain('BEGIN CERTIFICATE');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names every bad variable', () => {
    const { problems } = read({
      REGISTRY_FEDERATION_TEST_ONLY_CA_FILE: '/nonexistent/ca.pem',
      REGISTRY_FEDERATION_TEST_ONLY_HOSTS: 'acme.test=not-an-address',
      REGISTRY_FEDERATION_TICK_MS: '5',
      REGISTRY_FEDERATION_CRAWL_DEADLINE_MS: 'soon',
    });
    expect(problems.map((problem) => problem.variable).sort()).toEqual([
      'REGISTRY_FEDERATION_CRAWL_DEADLINE_MS',
      'REGISTRY_FEDERATION_TEST_ONLY_CA_FILE',
      'REGISTRY_FEDERATION_TEST_ONLY_HOSTS',
      'REGISTRY_FEDERATION_TICK_MS',
    ]);
  });
});
