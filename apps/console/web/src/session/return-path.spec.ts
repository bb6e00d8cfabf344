import { safeReturnPath } from './return-path';

describe('safeReturnPath', () => {
  it('goes back to a page of the console', () => {
    expect(safeReturnPath('/shield/cases/7d9e2c1a-3b4f-4a5e-8c6d-9e0f1a2b3c4d?tab=x')).toBe('/shield/cases/7d9e2c1a-3b4f-4a5e-8c6d-9e0f1a2b3c4d?tab=x');
  });

  it.each([null, '', 'https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '/sign-in?next=/x'])('refuses %p and goes to the workspaces', (next) => {
    expect(safeReturnPath(next)).toBe('/workspaces');
  });
});
