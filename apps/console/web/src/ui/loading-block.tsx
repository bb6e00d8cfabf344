/** What a page shows while its data loads: skeleton rows with a label for screen readers. */
import { Skeleton, Stack, VisuallyHidden } from '@mantine/core';

export function LoadingBlock({ rows = 4, label = 'Loading' }: { rows?: number; label?: string }) {
  return (
    <Stack gap="xs" aria-busy="true" data-testid="loading">
      <VisuallyHidden role="status">{label}…</VisuallyHidden>
      {Array.from({ length: rows }, (_, index) => (
        <Skeleton key={index} height={28} radius="sm" />
      ))}
    </Stack>
  );
}
