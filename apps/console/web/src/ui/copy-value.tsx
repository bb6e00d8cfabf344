/** A value a person must copy exactly (a pairing code, a DNS record), shown as code with a labelled copy button. */
import { ActionIcon, Code, CopyButton, Group, Text, Tooltip } from '@mantine/core';

export function CopyValue({ label, value, testId, block = false }: { label: string; value: string; testId?: string; block?: boolean }) {
  return (
    <div>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code block={block} data-testid={testId} style={{ wordBreak: 'break-all', flex: 1 }}>
          {value}
        </Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy'} withArrow>
              <ActionIcon variant="light" onClick={copy} aria-label={`Copy ${label}`} color={copied ? 'teal' : 'blue'}>
                <span aria-hidden="true">{copied ? '✓' : '⧉'}</span>
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      </Group>
    </div>
  );
}
