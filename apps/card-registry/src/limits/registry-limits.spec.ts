import type { ConfigProblem } from '@trustmesh/platform-config';

import { RegistryLimits } from './registry-limits';
import { collectRegistryLimitsConfig } from './registry-limits.config';

const configOf = (env: Record<string, string>) => {
  const problems: ConfigProblem[] = [];
  return { config: collectRegistryLimitsConfig(env, problems), problems };
};

describe('registry limits configuration', () => {
  it('defaults to CARDS.md baseline (60/min, 1000/h per source for writes) with reads more generous and no trusted proxy', () => {
    const { config, problems } = configOf({});
    expect(problems).toEqual([]);
    expect(config.sourceWrites).toEqual({ perMinute: 60, perHour: 1000 });
    expect(config.sourceReads.perMinute).toBeGreaterThan(config.sourceWrites.perMinute);
    expect(config.trustedProxies.isEmpty).toBe(true);
  });

  it('names every bad variable without echoing a proxy entry', () => {
    const { problems } = configOf({ REGISTRY_RATE_READS_PER_MINUTE: '0', REGISTRY_PUBLISH_QUOTA_PER_DAY: 'many', REGISTRY_TRUSTED_PROXIES: '10.0.0.0/8, secret-host' });
    expect(problems.map((problem) => problem.variable).sort()).toEqual(['REGISTRY_PUBLISH_QUOTA_PER_DAY', 'REGISTRY_RATE_READS_PER_MINUTE', 'REGISTRY_TRUSTED_PROXIES']);
    expect(JSON.stringify(problems)).not.toContain('secret-host');
  });
});

describe('RegistryLimits', () => {
  const limits = (now: () => number) =>
    new RegistryLimits({ ...configOf({}).config, sourceReads: { perMinute: 2, perHour: 100 }, sourceWrites: { perMinute: 1, perHour: 100 }, credential: { perMinute: 1, perHour: 100 } }, now);

  it('counts reads and writes of one source apart, and refuses with RATE_LIMITED and the wait', () => {
    const clock = { ms: 0 };
    const subject = limits(() => clock.ms);
    expect(subject.admitSource('203.0.113.9', 'write')).toBeNull();
    expect(subject.admitSource('203.0.113.9', 'read')).toBeNull();
    expect(subject.admitSource('203.0.113.9', 'read')).toBeNull();
    const refused = subject.admitSource('203.0.113.9', 'write');
    expect(refused).toMatchObject({ kind: 'exhausted', code: 'RATE_LIMITED', extra: { retryAfterSeconds: 60 } });
    expect(subject.admitSource('203.0.113.10', 'write')).toBeNull();
    clock.ms = 60_000;
    expect(subject.admitSource('203.0.113.9', 'write')).toBeNull();
  });

  it('groups IPv6 sources by /64 and limits publisher credentials only', () => {
    const subject = limits(() => 0);
    expect(subject.admitSource('2001:db8:1:2::1', 'write')).toBeNull();
    expect(subject.admitSource('2001:db8:1:2::ffff', 'write')?.code).toBe('RATE_LIMITED');
    const publisher = { kind: 'publisher', publisherId: 'acme', credentialId: 'c1' } as const;
    expect(subject.admitCaller(publisher)).toBeNull();
    expect(subject.admitCaller(publisher)?.code).toBe('RATE_LIMITED');
    expect(subject.admitCaller({ ...publisher, credentialId: 'c2' })).toBeNull();
    const operator = { kind: 'operator', accountId: 'ops' } as const;
    expect([subject.admitCaller(operator), subject.admitCaller(operator)]).toEqual([null, null]);
  });
});
