/**
 * `/registry/namespaces`: the domains this account publishes under. Claiming one gives the exact DNS TXT
 * record or HTTPS file to create (with copy buttons); "check now" asks the registry to look for it.
 */
import { Button, Group, Paper, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';

import { api, segment, type ApiError } from '../api/api-client';
import type { ClaimCheck, NamespaceClaim, Page } from '../api/console-types';
import { StatusBadge } from '../ui/badges';
import { CopyValue } from '../ui/copy-value';
import { CursorPager, useCursorPages } from '../ui/cursor-pages';
import { ErrorAlert } from '../ui/error-alert';
import { FieldIssues } from '../ui/field-issues';
import { LoadingBlock } from '../ui/loading-block';
import { PageHeader } from '../ui/page-header';
import { asApiError, useLoad } from '../ui/use-load';

const MAX_DOMAIN = 253;

export default function NamespacesPage() {
  const pages = useCursorPages();
  const { data, error, loading, reload } = useLoad(
    async (signal) => {
      const page = await api.get<Page<NamespaceClaim>>('/registry/namespaces', { limit: 25, cursor: pages.cursor }, signal);
      pages.learn(page.nextCursor);
      return page;
    },
    [pages.cursor],
  );
  return (
    <>
      <PageHeader title="Namespaces" />
      <Stack>
        <ClaimForm onClaimed={reload} />
        {error && <ErrorAlert error={error} onRetry={reload} />}
        {loading && !data && <LoadingBlock label="Loading namespaces" />}
        {data && data.items.length === 0 && <Text c="dimmed">No namespace yet. Claim a domain you control to publish cards under it.</Text>}
        {data?.items.map((claim) => (
          <ClaimCard key={`${claim.namespace}-${claim.method}`} claim={claim} onChecked={reload} />
        ))}
        <CursorPager pages={pages} label="Namespace pages" />
      </Stack>
    </>
  );
}

function ClaimForm({ onClaimed }: { onClaimed: () => void }) {
  const [namespace, setNamespace] = useState('');
  const [method, setMethod] = useState<'dns' | 'well-known'>('dns');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post(`/registry/namespaces/${segment(namespace.trim().toLowerCase())}/claims`, { method });
      setNamespace('');
      onClaimed();
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  const issues = FieldIssues.of(error);
  const methodIssue = issues.at('/method');
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="claim-title">
      <Title order={2} size="h4" id="claim-title" mb="xs">
        Claim a namespace
      </Title>
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <Group align="flex-end" wrap="wrap">
            <TextInput label="Domain" placeholder="agents.example.com" required maxLength={MAX_DOMAIN} value={namespace} onChange={(event) => setNamespace(event.currentTarget.value)} style={{ flex: 1, minWidth: 220 }} />
            <div>
              <Text size="sm" fw={500} id="claim-method-label">
                Proof
              </Text>
              <SegmentedControl
                aria-labelledby="claim-method-label"
                value={method}
                onChange={(value) => setMethod(value === 'well-known' ? 'well-known' : 'dns')}
                data={[
                  { value: 'dns', label: 'DNS TXT record' },
                  { value: 'well-known', label: 'HTTPS file' },
                ]}
              />
            </div>
            <Button type="submit" loading={busy} disabled={!namespace.trim()}>
              Claim
            </Button>
          </Group>
          {methodIssue && (
            <Text size="sm" c="red">
              {methodIssue}
            </Text>
          )}
          {error && <ErrorAlert error={error} />}
        </Stack>
      </form>
    </Paper>
  );
}

function ClaimCard({ claim, onChecked }: { claim: NamespaceClaim; onChecked: () => void }) {
  const [busy, setBusy] = useState(false);
  const [check, setCheck] = useState<ClaimCheck | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const state = check?.state ?? claim.state;
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await api.post<ClaimCheck>(`/registry/namespaces/${segment(claim.namespace)}/claims/check`);
      setCheck(answer);
      if (answer.state !== claim.state) onChecked();
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  const proof = claim.proof;
  return (
    <Paper withBorder p="md" radius="md" data-testid="namespace-claim" data-namespace={claim.namespace} data-state={state}>
      <Group justify="space-between" mb="sm">
        <Group gap="sm">
          <Text fw={600}>{claim.namespace}</Text>
          <StatusBadge status={state} data-testid="claim-state" />
        </Group>
        <Button size="xs" variant="light" onClick={() => void run()} loading={busy}>
          Check now
        </Button>
      </Group>
      {state !== 'verified' && proof && (
        <Text size="sm" mb="xs">
          {proof.kind === 'dns-txt'
            ? 'Create this TXT record in the domain’s DNS, then check:'
            : proof.kind === 'file'
              ? 'Serve this file over HTTPS at exactly this address (no redirects), then check:'
              : 'Sign this payload with the did:web key, then check:'}
        </Text>
      )}
      {!proof && (
        <Text size="sm" c="dimmed">
          {claim.method === 'granted' ? 'Granted by an operator: there is nothing to create.' : 'There is no proof to create for this namespace.'}
        </Text>
      )}
      {proof?.kind === 'dns-txt' && (
        <Stack gap="xs">
          <CopyValue label="Record name" value={proof.name} testId="proof-name" />
          <CopyValue label="TXT value" value={proof.value} testId="proof-value" />
        </Stack>
      )}
      {proof?.kind === 'file' && (
        <Stack gap="xs">
          <CopyValue label="File URL" value={proof.url} testId="proof-url" />
          <CopyValue label="File body" value={proof.body} testId="proof-body" block />
        </Stack>
      )}
      {proof?.kind === 'did-web' && (
        <Stack gap="xs">
          <CopyValue label="DID" value={proof.did} testId="proof-did" />
          <CopyValue label="Payload to sign" value={proof.payload} testId="proof-payload" block />
        </Stack>
      )}
      {claim.detail && !check && (
        <Text size="sm" mt="xs" c={state === 'failed' ? 'red' : undefined} data-testid="claim-detail">
          {claim.detail}
        </Text>
      )}
      {check && (
        <Text size="sm" mt="xs" c={check.state === 'verified' ? 'teal' : check.state === 'failed' ? 'red' : undefined} data-testid="claim-check" aria-live="polite">
          {check.detail}
        </Text>
      )}
      {error && <ErrorAlert error={error} />}
    </Paper>
  );
}
