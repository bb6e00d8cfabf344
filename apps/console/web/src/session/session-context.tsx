/**
 * Who is signed in. On start the page asks `GET /session`: an account and the CSRF token (kept in memory by
 * the API client), or 401 and the sign-in page. Any later 401 from any call sends the person to sign-in with
 * the page they were on, so they land back there.
 */
import { createContext, use, useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router';

import { ApiError, apiCall, onSignedOut, setCsrfToken } from '../api/api-client';
import type { Account, SessionAnswer } from '../api/console-types';
import { asApiError } from '../ui/use-load';

export { safeReturnPath } from './return-path';

export type SessionState = { phase: 'checking' } | { phase: 'signed-in'; account: Account } | { phase: 'signed-out' } | { phase: 'unavailable'; error: ApiError };

interface SessionContextValue {
  session: SessionState;
  signIn: (username: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
  recheck: () => void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

export function useSession(): SessionContextValue {
  const value = use(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionState>({ phase: 'checking' });
  const [generation, setGeneration] = useState(0);
  const navigate = useNavigate();
  const location = useLocation();

  useEffect(() => {
    let live = true;
    apiCall<SessionAnswer>('GET', '/session', { quietSignedOut: true }).then(
      (answer) => {
        if (!live) return;
        setCsrfToken(answer.csrfToken);
        setSession({ phase: 'signed-in', account: answer.account });
      },
      (error: unknown) => {
        if (!live) return;
        const failure = asApiError(error);
        setSession(failure.status === 401 ? { phase: 'signed-out' } : { phase: 'unavailable', error: failure });
      },
    );
    return () => {
      live = false;
    };
  }, [generation]);

  const here = `${location.pathname}${location.search}`;
  useEffect(() => {
    onSignedOut(() => {
      setSession({ phase: 'signed-out' });
      if (!location.pathname.startsWith('/sign-in')) void navigate(`/sign-in?next=${encodeURIComponent(here)}`, { replace: true });
    });
    return () => onSignedOut(null);
  }, [navigate, here, location.pathname]);

  const signIn = useCallback(async (username: string, password: string) => {
    const answer = await apiCall<SessionAnswer>('POST', '/session', { body: { username, password }, quietSignedOut: true });
    setCsrfToken(answer.csrfToken);
    setSession({ phase: 'signed-in', account: answer.account });
  }, []);

  const signOut = useCallback(async () => {
    try {
      await apiCall<void>('DELETE', '/session', { quietSignedOut: true });
    } finally {
      setCsrfToken(null);
      setSession({ phase: 'signed-out' });
      void navigate('/sign-in', { replace: true });
    }
  }, [navigate]);

  const recheck = useCallback(() => {
    setSession({ phase: 'checking' });
    setGeneration((value) => value + 1);
  }, []);

  const value = useMemo(() => ({ session, signIn, signOut, recheck }), [session, signIn, signOut, recheck]);
  return <SessionContext value={value}>{children}</SessionContext>;
}
