/**
 * An API failure as a person reads it: the API's own message (which says what to do), its stable code for a
 * support request, and a retry where trying again can help.
 */
import { Alert, Button, Group, Text } from '@mantine/core';

import type { ApiError } from '../api/api-client';

export function ErrorAlert({ error, title, onRetry }: { error: ApiError; title?: string; onRetry?: () => void }) {
  return (
    <Alert color="red" variant="light" title={title ?? 'That did not work'} role="alert" data-testid="error-alert" data-code={error.code}>
      <Text size="sm">{error.message}</Text>
      {error.retryAfterSeconds !== undefined && (
        <Text size="sm" mt={4}>
          Try again in {error.retryAfterSeconds} s.
        </Text>
      )}
      <Group mt="xs" gap="sm" justify="space-between">
        <Text size="xs" c="dimmed">
          Code {error.code}
          {error.upstreamCode ? ` (${error.upstreamCode})` : ''}
        </Text>
        {onRetry && (
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            Try again
          </Button>
        )}
      </Group>
    </Alert>
  );
}
