/**
 * Not a test of speed (no timed assertion): run with TIMING=1 to print analyses per second over the scenario set.
 * `TIMING=1 npx jest -c libs/shield/analysis/jest.config.js test/timing`
 */
import { analyzeCase } from '../src';
import { request } from './case.fixture';
import { SCENARIOS } from './scenarios';

const run = process.env['TIMING'] === '1' ? it : it.skip;

run('prints analyses per second', () => {
  const requests = SCENARIOS.map((s) => request(s.spec));
  for (let i = 0; i < 2000; i++) analyzeCase(requests[i % requests.length]!);
  const rounds = 20_000;
  const start = performance.now();
  for (let i = 0; i < rounds; i++) analyzeCase(requests[i % requests.length]!);
  const ms = performance.now() - start;
  console.log(`analyses/s: ${Math.round((rounds / ms) * 1000)} (${((ms * 1000) / rounds).toFixed(1)} µs each, ${requests.length} cases)`);
});
