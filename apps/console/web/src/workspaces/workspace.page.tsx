/**
 * `/workspaces/:workspaceId`: one workspace. The live view (threads, streaming turns, approvals) first, then
 * pairing a Companion (a code shown once with its expiry), its devices with revocation, and the relay's
 * operator audit trail.
 */
import { Anchor, Button, Group, Modal, Paper, Stack, Stepper, Table, Tabs, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';

import { api, segment, type ApiError } from '../api/api-client';
import type { AuditEntry, Device, Page, PairingCode, Revocation, Workspace } from '../api/console-types';
import { StatusBadge } from '../ui/badges';
import { CopyValue } from '../ui/copy-value';
import { CursorPager, useCursorPages } from '../ui/cursor-pages';
import { ErrorAlert } from '../ui/error-alert';
import { FieldIssues } from '../ui/field-issues';
import { formatTime } from '../ui/format';
import { LoadingBlock } from '../ui/loading-block';
import { PageHeader } from '../ui/page-header';
import { asApiError, useLoad } from '../ui/use-load';
import { LiveWorkspacePanel } from './live/live-workspace';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export default function WorkspacePage() {
  const { workspaceId = '' } = useParams();
  const valid = UUID.test(workspaceId);
  const { data: workspace, error, loading, reload } = useLoad(
    (signal) => (valid ? api.get<Workspace>(`/workspaces/${segment(workspaceId)}`, {}, signal) : Promise.resolve(undefined)),
    [workspaceId, valid],
  );
  const [tab, setTab] = useState<string | null>('live');
  const [devicesRefresh, setDevicesRefresh] = useState(0);
  const onPaired = useCallback(() => setDevicesRefresh((value) => value + 1), []);

  if (!valid) {
    return (
      <>
        <PageHeader title="Workspace not found" />
        <Text>
          This address does not name a workspace. Go back to{' '}
          <Anchor component={Link} to="/workspaces">
            your workspaces
          </Anchor>
          .
        </Text>
      </>
    );
  }
  return (
    <>
      <PageHeader title={workspace?.displayName ?? 'Workspace'}>{workspace && <StatusBadge status={workspace.status.connectivity} size="lg" data-testid="workspace-connectivity" />}</PageHeader>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !workspace && <LoadingBlock label="Loading the workspace" />}
      {workspace && (
        <Tabs value={tab} onChange={setTab}>
          <Tabs.List mb="md">
            <Tabs.Tab value="live">Live</Tabs.Tab>
            <Tabs.Tab value="devices">Pairing and devices</Tabs.Tab>
            <Tabs.Tab value="audit">Audit trail</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="live">
            <LiveWorkspacePanel workspace={workspace} />
          </Tabs.Panel>
          <Tabs.Panel value="devices">
            <Stack>
              <Pairing workspaceId={workspaceId} onPaired={onPaired} />
              <Devices workspaceId={workspaceId} refresh={devicesRefresh} />
            </Stack>
          </Tabs.Panel>
          <Tabs.Panel value="audit">
            <Audit workspaceId={workspaceId} />
          </Tabs.Panel>
        </Tabs>
      )}
    </>
  );
}

const PAIRING_POLL_MS = 3_000;

/**
 * Pairing, as three steps: create a code, enter it in the Companion, paired. While a code is live the devices
 * are polled, so the person sees the pairing complete here (a device that was not there when the code was made).
 */
function Pairing({ workspaceId, onPaired }: { workspaceId: string; onPaired: () => void }) {
  const [code, setCode] = useState<PairingCode | null>(null);
  const [known, setKnown] = useState<ReadonlySet<string>>(new Set());
  const [paired, setPaired] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const left = code ? Math.max(0, Math.floor((Date.parse(code.expiresAt) - now) / 1000)) : 0;
  const expired = code !== null && left === 0;
  const waiting = code !== null && !expired && paired === null;

  useEffect(() => {
    if (!code) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [code]);

  useEffect(() => {
    if (!waiting) return undefined;
    const controller = new AbortController();
    const timer = setInterval(() => {
      api.get<Page<Device>>(`/workspaces/${segment(workspaceId)}/devices`, { limit: 100 }, controller.signal).then(
        (page) => {
          const added = page.items.find((device) => !known.has(device.deviceId));
          if (added) {
            setPaired(added.deviceId);
            onPaired();
          }
        },
        () => undefined, // a missed poll is retried at the next tick; the devices table shows its own errors
      );
    }, PAIRING_POLL_MS);
    return () => {
      controller.abort();
      clearInterval(timer);
    };
  }, [waiting, workspaceId, known, onPaired]);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      const before = await api.get<Page<Device>>(`/workspaces/${segment(workspaceId)}/devices`, { limit: 100 });
      setKnown(new Set(before.items.map((device) => device.deviceId)));
      setPaired(null);
      setCode(await api.post<PairingCode>(`/workspaces/${segment(workspaceId)}/pairing-codes`));
      setNow(Date.now());
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  const step = paired ? 3 : waiting ? 1 : 0;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="pairing-title">
      <Title order={2} size="h4" id="pairing-title" mb="xs">
        Pair a Companion
      </Title>
      <Stepper active={step} size="sm" mb="md" allowNextStepsSelect={false} data-testid="pairing-steps" data-step={step}>
        <Stepper.Step label="Create a code" description="Shown here once" allowStepSelect={false} />
        <Stepper.Step label="Enter it in the Companion" description="Or the companion simulator" allowStepSelect={false} loading={waiting} />
        <Stepper.Step label="Paired" description="The device appears below" allowStepSelect={false} />
      </Stepper>
      {error && <ErrorAlert error={error} />}
      {waiting && (
        <Stack gap="xs" mb="sm" data-testid="pairing-code-panel">
          <CopyValue label="Pairing code" value={code.pairingCode} testId="pairing-code" large />
          <Text size="sm" data-testid="pairing-expiry">
            Expires in {Math.floor(left / 60)}:{String(left % 60).padStart(2, '0')}. Waiting for the Companion…
          </Text>
        </Stack>
      )}
      {paired && (
        <Text size="sm" c="teal" mb="sm" role="status" data-testid="pairing-done">
          Paired: device <code>{paired.slice(0, 8)}…</code> enrolled. Open the Live tab to use it.
        </Text>
      )}
      {expired && !paired && (
        <Text size="sm" c="orange" mb="sm" role="status" data-testid="pairing-expired">
          The code expired unused. Create a new one.
        </Text>
      )}
      <Button onClick={() => void create()} loading={busy} variant={waiting ? 'default' : 'filled'}>
        {code ? 'Create a new pairing code' : 'Create a pairing code'}
      </Button>
    </Paper>
  );
}

function Devices({ workspaceId, refresh }: { workspaceId: string; refresh: number }) {
  const pages = useCursorPages();
  const { data, error, loading, reload } = useLoad(
    async (signal) => {
      const page = await api.get<Page<Device>>(`/workspaces/${segment(workspaceId)}/devices`, { limit: 25, cursor: pages.cursor }, signal);
      pages.learn(page.nextCursor);
      return page;
    },
    [workspaceId, pages.cursor, refresh],
  );
  const [revoking, setRevoking] = useState<Device | null>(null);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="devices-title">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="devices-title">
          Devices
        </Title>
        <Button size="xs" variant="subtle" onClick={reload} loading={loading}>
          Refresh
        </Button>
      </Group>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <LoadingBlock rows={2} label="Loading devices" />}
      {data && data.items.length === 0 && (
        <Text size="sm" c="dimmed">
          No device is enrolled yet.
        </Text>
      )}
      {data && data.items.length > 0 && (
        <Table.ScrollContainer minWidth={600}>
          <Table aria-label="Devices" data-testid="device-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Device</Table.Th>
                <Table.Th>Connection</Table.Th>
                <Table.Th>Wire</Table.Th>
                <Table.Th>Enrolled</Table.Th>
                <Table.Th>Last connected</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.items.map((device) => (
                <Table.Tr key={device.deviceId} data-testid="device-row" data-device-id={device.deviceId}>
                  <Table.Td>
                    <code>{device.deviceId.slice(0, 8)}…</code>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={device.connected ? 'online' : 'offline'} />
                  </Table.Td>
                  <Table.Td>{device.wireVersion ?? '—'}</Table.Td>
                  <Table.Td>{formatTime(device.enrolledAt)}</Table.Td>
                  <Table.Td>{formatTime(device.lastConnectedAt)}</Table.Td>
                  <Table.Td>
                    <Button size="xs" color="red" variant="light" onClick={() => setRevoking(device)} aria-label={`Revoke device ${device.deviceId.slice(0, 8)}`}>
                      Revoke
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <CursorPager pages={pages} label="Device pages" />
      <RevokeModal
        workspaceId={workspaceId}
        device={revoking}
        onClose={() => setRevoking(null)}
        onRevoked={() => {
          setRevoking(null);
          reload();
        }}
      />
    </Paper>
  );
}

function RevokeModal({ workspaceId, device, onClose, onRevoked }: { workspaceId: string; device: Device | null; onClose: () => void; onRevoked: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<Revocation | null>(null);
  useEffect(() => {
    setReason('');
    setError(null);
    setDone(null);
  }, [device]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!device) return;
    setBusy(true);
    setError(null);
    try {
      const body = reason.trim() ? { reason: reason.trim() } : {};
      setDone(await api.post<Revocation>(`/workspaces/${segment(workspaceId)}/devices/${segment(device.deviceId)}/revoke`, body));
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened={device !== null} onClose={done ? onRevoked : onClose} title="Revoke this device?" centered>
      {done ? (
        <Stack>
          <Text data-testid="revoked">
            Revoked at {formatTime(done.revokedAt)}. {done.disconnected ? 'Its connection was closed.' : 'It was not connected.'}
          </Text>
          <Button onClick={onRevoked}>Done</Button>
        </Stack>
      ) : (
        <form onSubmit={(event) => void submit(event)}>
          <Stack>
            <Text size="sm">
              Device <code>{device?.deviceId}</code> will be disconnected and can no longer connect. To use it again, pair it anew.
            </Text>
            <TextInput
              label="Reason (optional, kept in the audit trail)"
              maxLength={500}
              value={reason}
              onChange={(event) => setReason(event.currentTarget.value)}
              error={FieldIssues.of(error).at('/reason')}
              data-autofocus
            />
            {error && <ErrorAlert error={error} />}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Keep the device
              </Button>
              <Button color="red" type="submit" loading={busy}>
                Revoke
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

function Audit({ workspaceId }: { workspaceId: string }) {
  const pages = useCursorPages();
  const { data, error, loading, reload } = useLoad(
    async (signal) => {
      const page = await api.get<Page<AuditEntry>>(`/workspaces/${segment(workspaceId)}/audit`, { limit: 25, cursor: pages.cursor }, signal);
      pages.learn(page.nextCursor);
      return page;
    },
    [workspaceId, pages.cursor],
  );
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="audit-title">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="audit-title">
          Audit trail
        </Title>
        <Button size="xs" variant="subtle" onClick={reload} loading={loading}>
          Refresh
        </Button>
      </Group>
      <Text size="sm" c="dimmed" mb="sm">
        Who did what in this workspace, newest first. It holds no message content.
      </Text>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <LoadingBlock label="Loading the audit trail" />}
      {data && data.items.length === 0 && (
        <Text size="sm" c="dimmed">
          Nothing recorded yet.
        </Text>
      )}
      {data && data.items.length > 0 && (
        <Table.ScrollContainer minWidth={600}>
          <Table aria-label="Audit trail" data-testid="audit-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Action</Table.Th>
                <Table.Th>Actor</Table.Th>
                <Table.Th>Detail</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.items.map((entry, index) => (
                <Table.Tr key={`${entry.at}-${index}`} data-testid="audit-row">
                  <Table.Td>{formatTime(entry.at)}</Table.Td>
                  <Table.Td>{entry.action}</Table.Td>
                  <Table.Td>{entry.actor ?? '—'}</Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                      {typeof entry.detail === 'string' ? entry.detail : JSON.stringify(entry.detail)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <CursorPager pages={pages} label="Audit pages" />
    </Paper>
  );
}
