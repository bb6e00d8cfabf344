import { classifyReplay, idempotencyKey } from './replay-classifier';

const base = {
  workspaceId: '6d1f3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d',
  requestId: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  method: 'thread.rename',
  params: { threadId: 't', title: 'Plans', requestId: 'r' },
};

describe('request replay classification (§5)', () => {
  it('is a replay when only key order differs', () => {
    const reordered = { ...base, params: { requestId: 'r', title: 'Plans', threadId: 't' } };
    expect(classifyReplay(base, reordered)).toEqual({ disposition: 'replay' });
  });

  it('is a conflict when the same key carries another method or params', () => {
    expect(classifyReplay(base, { ...base, params: { ...base.params, title: 'Other' } })).toEqual({
      disposition: 'conflict',
      errorCode: 'RELAY_REQUEST_ID_CONFLICT',
    });
    expect(classifyReplay(base, { ...base, method: 'thread.create' }).disposition).toBe('conflict');
  });

  it('treats array order as identity', () => {
    const a = { ...base, method: 'interaction.candidate', params: { values: [1, 2] } };
    expect(classifyReplay(a, { ...a, params: { values: [2, 1] } }).disposition).toBe('conflict');
  });

  it('is new when the key differs in request id or workspace', () => {
    expect(classifyReplay(base, { ...base, requestId: '2c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f' })).toEqual({ disposition: 'new' });
    expect(classifyReplay(base, { ...base, workspaceId: '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d' })).toEqual({ disposition: 'new' });
  });

  it('keys on workspace and request id together, without ambiguity', () => {
    expect(idempotencyKey({ workspaceId: 'ab', requestId: 'c' })).not.toBe(idempotencyKey({ workspaceId: 'a', requestId: 'bc' }));
  });
});
