import { DEVELOPMENT_OPERATOR_ACCOUNT, parseOperatorCredentials, withDevelopmentOperator } from './operator-credentials';
import { sha256 } from './secrets';

const DIGEST = 'ab'.repeat(32);

describe('operator credentials', () => {
  it('reads account:sha256hex pairs separated by commas or white space', () => {
    const parsed = parseOperatorCredentials(`ops:${DIGEST}, audit.team:${DIGEST.toUpperCase()}\nci-1:${DIGEST}`);
    expect(parsed.ok && parsed.credentials.map((credential) => [credential.accountId, credential.digest.toString('hex')])).toEqual([
      ['ops', DIGEST],
      ['audit.team', DIGEST],
      ['ci-1', DIGEST],
    ]);
  });

  it('refuses bad entries by their count, never echoing one, and a value with no pair', () => {
    const parsed = parseOperatorCredentials(`ops:${DIGEST},plaintext-secret,:${DIGEST},bad account:${DIGEST}`);
    expect(parsed).toEqual({ ok: false, problem: expect.stringContaining('(3 entries are not)') });
    expect(JSON.stringify(parsed)).not.toContain('plaintext-secret');
    expect(parseOperatorCredentials(`ops:${DIGEST.slice(1)}`)).toEqual({ ok: false, problem: expect.stringContaining('(1 entry is not)') });
    expect(parseOperatorCredentials(' , ')).toEqual({ ok: false, problem: 'is set but holds no account:sha256hex pair' });
  });

  it('keeps configured operators, and with none mints one development credential whose digest it keeps', () => {
    const configured = [{ accountId: 'ops', digest: Buffer.from(DIGEST, 'hex') }];
    expect(withDevelopmentOperator(configured)).toEqual({ operators: configured, developmentCredential: null });
    const development = withDevelopmentOperator([]);
    expect(development.developmentCredential).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(development.operators).toEqual([{ accountId: DEVELOPMENT_OPERATOR_ACCOUNT, digest: sha256(development.developmentCredential ?? '') }]);
    expect(withDevelopmentOperator([]).developmentCredential).not.toBe(development.developmentCredential);
  });
});
