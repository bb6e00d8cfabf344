/**
 * `/sign-in`: username and password. A wrong pair and an unknown user read the same (the API answers both
 * alike); a rate limit says how long to wait and keeps the button off until then. After sign-in the person
 * goes back to the page that sent them here.
 */
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { useEffect, useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';

import type { ApiError } from '../api/api-client';
import { ErrorAlert } from '../ui/error-alert';
import { asApiError } from '../ui/use-load';
import { safeReturnPath, useSession } from './session-context';

const MAX_USERNAME = 64;
const MAX_PASSWORD = 1024;

export default function SignInPage() {
  useDocumentTitle('Sign in · Trustmesh console');
  const { session, signIn } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const next = safeReturnPath(params.get('next'));
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [waitUntil, setWaitUntil] = useState(0);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (waitUntil <= Date.now()) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [waitUntil]);

  if (session.phase === 'signed-in') return <Navigate to={next} replace />;

  const secondsLeft = Math.max(0, Math.ceil((waitUntil - now) / 1000));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(username.trim(), password);
      void navigate(next, { replace: true });
    } catch (failure) {
      const apiError = asApiError(failure);
      setError(apiError);
      setPassword('');
      if (apiError.status === 429) {
        setNow(Date.now());
        setWaitUntil(Date.now() + (apiError.retryAfterSeconds ?? 30) * 1000);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={400} component="main">
        <form onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title" data-testid="sign-in-form">
          <Stack>
            <div>
              <Title order={1} size="h2" id="sign-in-title">
                Sign in
              </Title>
              <Text size="sm" c="dimmed">
                Trustmesh console. An operator creates accounts with <code>npx trustmesh console account create</code>.
              </Text>
            </div>
            {session.phase === 'unavailable' && !error && <ErrorAlert error={session.error} title="The console server is not answering" />}
            {error && error.status === 401 && (
              <Alert color="red" variant="light" role="alert" title="Not signed in" data-testid="error-alert" data-code={error.code}>
                {error.message}
              </Alert>
            )}
            {error && error.status === 429 && (
              <Alert color="orange" variant="light" role="alert" title="Too many attempts" data-testid="error-alert" data-code={error.code}>
                {error.message}
                {secondsLeft > 0 ? ` You can try again in ${secondsLeft} s.` : ' You can try again now.'}
              </Alert>
            )}
            {error && error.status !== 401 && error.status !== 429 && <ErrorAlert error={error} />}
            <TextInput
              label="Username"
              name="username"
              autoComplete="username"
              required
              maxLength={MAX_USERNAME}
              value={username}
              onChange={(event) => setUsername(event.currentTarget.value)}
              data-autofocus
              data-testid="sign-in-username"
            />
            <PasswordInput
              label="Password"
              name="password"
              autoComplete="current-password"
              required
              maxLength={MAX_PASSWORD}
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
              data-testid="sign-in-password"
            />
            <Button type="submit" loading={busy} disabled={secondsLeft > 0 || username.trim() === '' || password === ''}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
