import { readChangesQuery, readSearchQuery } from './search.parameters';

describe('search and sync parameters', () => {
  it('reads repeatable filters, normalising case and the protocol and kind aliases', () => {
    expect(readSearchQuery('q=%20invoices%20&tag=Finance&tag=audit&tag=finance&protocol=application/mcp-server%2Bjson&kind=mcp&publisherDomain=ACME.example&status=yanked&verified=true&limit=5')).toEqual({
      q: 'invoices',
      kinds: ['mcp-server', 'mcp-server-card'],
      protocols: ['mcp'],
      tags: ['audit', 'finance'],
      publisherDomains: ['acme.example'],
      statuses: ['yanked'],
      verified: [true],
      limit: 5,
      cursor: null,
    });
    expect(readSearchQuery('')).toMatchObject({ q: null, limit: 20, statuses: [], verified: [] });
  });

  it('refuses unknown, repeated, oversized and out-of-range parameters with the parameter named', () => {
    expect(readSearchQuery('page=2')).toMatchObject({ code: 'PARAMETER_UNKNOWN' });
    expect(readSearchQuery('q=a&q=b')).toMatchObject({ code: 'PARAMETER_REPEATED', path: '/q' });
    expect(readSearchQuery('limit=101')).toMatchObject({ code: 'LIMIT_INVALID', path: '/limit' });
    expect(readSearchQuery('limit=-1')).toMatchObject({ code: 'LIMIT_INVALID' });
    expect(readSearchQuery(`q=${'a'.repeat(300)}`)).toMatchObject({ code: 'QUERY_TOO_LONG', path: '/q' });
    expect(readSearchQuery(`x=${'a'.repeat(9000)}`)).toMatchObject({ code: 'QUERY_STRING_TOO_LONG' });
  });

  it('makes updatedSince imply includeDeleted, and refuses date-only times and contradictions', () => {
    expect(readChangesQuery('updatedSince=2026-03-01T00:00:00%2B01:00')).toEqual({ updatedSince: Date.parse('2026-02-28T23:00:00Z'), includeDeleted: true, limit: 20, cursor: null });
    expect(readChangesQuery('')).toEqual({ updatedSince: null, includeDeleted: false, limit: 20, cursor: null });
    expect(readChangesQuery('updatedSince=2026-03-01')).toMatchObject({ code: 'PARAMETER_INVALID', path: '/updatedSince' });
    expect(readChangesQuery('updatedSince=2026-03-01T00:00:00Z&includeDeleted=false')).toMatchObject({ code: 'PARAMETER_CONFLICT' });
  });
});
