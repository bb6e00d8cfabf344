import type { CrawlRecord } from '@trustmesh/cards-federation';

import { batches, observed } from './crawl-records.mapping';
import type { SourceEvent } from './federation.stream';

const record = (identifier: string, text: string): CrawlRecord => ({
  identifier,
  kind: 'ai-card',
  revisionKey: 'updatedAt:2026-02-01T10:00:00Z',
  bytes: new TextEncoder().encode(text),
  digest: 'sha-256:00',
  status: 'deprecated',
  provenance: { sourceUrl: 'https://acme.example/', catalogUrl: 'https://acme.example/.well-known/ai-catalog.json', fetchedAt: '2026-12-03T08:00:00.000Z', digest: 'sha-256:00' },
});

describe('crawl records mapping', () => {
  it('keeps the identifier exactly as the source states it, the exact bytes, the status and the provenance', () => {
    const text = '{ "id" : "HTTPS://Acme.Example/Agents/X/../Y" }\n';
    const event = observed('s1', 'c1', record('HTTPS://Acme.Example/Agents/X/../Y', text));
    expect(event).toMatchObject({ sourceId: 's1', crawlId: 'c1', identifier: 'HTTPS://Acme.Example/Agents/X/../Y', status: 'deprecated', size: Buffer.byteLength(text) });
    expect(Buffer.from(event.content, 'base64').toString('utf8')).toBe(text);
    expect(event.provenance).toEqual({ sourceUrl: 'https://acme.example/', catalogUrl: 'https://acme.example/.well-known/ai-catalog.json', fetchedAt: '2026-12-03T08:00:00.000Z', digest: 'sha-256:00' });
  });

  it('splits a crawl into appends bounded in events and in bytes, keeping the order', () => {
    const gone = (index: number): SourceEvent => ({ type: 'RemoteCardGone', data: { sourceId: 's1', crawlId: 'c1', identifier: `id-${index}`, goneAt: '2026-12-03T08:00:00.000Z' } });
    const many = Array.from({ length: 250 }, (_, index) => gone(index));
    const split = [...batches(many)];
    expect(split.map((batch) => batch.length)).toEqual([100, 100, 50]);
    expect(split.flat()).toEqual(many);

    const big: SourceEvent = { type: 'RemoteCardObserved', data: { ...observed('s1', 'c1', record('a', 'x')), content: 'A'.repeat(5 * 1024 * 1024) } };
    expect([...batches([big, big, gone(1)])].map((batch) => batch.length)).toEqual([1, 2]);
  });
});
