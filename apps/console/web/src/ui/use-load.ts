/**
 * Loads one thing from the API for a page: the data, the error (an `ApiError` with a message for a person),
 * whether a load is running, and `reload`. A newer load or an unmount aborts the older one, so a slow answer
 * never overwrites a newer one.
 */
import { useCallback, useEffect, useRef, useState, type DependencyList } from 'react';

import { ApiError } from '../api/api-client';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: DependencyList): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: ApiError | undefined; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ ...previous, loading: true, error: undefined }));
    loadRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState((previous) => ({ data: previous.data, error: asApiError(error), loading: false }));
      },
    );
    return () => controller.abort();
  }, [...deps, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}

export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, 'CONSOLE_PAGE_ERROR', 'Something went wrong in this page. Reload it and try again.');
}
