/** `/shield`: the account's Shield cases, open or closed, newest activity first, a page at a time. */
import { Anchor, Button, Group, SegmentedControl, Table, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';

import { api } from '../api/api-client';
import type { Page, ShieldCase } from '../api/console-types';
import { RiskBadge, StatusBadge } from '../ui/badges';
import { CursorPager, useCursorPages } from '../ui/cursor-pages';
import { ErrorAlert } from '../ui/error-alert';
import { formatTime, words } from '../ui/format';
import { LoadingBlock } from '../ui/loading-block';
import { PageHeader } from '../ui/page-header';
import { useLoad } from '../ui/use-load';

export default function CasesPage() {
  const [params, setParams] = useSearchParams();
  const status = params.get('status') === 'closed' ? 'closed' : 'open';
  const pages = useCursorPages();
  const { data, error, loading, reload } = useLoad(
    async (signal) => {
      const page = await api.get<Page<ShieldCase>>('/shield/cases', { status, limit: 25, cursor: pages.cursor }, signal);
      pages.learn(page.nextCursor);
      return page;
    },
    [status, pages.cursor],
  );
  return (
    <>
      <PageHeader title="Shield cases">
        <Button component={Link} to="/shield/new">
          Open a case
        </Button>
      </PageHeader>
      <Group mb="md">
        <SegmentedControl
          aria-label="Which cases"
          value={status}
          onChange={(value) => {
            pages.reset();
            setParams(value === 'closed' ? { status: 'closed' } : {});
          }}
          data={[
            { value: 'open', label: 'Open' },
            { value: 'closed', label: 'Closed' },
          ]}
        />
      </Group>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <LoadingBlock label="Loading cases" />}
      {data && data.items.length === 0 && (
        <Text c="dimmed">{status === 'open' ? 'No open cases. Open one when an agent needs advice on a request.' : 'No closed cases yet.'}</Text>
      )}
      {data && data.items.length > 0 && (
        <Table.ScrollContainer minWidth={720}>
          <Table striped highlightOnHover aria-label="Shield cases" data-testid="case-table" aria-busy={loading}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Case</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Risk</Table.Th>
                <Table.Th>Latest advice</Table.Th>
                <Table.Th>Counterparty</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.items.map((item) => (
                <Table.Tr key={item.caseId} data-testid="case-row" data-case-id={item.caseId}>
                  <Table.Td>
                    <Anchor component={Link} to={`/shield/cases/${item.caseId}`}>
                      {item.title}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={item.status} />
                  </Table.Td>
                  <Table.Td>
                    <RiskBadge tier={item.riskTier} />
                  </Table.Td>
                  <Table.Td>{item.latestDisposition ? words(item.latestDisposition) : '—'}</Table.Td>
                  <Table.Td>
                    {item.counterparty.type}
                    {item.counterparty.reference ? ` · ${item.counterparty.reference}` : ''}
                  </Table.Td>
                  <Table.Td>{formatTime(item.updatedAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <CursorPager pages={pages} label="Case pages" />
    </>
  );
}
