import { loggedShieldPath } from './console-shield.controller';
import { readListQuery, singleQueryValues } from './list-query';

describe('list and query parameters', () => {
  it('reads single values and refuses a repeated one at its ?name', () => {
    expect(singleQueryValues({ q: 'invoices', limit: '5', other: ['x', 'y'] }, ['q', 'limit', 'cursor'] as const)).toEqual({ ok: true, status: 200, value: { q: 'invoices', limit: '5' } });
    expect(singleQueryValues({ status: ['open', 'closed'] }, ['status'] as const)).toMatchObject({ ok: false, status: 422, error: { code: 'CONSOLE_INVALID_INPUT', issues: [{ code: 'CONSOLE_PARAMETER_REPEATED', path: '?status' }] } });
  });

  it('bounds ?limit to 1-100 (default 25) and takes an opaque cursor of URL-safe characters', () => {
    expect(readListQuery({})).toEqual({ ok: true, status: 200, value: { limit: 25, cursor: null } });
    expect(readListQuery({ limit: '100', cursor: 'abc_-1' })).toEqual({ ok: true, status: 200, value: { limit: 100, cursor: 'abc_-1' } });
    for (const limit of ['0', '101', '1.5', '-1', '']) expect(readListQuery({ limit })).toMatchObject({ ok: false, error: { issues: [{ path: '?limit' }] } });
    expect(readListQuery({ cursor: 'a'.repeat(513) })).toMatchObject({ ok: false, error: { issues: [{ path: '?cursor' }] } });
  });
});

describe('the Shield routes as logged', () => {
  it('logs a counterparty route as its template and every other path as it is', () => {
    expect(loggedShieldPath('/api/v1/shield/counterparties/alice%40example.com')).toBe('/api/v1/shield/counterparties/:reference');
    expect(loggedShieldPath('/api/v1/shield/counterparties/')).toBe('/api/v1/shield/counterparties/:reference');
    expect(loggedShieldPath('/api/v1/shield/counterparties/a/b/c')).toBe('/api/v1/shield/counterparties/:reference');
    expect(loggedShieldPath('/api/v1/shield/cases/0b6b1f7e-4d5c-4b8e-9a51-2f0c1d2e3f40')).toBe('/api/v1/shield/cases/0b6b1f7e-4d5c-4b8e-9a51-2f0c1d2e3f40');
  });
});
