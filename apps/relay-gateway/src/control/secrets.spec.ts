import { looksLike, mintSecret } from './secrets';

describe('secrets', () => {
  it('mints 256-bit secrets with a prefix per kind, recognised only as their own kind', () => {
    const code = mintSecret('pairingCode');
    const credential = mintSecret('deviceCredential');
    expect(code).toMatch(/^tmpc_[A-Za-z0-9_-]{43}$/);
    expect(credential).toMatch(/^tmdc_[A-Za-z0-9_-]{43}$/);
    expect(looksLike('pairingCode', code)).toBe(true);
    expect(looksLike('deviceCredential', code)).toBe(false);
    expect(looksLike('deviceCredential', `${credential}x`)).toBe(false);
    expect(new Set(Array.from({ length: 100 }, () => mintSecret('browserTicket'))).size).toBe(100);
  });
});
