/**
 * The frame around every signed-in page: a header with the account and sign-out, the navigation, and the
 * page. Pages load lazily, so each waits behind a labelled loader; nothing here animates (clicks land at once).
 */
import { AppShell, Burger, Button, Center, Group, Loader, NavLink, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense } from 'react';
import { Link, Navigate, Outlet, useLocation } from 'react-router';

import { useSession } from '../session/session-context';
import { ErrorAlert } from '../ui/error-alert';

const SECTIONS = [
  { to: '/workspaces', label: 'Workspaces', hint: 'Relay: pair, watch, answer' },
  { to: '/shield', label: 'Shield', hint: 'Cases and analyses' },
  { to: '/registry', label: 'Registry', hint: 'Search cards' },
  { to: '/registry/publish', label: 'Publish a card', hint: 'AI Card form' },
  { to: '/registry/namespaces', label: 'Namespaces', hint: 'Ownership proofs' },
  { to: '/platform', label: 'Platform', hint: 'Health and metrics' },
];

export function PageLoader() {
  return (
    <Center py="xl" role="status" aria-label="Loading the page">
      <Loader />
    </Center>
  );
}

function isActive(pathname: string, to: string): boolean {
  if (to === '/registry') return pathname === '/registry' || pathname.startsWith('/registry/cards');
  return pathname === to || pathname.startsWith(`${to}/`);
}

export function ConsoleShell() {
  const { session, signOut, recheck } = useSession();
  const location = useLocation();
  const [opened, { toggle, close }] = useDisclosure(false);

  if (session.phase === 'checking') return <PageLoader />;
  if (session.phase === 'signed-out') return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  if (session.phase === 'unavailable') {
    return (
      <Center mih="100vh" p="md">
        <Stack maw={480} component="main">
          <Title order={1} size="h2">
            Trustmesh console
          </Title>
          <ErrorAlert error={session.error} title="The console server is not answering" onRetry={recheck} />
        </Stack>
      </Center>
    );
  }

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={opened ? 'Close navigation' : 'Open navigation'} />
            <Text fw={700} component={Link} to="/workspaces" c="inherit" td="none">
              Trustmesh console
            </Text>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" c="dimmed" data-testid="signed-in-as">
              {session.account.username}
            </Text>
            <Button size="xs" variant="default" onClick={() => void signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Console sections">
        {SECTIONS.map((section) => (
          <NavLink
            key={section.to}
            component={Link}
            to={section.to}
            label={section.label}
            description={section.hint}
            active={isActive(location.pathname, section.to)}
            onClick={close}
            aria-current={isActive(location.pathname, section.to) ? 'page' : undefined}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense fallback={<PageLoader />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
