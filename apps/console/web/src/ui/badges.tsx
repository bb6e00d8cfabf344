/** One colour per meaning across the console: risk, status, health, connection. */
import { Badge, type BadgeProps } from '@mantine/core';

import { words } from './format';

const RISK: Record<string, string> = { low: 'teal', medium: 'yellow', high: 'orange', critical: 'red' };
const STATUS: Record<string, string> = {
  open: 'blue',
  awaiting_input: 'yellow',
  ready: 'teal',
  closed: 'gray',
  online: 'teal',
  offline: 'gray',
  active: 'teal',
  deprecated: 'yellow',
  yanked: 'orange',
  deleted: 'red',
  verified: 'teal',
  pending: 'yellow',
  failed: 'red',
  valid: 'teal',
  invalid: 'red',
  unsigned: 'gray',
  unverifiable: 'orange',
  granted: 'blue',
  unclaimed: 'gray',
  supported: 'blue',
  unverified: 'yellow',
  contradicted: 'red',
  not_checkable: 'gray',
  proceed: 'teal',
  proceed_with_caution: 'lime',
  gather_evidence: 'yellow',
  modify_plan: 'orange',
  seek_approval: 'violet',
  do_not_proceed: 'red',
};

export function RiskBadge({ tier, ...props }: { tier: string } & BadgeProps) {
  return (
    <Badge color={RISK[tier] ?? 'gray'} variant="light" {...props}>
      {tier} risk
    </Badge>
  );
}

export function StatusBadge({ status, ...props }: { status: string } & BadgeProps) {
  return (
    <Badge color={STATUS[status] ?? 'gray'} variant="light" {...props}>
      {words(status)}
    </Badge>
  );
}
