import { randomUUID } from 'node:crypto';

import { wireError } from '@trustmesh/relay-protocol';

import { checkCompanionResponse } from './companion-response.rules';

const workspaceId = randomUUID();
const response = (extra: Record<string, unknown>) => ({ type: 'runtime.response' as const, requestId: randomUUID(), workspaceId, ...extra });
const check = (frame: ReturnType<typeof response>, method: string | undefined, from: '1.1' | '1.2' = '1.2', to: '1.1' | '1.2' = from) =>
  checkCompanionResponse(frame, method, from, to);

describe('checkCompanionResponse', () => {
  it('passes a valid result unchanged', () => {
    const frame = response({ result: { items: [], nextCursor: null } });
    expect(check(frame, 'thread.list')).toEqual({ ok: true, text: JSON.stringify(frame) });
  });

  it('refuses a result that fails its method schema, and answers COMPANION_ERROR', () => {
    const frame = response({ result: { items: [], nextCursor: null, secret: 'x' } });
    const verdict = check(frame, 'thread.list');
    expect(verdict).toMatchObject({ ok: false, refusal: 'RESPONSE_RESULT_INVALID' });
    expect(JSON.parse(verdict.text)).toEqual({ type: 'runtime.response', requestId: frame.requestId, workspaceId, error: wireError('COMPANION_ERROR') });
  });

  it('refuses a result whose method is unknown (an encrypted request): it cannot be checked', () => {
    expect(check(response({ result: { accepted: true } }), undefined)).toMatchObject({ ok: false, refusal: 'RESPONSE_RESULT_UNCHECKABLE' });
  });

  it('refuses a 1.2 result a 1.1 session cannot take (operation.result.get)', () => {
    expect(check(response({ result: { result: null } }), 'operation.result.get', '1.2', '1.1')).toMatchObject({ ok: false, refusal: 'RESPONSE_DOWNGRADE_INVALID' });
  });

  it('gives an error the fixed message of its code, and refuses a code that is not a token', () => {
    const protocol = check(response({ error: { code: 'INVALID_PARAMS', message: '/home/me/secret', retryable: true } }), 'thread.list');
    expect(JSON.parse(protocol.text).error).toEqual(wireError('INVALID_PARAMS'));
    const runtime = check(response({ error: { code: 'JSON_RPC_-32000', message: 'stack trace', retryable: true } }), 'thread.list');
    expect(JSON.parse(runtime.text).error).toEqual({ code: 'JSON_RPC_-32000', message: 'The runtime reported an error.', retryable: true });
    expect(check(response({ error: { code: 'failed at /home/me', message: '', retryable: false } }), 'thread.list')).toMatchObject({
      ok: false,
      refusal: 'RESPONSE_ERROR_CODE_INVALID',
    });
  });
});
