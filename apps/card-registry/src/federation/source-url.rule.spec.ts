import { checkSourceUrl, MAX_SOURCE_URL_LENGTH } from './source-url.rule';

describe('checkSourceUrl', () => {
  it('keeps an https host or catalog URL in the parser form, so the same source is found again', () => {
    expect(checkSourceUrl('https://ACME.example:443')).toEqual({ ok: true, url: 'https://acme.example/' });
    expect(checkSourceUrl('https://acme.example:8443/catalogs/main.json?v=1')).toEqual({ ok: true, url: 'https://acme.example:8443/catalogs/main.json?v=1' });
  });

  it.each([
    ['', 'SOURCE_URL_TOO_LONG'],
    [`https://acme.example/${'a'.repeat(MAX_SOURCE_URL_LENGTH)}`, 'SOURCE_URL_TOO_LONG'],
    ['acme.example', 'SOURCE_URL_INVALID'],
    ['http://acme.example/', 'SOURCE_URL_NOT_HTTPS'],
    ['file:///etc/passwd', 'SOURCE_URL_NOT_HTTPS'],
    ['https://ops:secret@acme.example/', 'SOURCE_URL_CREDENTIALS'],
    ['https://acme.example/#catalog', 'SOURCE_URL_FRAGMENT'],
    ['https://127.0.0.1/', 'SOURCE_ADDRESS_REFUSED'],
    ['https://0x7f.1/', 'SOURCE_ADDRESS_REFUSED'],
    ['https://10.1.2.3:8443/', 'SOURCE_ADDRESS_REFUSED'],
    ['https://169.254.169.254/latest/meta-data', 'SOURCE_ADDRESS_REFUSED'],
    ['https://[::ffff:192.168.0.1]/', 'SOURCE_ADDRESS_REFUSED'],
  ])('refuses %j with %s', (url, code) => {
    const verdict = checkSourceUrl(url);
    expect(verdict).toMatchObject({ ok: false, code });
    expect(verdict.ok ? '' : verdict.message).not.toContain('secret');
  });

  it('accepts a public IP literal (its address is checked again at every fetch)', () => {
    expect(checkSourceUrl('https://93.184.215.14/')).toEqual({ ok: true, url: 'https://93.184.215.14/' });
  });
});
