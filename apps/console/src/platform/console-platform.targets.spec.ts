import { envReader, type ConfigProblem } from '@trustmesh/platform-config';

import { readConsoleShieldTarget } from '../shield/console-shield.target';
import { readConsoleRegistryTarget } from '../registry/console-registry.target';
import { readConsolePlatformTargets } from './console-platform.targets';

const read = <T>(env: Record<string, string>, reader: (r: ReturnType<typeof envReader>) => T) => {
  const problems: ConfigProblem[] = [];
  const value = reader(envReader(env, problems));
  return { value, problems: problems.map((problem) => problem.variable) };
};

describe('console upstream configuration', () => {
  it('reads the operator URLs as origins, and refuses anything after one', () => {
    expect(read({ CONSOLE_SHIELD_OPERATOR_URL: 'http://127.0.0.1:9465/' }, readConsolePlatformTargets)).toEqual({ value: { relay: null, shield: 'http://127.0.0.1:9465', registry: null }, problems: [] });
    expect(read({ CONSOLE_RELAY_OPERATOR_URL: 'http://relay:9464/metrics', CONSOLE_REGISTRY_OPERATOR_URL: 'ftp://registry' }, readConsolePlatformTargets).problems).toEqual(['CONSOLE_RELAY_OPERATOR_URL', 'CONSOLE_REGISTRY_OPERATOR_URL']);
  });

  it('reads the Shield and registry clients by the platform rule, the credential held as a secret', () => {
    const shield = read({ CONSOLE_SHIELD_ADDRESS: '127.0.0.1:50061', CONSOLE_SHIELD_CREDENTIAL: 'console-credential-0123456789' }, readConsoleShieldTarget);
    expect(shield.problems).toEqual([]);
    expect(shield.value).toMatchObject({ address: '127.0.0.1:50061', tls: null });
    expect(JSON.stringify(shield.value)).not.toContain('console-credential-0123456789');
    expect(read({}, readConsoleRegistryTarget)).toEqual({ value: null, problems: [] });
    expect(read({ CONSOLE_REGISTRY_ADDRESS: 'registry.internal:50071' }, readConsoleRegistryTarget).problems).toEqual(['CONSOLE_REGISTRY_CREDENTIAL']);
  });
});
