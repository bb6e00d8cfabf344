/** The issues of a refused request that no form field owns, listed above the form with their JSON pointers. */
import { Alert, List, Text } from '@mantine/core';

import type { ApiIssue } from '../api/api-client';

export function UnmappedIssues({ issues }: { issues: readonly ApiIssue[] }) {
  if (issues.length === 0) return null;
  return (
    <Alert color="red" variant="light" title="Also fix these" data-testid="unmapped-issues">
      <List size="sm" spacing={2}>
        {issues.map((issue, index) => (
          <List.Item key={`${issue.path}-${issue.code}-${index}`} data-testid="unmapped-issue" data-path={issue.path}>
            <Text span size="sm" ff="monospace">
              {issue.path || '(document)'}
            </Text>{' '}
            {issue.message}{' '}
            <Text span size="xs" c="dimmed">
              ({issue.code})
            </Text>
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
