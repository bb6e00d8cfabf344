/** A value a person must copy exactly (a pairing code, a DNS record), shown as code with a labelled copy button. */
import { ActionIcon, Code, CopyButton, Group, Text, Tooltip } from '@mantine/core';

export function CopyValue({ label, value, testId, block = false, large = false }: { label: string; value: string; testId?: string; block?: boolean; large?: boolean }) {
  return (
    <div>
      <Text size="sm" fw={500}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code block={block} data-testid={testId} fz={large ? 'xl' : undefined} fw={large ? 700 : undefined} p={large ? 'xs' : undefined} style={{ wordBreak: 'break-all', flex: 1, letterSpacing: large ? '0.08em' : undefined }}>
          {value}
        </Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? 'Copied' : 'Copy'} withArrow>
              <ActionIcon variant="light" onClick={copy} aria-label={`Copy ${label}`} color={copied ? 'teal' : 'blue'}>
                {copied ? <CheckIcon /> : <CopyIcon />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      </Group>
    </div>
  );
}

const iconProps = { width: 16, height: 16, viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', strokeWidth: 2, strokeLinecap: 'round', strokeLinejoin: 'round', 'aria-hidden': true } as const;

function CopyIcon() {
  return (
    <svg {...iconProps}>
      <rect x="8" y="8" width="12" height="12" rx="2" />
      <path d="M16 8V6a2 2 0 0 0-2-2H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h2" />
    </svg>
  );
}

function CheckIcon() {
  return (
    <svg {...iconProps}>
      <path d="M5 12l5 5L20 7" />
    </svg>
  );
}
