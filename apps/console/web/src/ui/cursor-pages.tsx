/**
 * Pagination over opaque cursors (`?cursor=` / `nextCursor`): the page remembers the cursor of each page it
 * has seen, so the pager offers every page so far plus the next one while there is a `nextCursor`.
 */
import { Group, Pagination } from '@mantine/core';
import { useCallback, useState } from 'react';

export interface CursorPages {
  /** The cursor of the page shown (undefined: the first). */
  cursor: string | undefined;
  page: number;
  /** Record the answer's `nextCursor` for the page shown. */
  learn: (nextCursor: string | null) => void;
  total: number;
  goTo: (page: number) => void;
  reset: () => void;
}

export function useCursorPages(): CursorPages {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState(1);
  const [hasNext, setHasNext] = useState(false);

  const learn = useCallback(
    (nextCursor: string | null) => {
      setHasNext(nextCursor !== null);
      if (nextCursor !== null) {
        setCursors((known) => {
          const next = known.slice(0, page);
          next[page] = nextCursor;
          return next;
        });
      }
    },
    [page],
  );
  const reset = useCallback(() => {
    setCursors([undefined]);
    setPage(1);
    setHasNext(false);
  }, []);
  const total = Math.max(page + (hasNext ? 1 : 0), cursors.length - (hasNext ? 0 : 1), 1);
  return { cursor: cursors[page - 1], page, learn, total, goTo: setPage, reset };
}

export function CursorPager({ pages, label }: { pages: CursorPages; label: string }) {
  if (pages.total <= 1) return null;
  return (
    <Group justify="center" mt="md">
      <Pagination
        total={pages.total}
        value={pages.page}
        onChange={pages.goTo}
        aria-label={label}
        getControlProps={(control) => ({ 'aria-label': control === 'previous' ? 'Previous page' : 'Next page' })}
        getItemProps={(page) => ({ 'aria-label': `Page ${page}` })}
      />
    </Group>
  );
}
