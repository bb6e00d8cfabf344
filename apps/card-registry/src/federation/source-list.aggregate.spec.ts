import { decideAdd, decideRemove, emptySourceList, evolveSourceList, MAX_SOURCES, type SourceListState } from './source-list.aggregate';

const NOW = '2026-12-03T08:00:00.000Z';
const add = (state: SourceListState, sourceId: string, url: string) => decideAdd(state, { sourceId, url, intervalSeconds: 3600, by: 'ops', now: NOW });
const fold = (state: SourceListState, decision: ReturnType<typeof add>) => {
  if (decision.ok) for (const event of decision.events) evolveSourceList(state, event);
  return state;
};

describe('source list aggregate', () => {
  it('adds a URL once: adding it again answers the same source and appends nothing', () => {
    const state = emptySourceList();
    const first = add(state, 'a'.repeat(32), 'https://acme.example/');
    expect(first).toMatchObject({ ok: true, events: [{ type: 'SourceAdded', data: { sourceId: 'a'.repeat(32), url: 'https://acme.example/', addedBy: 'ops' } }] });
    fold(state, first);
    const again = add(state, 'b'.repeat(32), 'https://acme.example/');
    expect(again).toMatchObject({ ok: true, events: [], source: { sourceId: 'a'.repeat(32) } });
  });

  it('removes a known source and refuses an unknown one; a removed URL can be added again under a new id', () => {
    const state = fold(emptySourceList(), add(emptySourceList(), 'a'.repeat(32), 'https://acme.example/'));
    fold(state, add(state, 'a'.repeat(32), 'https://acme.example/'));
    const removed = decideRemove(state, { sourceId: 'a'.repeat(32), by: 'ops', now: NOW });
    expect(removed).toMatchObject({ ok: true, events: [{ type: 'SourceRemoved', data: { sourceId: 'a'.repeat(32), url: 'https://acme.example/', removedBy: 'ops' } }] });
    fold(state, removed);
    expect(decideRemove(state, { sourceId: 'a'.repeat(32), by: 'ops', now: NOW })).toMatchObject({ ok: false, refusal: { code: 'SOURCE_NOT_FOUND', kind: 'not_found' } });
    expect(add(state, 'c'.repeat(32), 'https://acme.example/')).toMatchObject({ ok: true, events: [{ type: 'SourceAdded', data: { sourceId: 'c'.repeat(32) } }] });
  });

  it(`refuses a source beyond ${MAX_SOURCES}`, () => {
    const state = emptySourceList();
    for (let index = 0; index < MAX_SOURCES; index += 1) fold(state, add(state, index.toString(16).padStart(32, '0'), `https://s${index}.example/`));
    expect(add(state, 'f'.repeat(32), 'https://one-more.example/')).toMatchObject({ ok: false, refusal: { code: 'SOURCES_LIMIT', kind: 'conflict', path: '/url' } });
  });
});
