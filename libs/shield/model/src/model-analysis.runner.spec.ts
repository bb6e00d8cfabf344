import type { ShieldAnalysis } from '@trustmesh/shield-records';

import { analysisRequest } from '../test/support/analysis-request.fixture';
import { analyzeWithModel, errorCodeOf } from './model-analysis.runner';
import type { ModelProvider } from './model-provider.port';

describe('errorCodeOf (SHIELD.md §8.2)', () => {
  it('takes a string code first, cut to 100 characters', () => {
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe('ECONNRESET');
    expect(errorCodeOf({ code: 'c'.repeat(150) })).toBe('c'.repeat(100));
  });

  it("then an Error's name, a DOMException's included", () => {
    expect(errorCodeOf(new TypeError('x'))).toBe('TypeError');
    expect(errorCodeOf(new DOMException('late', 'TimeoutError'))).toBe('TimeoutError');
    expect(errorCodeOf(Object.assign(new RangeError('x'), { code: 42 }))).toBe('RangeError');
  });

  it('else generation_failed', () => {
    expect(errorCodeOf('boom')).toBe('generation_failed');
    expect(errorCodeOf(undefined)).toBe('generation_failed');
    expect(errorCodeOf({ code: '' })).toBe('generation_failed');
  });
});

describe('analyzeWithModel deadline', () => {
  it('returns at the deadline even when the provider ignores its abort signal', async () => {
    const stubborn: ModelProvider = { modelId: 'stub/model', missingCredentialCode: undefined, complete: () => new Promise(() => undefined) };
    const fallback = { reply: 'f' } as ShieldAnalysis;
    const started = Date.now();
    const result = await analyzeWithModel(analysisRequest(), {
      provider: stubborn,
      promptVersion: 'v',
      fallback: () => fallback,
      validateAnalysis: () => ({ ok: false, issues: [] }),
      deadlineMs: 100,
    });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result).toEqual({ analysis: fallback, generation: { mode: 'fallback', model: 'stub/model', promptVersion: 'v', errorCode: 'TimeoutError' } });
  });
});
