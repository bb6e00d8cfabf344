/**
 * An interaction the person answers (BEHAVIOUR.md §8): an approval (approve, or deny with an optional reason)
 * or a form whose fields follow the request's controls. Answers go through the client, which builds the
 * candidate from the pending request and checks form values against the form first; the card then shows the
 * interaction settling (responding → resolved, cancelled or expired) and never offers a settled one again.
 */
import { Alert, Badge, Button, Checkbox, Group, NumberInput, Paper, Radio, Stack, Text, Textarea, TextInput } from '@mantine/core';
import type { Wire12 } from '@trustmesh/relay-protocol';
import { useState, type FormEvent } from 'react';

import type { InteractionView, LiveWorkspace } from './live-workspace.store';

type UserInputRequest = Extract<Wire12.InteractionRequestFrame, { method: 'userInput.request' }>;
type Control = UserInputRequest['projection']['controls'][number];
type Value = string | number | boolean | string[];

const SETTLED: Record<string, { label: string; color: string }> = {
  pending: { label: 'waiting for you', color: 'yellow' },
  'offered-again': { label: 'waiting for you', color: 'yellow' },
  responding: { label: 'sending…', color: 'blue' },
  resolved: { label: 'answered', color: 'teal' },
  cancelled: { label: 'cancelled', color: 'gray' },
  expired: { label: 'expired', color: 'gray' },
};

export function InteractionCard({ view, live }: { view: InteractionView; live: LiveWorkspace }) {
  const { interaction, change } = view;
  const open = (change === 'pending' || change === 'offered-again') && interaction.state === 'pending';
  const busy = change === 'responding' || interaction.state === 'responding';
  const badge = SETTLED[busy ? 'responding' : change] ?? { label: change, color: 'gray' };
  const approval = interaction.request.method === 'approval.request';
  return (
    <Paper
      component="article"
      withBorder
      p="sm"
      radius="md"
      data-testid={approval ? 'approval' : 'form-request'}
      data-interaction-id={interaction.interactionId}
      data-state={busy ? 'responding' : change}
      aria-label={approval ? 'Approval request' : 'Input request'}
    >
      <Group justify="space-between" mb="xs">
        <Text fw={600} size="sm">
          {approval ? 'Approval needed' : 'Input needed'}
        </Text>
        <Badge color={badge.color} variant="light" data-testid="interaction-state">
          {badge.label}
        </Badge>
      </Group>
      {view.error && (
        <Alert color="red" variant="light" mb="xs" role="alert">
          {view.error}
        </Alert>
      )}
      {interaction.request.method === 'approval.request' ? (
        <ApprovalBody projection={interaction.request.projection} open={open} busy={busy} live={live} interactionId={interaction.interactionId} />
      ) : (
        <FormBody request={interaction.request} open={open} busy={busy} live={live} interactionId={interaction.interactionId} />
      )}
      {open && (
        <Text size="xs" c="dimmed" mt="xs">
          Answer before {new Date(interaction.expiresAt).toLocaleTimeString()}.
        </Text>
      )}
    </Paper>
  );
}

function ApprovalBody({
  projection,
  open,
  busy,
  live,
  interactionId,
}: {
  projection: { agentName: string; toolName: string; explanation?: string };
  open: boolean;
  busy: boolean;
  live: LiveWorkspace;
  interactionId: string;
}) {
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  return (
    <Stack gap="xs">
      <Text size="sm">
        <b>{projection.agentName}</b> wants to run <b>{projection.toolName}</b>.
      </Text>
      {projection.explanation && (
        <Text size="sm" c="dimmed">
          {projection.explanation}
        </Text>
      )}
      {open && !denying && (
        <Group gap="sm">
          <Button size="xs" color="teal" onClick={() => void live.answer(interactionId, { approve: true })} loading={busy}>
            Approve
          </Button>
          <Button size="xs" color="red" variant="light" onClick={() => setDenying(true)} disabled={busy}>
            Deny…
          </Button>
        </Group>
      )}
      {open && denying && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void live.answer(interactionId, reason.trim() ? { reject: true, reason: reason.trim() } : { reject: true });
          }}
        >
          <Group gap="sm" align="flex-end">
            <TextInput label="Reason (optional)" size="xs" maxLength={500} value={reason} onChange={(event) => setReason(event.currentTarget.value)} style={{ flex: 1 }} data-autofocus />
            <Button size="xs" color="red" type="submit" loading={busy}>
              Deny
            </Button>
            <Button size="xs" variant="default" onClick={() => setDenying(false)}>
              Back
            </Button>
          </Group>
        </form>
      )}
    </Stack>
  );
}

function initialValue(control: Control): Value | undefined {
  switch (control.type) {
    case 'boolean':
      return false;
    case 'choice':
      return control.multiple ? [] : undefined;
    default:
      return undefined;
  }
}

function FormBody({ request, open, busy, live, interactionId }: { request: UserInputRequest; open: boolean; busy: boolean; live: LiveWorkspace; interactionId: string }) {
  const { projection } = request;
  const [values, setValues] = useState<Record<string, Value | undefined>>(() => Object.fromEntries(projection.controls.map((control) => [control.id, initialValue(control)])));
  const set = (id: string, value: Value | undefined) => setValues((current) => ({ ...current, [id]: value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const answer: Record<string, Value> = {};
    for (const control of projection.controls) {
      const value = values[control.id];
      if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0 && !control.required)) continue;
      answer[control.id] = value;
    }
    void live.answer(interactionId, { submit: answer });
  };

  return (
    <form onSubmit={submit}>
      <Stack gap="xs">
        {projection.title && <Text fw={500}>{projection.title}</Text>}
        {projection.description && (
          <Text size="sm" c="dimmed">
            {projection.description}
          </Text>
        )}
        <fieldset disabled={!open || busy} style={{ border: 0, padding: 0, margin: 0 }}>
          <Stack gap="xs">
            {projection.controls.map((control) => (
              <FormControl key={control.id} control={control} value={values[control.id]} onChange={(value) => set(control.id, value)} />
            ))}
          </Stack>
        </fieldset>
        {open && (
          <Group gap="sm">
            <Button size="xs" type="submit" loading={busy}>
              Submit
            </Button>
            <Button size="xs" variant="default" disabled={busy} onClick={() => void live.answer(interactionId, { cancel: true })}>
              Decline
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

function FormControl({ control, value, onChange }: { control: Control; value: Value | undefined; onChange: (value: Value | undefined) => void }) {
  const common = { label: control.label, description: control.description, required: control.required };
  switch (control.type) {
    case 'text':
      return <TextInput {...common} minLength={control.minLength} maxLength={control.maxLength ?? 10_000} value={typeof value === 'string' ? value : ''} onChange={(event) => onChange(event.currentTarget.value)} />;
    case 'multiline':
      return (
        <Textarea {...common} autosize minRows={2} minLength={control.minLength} maxLength={control.maxLength ?? 10_000} value={typeof value === 'string' ? value : ''} onChange={(event) => onChange(event.currentTarget.value)} />
      );
    case 'number':
      return (
        <NumberInput
          {...common}
          min={control.min}
          max={control.max}
          allowDecimal={!control.integer}
          value={typeof value === 'number' ? value : ''}
          onChange={(next) => onChange(typeof next === 'number' ? next : undefined)}
        />
      );
    case 'boolean':
      return <Checkbox label={control.label} description={control.description} checked={value === true} onChange={(event) => onChange(event.currentTarget.checked)} />;
    case 'choice':
      return control.multiple ? (
        <Checkbox.Group {...common} value={Array.isArray(value) ? value : []} onChange={(next) => onChange(next)}>
          <Stack gap={4} mt={4}>
            {control.options.map((option) => (
              <Checkbox key={option.id} value={option.id} label={option.label} description={option.description} />
            ))}
          </Stack>
        </Checkbox.Group>
      ) : (
        <Radio.Group {...common} value={typeof value === 'string' ? value : null} onChange={(next) => onChange(next)}>
          <Stack gap={4} mt={4}>
            {control.options.map((option) => (
              <Radio key={option.id} value={option.id} label={option.label} description={option.description} />
            ))}
          </Stack>
        </Radio.Group>
      );
  }
}
