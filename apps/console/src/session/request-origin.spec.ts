import { originAllowed } from './request-origin';

describe('the Origin rule', () => {
  const origin = 'https://console.example';

  it('refuses a state-changing request from another origin, sign-in included', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(originAllowed(method, 'https://evil.example', origin)).toBe(false);
      expect(originAllowed(method, 'null', origin)).toBe(false);
      expect(originAllowed(method, 'https://console.example:443x', origin)).toBe(false);
      expect(originAllowed(method, 'http://console.example', origin)).toBe(false);
      expect(originAllowed(method, origin, origin)).toBe(true);
    }
  });

  it('lets reads through, and requests without an Origin (non-browser clients; SameSite and CSRF cover browsers)', () => {
    expect(originAllowed('GET', 'https://evil.example', origin)).toBe(true);
    expect(originAllowed('POST', undefined, origin)).toBe(true);
  });
});
