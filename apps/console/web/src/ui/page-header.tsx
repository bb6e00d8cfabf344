/** Each route's heading, and the document title that follows it (screen readers and tabs name the page). */
import { Group, Title } from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import type { ReactNode } from 'react';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  useDocumentTitle(`${title} · Trustmesh console`);
  return (
    <Group justify="space-between" mb="md" wrap="wrap">
      <Title order={1} size="h2">
        {title}
      </Title>
      {children && <Group gap="sm">{children}</Group>}
    </Group>
  );
}
