import { envReader, type ConfigProblem } from '@trustmesh/platform-config';

import { readFederationConfig } from './federation.config';

const read = (env: Record<string, string>) => {
  const problems: ConfigProblem[] = [];
  const config = readFederationConfig(envReader(env, problems));
  return { config, problems };
};

describe('federation configuration', () => {
  it('defaults to the scheduler on, a 10 s tick and a 60 s crawl deadline', () => {
    expect(read({})).toEqual({ config: { scheduler: true, tickMs: 10_000, crawlDeadlineMs: 60_000 }, problems: [] });
  });

  it('reads the scheduler switch and its bounds', () => {
    expect(read({ REGISTRY_FEDERATION_SCHEDULER: 'off', REGISTRY_FEDERATION_TICK_MS: '200', REGISTRY_FEDERATION_CRAWL_DEADLINE_MS: '5000' }).config).toEqual({ scheduler: false, tickMs: 200, crawlDeadlineMs: 5000 });
  });

  it('names every bad variable', () => {
    const { problems } = read({ REGISTRY_FEDERATION_SCHEDULER: 'sometimes', REGISTRY_FEDERATION_TICK_MS: '5', REGISTRY_FEDERATION_CRAWL_DEADLINE_MS: 'soon' });
    expect(problems.map((problem) => problem.variable).sort()).toEqual(['REGISTRY_FEDERATION_CRAWL_DEADLINE_MS', 'REGISTRY_FEDERATION_SCHEDULER', 'REGISTRY_FEDERATION_TICK_MS']);
  });
});
