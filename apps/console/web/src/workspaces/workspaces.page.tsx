/** `/workspaces`: the account's relay workspaces with their Companion's status, and creating one. */
import { Anchor, Badge, Button, Group, Paper, Table, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';

import { api, type ApiError } from '../api/api-client';
import type { Page, Workspace } from '../api/console-types';
import { StatusBadge } from '../ui/badges';
import { CursorPager, useCursorPages } from '../ui/cursor-pages';
import { ErrorAlert } from '../ui/error-alert';
import { formatTime } from '../ui/format';
import { LoadingBlock } from '../ui/loading-block';
import { PageHeader } from '../ui/page-header';
import { asApiError, useLoad } from '../ui/use-load';

const MAX_NAME = 100;

export default function WorkspacesPage() {
  const pages = useCursorPages();
  const { data, error, loading, reload } = useLoad(
    async (signal) => {
      const page = await api.get<Page<Workspace>>('/workspaces', { limit: 25, cursor: pages.cursor }, signal);
      pages.learn(page.nextCursor);
      return page;
    },
    [pages.cursor],
  );
  return (
    <>
      <PageHeader title="Workspaces" />
      <CreateWorkspace />
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <LoadingBlock label="Loading workspaces" />}
      {data && data.items.length === 0 && pages.page === 1 && (
        <Text c="dimmed" mt="md">
          No workspaces yet. Create one above, then pair a Companion with its pairing code.
        </Text>
      )}
      {data && data.items.length > 0 && (
        <Table.ScrollContainer minWidth={640} mt="md">
          <Table striped highlightOnHover aria-label="Workspaces" data-testid="workspace-table" aria-busy={loading}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Companion</Table.Th>
                <Table.Th>Browsers</Table.Th>
                <Table.Th>Encryption</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.items.map((workspace) => (
                <Table.Tr key={workspace.workspaceId} data-testid="workspace-row" data-workspace-id={workspace.workspaceId}>
                  <Table.Td>
                    <Anchor component={Link} to={`/workspaces/${workspace.workspaceId}`}>
                      {workspace.displayName}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={workspace.status.connectivity} />
                  </Table.Td>
                  <Table.Td>{workspace.status.browserSessionCount}</Table.Td>
                  <Table.Td>{workspace.endToEndEncrypted ? <Badge variant="outline">end-to-end</Badge> : <Text size="sm">relay TLS</Text>}</Table.Td>
                  <Table.Td>{formatTime(workspace.createdAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <CursorPager pages={pages} label="Workspace pages" />
    </>
  );
}

function CreateWorkspace() {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api.post<Workspace>('/workspaces', { displayName: name.trim() });
      void navigate(`/workspaces/${created.workspaceId}`);
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={(event) => void submit(event)} aria-label="Create a workspace">
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="New workspace name"
            placeholder="Home laptop"
            required
            maxLength={MAX_NAME}
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            style={{ flex: 1, minWidth: 220 }}
            error={error?.issues.find((issue) => issue.path === '/displayName')?.message}
          />
          <Button type="submit" loading={busy} disabled={!name.trim()}>
            Create workspace
          </Button>
        </Group>
      </form>
      {error && !error.issues.some((issue) => issue.path === '/displayName') && (
        <div style={{ marginTop: 12 }}>
          <ErrorAlert error={error} />
        </div>
      )}
    </Paper>
  );
}
