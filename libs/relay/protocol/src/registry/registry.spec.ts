import { BROWSER_LOCAL_ERRORS, runtimeError, sessionErrorRetryable, wireError, wireErrorRetryability } from './error-registry';
import { isMutation, methodDisposition, requestMethods } from './method-registry';

describe('method registry (§2, §4)', () => {
  it('has the method set of each version', () => {
    expect(requestMethods('1.0')).toHaveLength(14);
    expect(requestMethods('1.1')).toHaveLength(13);
    expect(requestMethods('1.2')).toHaveLength(14);
  });

  it('gives each method its disposition, and null where a version does not recognise it', () => {
    expect(methodDisposition('1.2', 'operation.result.get')).toBe('query');
    expect(methodDisposition('1.1', 'operation.result.get')).toBeNull();
    expect(methodDisposition('1.0', 'approval.candidate')).toBe('mutation');
    expect(methodDisposition('1.1', 'approval.respond')).toBeNull();
    expect(methodDisposition('1.2', 'initialize')).toBe('local-only');
    expect(methodDisposition('1.2', 'toString')).toBeNull();
    expect(isMutation('1.1', 'interaction.candidate')).toBe(true);
    expect(isMutation('1.1', 'thread.snapshot')).toBe(false);
  });
});

describe('error registry (§10)', () => {
  it('marks every protocol code non-retryable and knows REMOTE_REQUEST_DENIED from 1.1 on', () => {
    expect(wireErrorRetryability('1.2', 'COMPANION_ERROR')).toBe(false);
    expect(wireErrorRetryability('1.1', 'REMOTE_REQUEST_DENIED')).toBe(false);
    expect(wireErrorRetryability('1.0', 'REMOTE_REQUEST_DENIED')).toBeUndefined();
    expect(wireErrorRetryability('1.2', 'SOMETHING_ELSE')).toBeUndefined();
  });

  it('builds errors with fixed messages, so local text never crosses', () => {
    expect(wireError('INVALID_PARAMS')).toEqual({ code: 'INVALID_PARAMS', message: 'The request parameters are invalid.', retryable: false });
    expect(runtimeError(-32601)).toEqual({ code: 'JSON_RPC_-32601', message: 'The runtime reported an error.', retryable: false });
    expect(runtimeError('RATE_LIMIT', true).retryable).toBe(true);
  });

  it('suggests session.error retryability per the policy table', () => {
    expect(sessionErrorRetryable('CONTROLLER_CONFLICT')).toBe(false);
    expect(sessionErrorRetryable('RATE_LIMITED')).toBe(true);
    expect(sessionErrorRetryable('RELAY_PROTOCOL_VERSION_UNSUPPORTED')).toBe(false);
    expect(sessionErrorRetryable('RELAY_PROTOCOL_VERSION_UNSUPPORTED', true)).toBe(true);
    expect(BROWSER_LOCAL_ERRORS.OUTCOME_UNKNOWN).toBe(false);
    expect(BROWSER_LOCAL_ERRORS.TRANSPORT_ERROR).toBe(true);
  });
});
