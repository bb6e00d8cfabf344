import { decodeCursor, encodeCursor } from './search.cursor';

describe('search cursors', () => {
  const binding = JSON.stringify(['search', null, ['ai-card']]);

  it('gives back the sort key it carries for the same order and query', () => {
    const cursor = encodeCursor('recent', ['2026-03-01T10:00:00.123Z', 'https://acme.example/agents/a'], binding);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(decodeCursor(cursor, 'recent', binding)).toEqual(['2026-03-01T10:00:00.123Z', 'https://acme.example/agents/a']);
    expect(decodeCursor(encodeCursor('relevance', [0.0607927, 'x'], binding), 'relevance', binding)).toEqual([0.0607927, 'x']);
  });

  it('refuses a cursor with any character changed, cut short, of another order or of another query', () => {
    const cursor = encodeCursor('recent', ['2026-03-01T10:00:00.123Z', 'id'], binding);
    for (let index = 0; index < cursor.length; index += 1) {
      if (cursor[index] === '.') continue;
      const changed = `${cursor.slice(0, index)}${cursor[index] === 'A' ? 'B' : 'A'}${cursor.slice(index + 1)}`;
      expect(decodeCursor(changed, 'recent', binding)).toBeNull();
    }
    expect(decodeCursor(cursor.slice(0, -1), 'recent', binding)).toBeNull();
    expect(decodeCursor(cursor, 'relevance', binding)).toBeNull();
    expect(decodeCursor(cursor, 'recent', JSON.stringify(['search', 'q', []]))).toBeNull();
    expect(decodeCursor('', 'recent', binding)).toBeNull();
    expect(decodeCursor('not a cursor', 'recent', binding)).toBeNull();
  });
});
