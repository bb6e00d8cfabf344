/**
 * `/shield/new`: opens a case (SHIELD.md §3 case input). The scalar fields are a form; facts, evidence and
 * policies are JSON lists (item ids optional). Each issue of a refusal is shown at its field.
 */
import { Button, Group, Paper, Select, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';

import { api, type ApiError } from '../api/api-client';
import type { CounterpartyType, ShieldCase } from '../api/console-types';
import { ErrorAlert } from '../ui/error-alert';
import { FieldIssues } from '../ui/field-issues';
import { UnmappedIssues } from '../ui/unmapped-issues';
import { JsonListField, parseJsonList } from '../ui/json-field';
import { PageHeader } from '../ui/page-header';
import { asApiError } from '../ui/use-load';

export const FACTS_HINT = 'List of {"statement", "source": owner|protected_agent|counterparty|system, "status": asserted|verified|disputed|contradicted, "evidenceReferences"?: []}.';
export const EVIDENCE_HINT = 'List of {"type": system_record|policy_record|operator_note|external_claim|other, "summary", "verification": verified|unverified|contradicted, "sourceReference"?}.';
export const POLICIES_HINT = 'List of {"title", "statement", "sourceReference"?}.';

export default function NewCasePage() {
  const navigate = useNavigate();
  const [fields, setFields] = useState({ agentId: '', title: '', goal: '', brief: '', proposedAction: '', counterpartyType: 'agent' as CounterpartyType, counterpartyReference: '' });
  const [lists, setLists] = useState({ facts: '[]', evidence: '[]', policies: '[]' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const set = (name: keyof typeof fields) => (value: string) => setFields((current) => ({ ...current, [name]: value }));
  const parsed = { facts: parseJsonList(lists.facts), evidence: parseJsonList(lists.evidence), policies: parseJsonList(lists.policies) };
  const listsOk = parsed.facts.ok && parsed.evidence.ok && parsed.policies.ok;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!parsed.facts.ok || !parsed.evidence.ok || !parsed.policies.ok) return;
    setBusy(true);
    setError(null);
    const body = {
      agentId: fields.agentId,
      title: fields.title.trim(),
      goal: fields.goal.trim(),
      ...(fields.brief.trim() ? { brief: fields.brief.trim() } : {}),
      ...(fields.proposedAction.trim() ? { proposedAction: fields.proposedAction.trim() } : {}),
      counterparty: { type: fields.counterpartyType, ...(fields.counterpartyReference.trim() ? { reference: fields.counterpartyReference.trim() } : {}) },
      facts: parsed.facts.value,
      evidence: parsed.evidence.value,
      policies: parsed.policies.value,
    };
    try {
      const created = await api.post<ShieldCase>('/shield/cases', body);
      void navigate(`/shield/cases/${created.caseId}`);
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };

  const issues = FieldIssues.of(error);
  const at = {
    agentId: issues.at('/agentId'),
    title: issues.at('/title'),
    goal: issues.at('/goal'),
    brief: issues.at('/brief'),
    proposedAction: issues.at('/proposedAction'),
    counterpartyType: issues.at('/counterparty/type'),
    counterpartyReference: issues.at('/counterparty'),
    facts: issues.at('/facts'),
    evidence: issues.at('/evidence'),
    policies: issues.at('/policies'),
  };
  const unmapped = issues.unclaimed();

  return (
    <>
      <PageHeader title="Open a Shield case" />
      <Paper withBorder p="md" radius="md">
        <form onSubmit={(event) => void submit(event)} aria-label="Case input" noValidate>
          <Stack>
            {error && error.issues.length === 0 && <ErrorAlert error={error} />}
            {error && error.issues.length > 0 && <UnmappedIssues issues={unmapped} />}
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Protected agent id" description="The agent this case protects (one you own)." required value={fields.agentId} onChange={(event) => set('agentId')(event.currentTarget.value)} error={at.agentId} maxLength={200} />
              <TextInput label="Title" required maxLength={160} value={fields.title} onChange={(event) => set('title')(event.currentTarget.value)} error={at.title} />
            </SimpleGrid>
            <Textarea label="Goal" description="What the agent must achieve." required autosize minRows={2} maxLength={2000} value={fields.goal} onChange={(event) => set('goal')(event.currentTarget.value)} error={at.goal} />
            <Textarea label="Brief" autosize minRows={2} maxLength={4000} value={fields.brief} onChange={(event) => set('brief')(event.currentTarget.value)} error={at.brief} />
            <Textarea label="Proposed action" autosize minRows={1} maxLength={1000} value={fields.proposedAction} onChange={(event) => set('proposedAction')(event.currentTarget.value)} error={at.proposedAction} />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Select
                label="Counterparty type"
                required
                allowDeselect={false}
                data={['human', 'agent', 'service', 'unknown']}
                value={fields.counterpartyType}
                onChange={(value) => set('counterpartyType')(value ?? 'unknown')}
                error={at.counterpartyType}
              />
              <TextInput label="Counterparty reference" description="Who they are (an address, a domain); builds their history." maxLength={200} value={fields.counterpartyReference} onChange={(event) => set('counterpartyReference')(event.currentTarget.value)} error={at.counterpartyReference} />
            </SimpleGrid>
            <JsonListField label="Facts" description={FACTS_HINT} value={lists.facts} onChange={(value) => setLists((current) => ({ ...current, facts: value }))} error={at.facts} />
            <JsonListField label="Evidence" description={EVIDENCE_HINT} value={lists.evidence} onChange={(value) => setLists((current) => ({ ...current, evidence: value }))} error={at.evidence} />
            <JsonListField label="Policies" description={POLICIES_HINT} value={lists.policies} onChange={(value) => setLists((current) => ({ ...current, policies: value }))} error={at.policies} />
            <Group justify="flex-end">
              <Button type="submit" loading={busy} disabled={!listsOk}>
                Open the case
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </>
  );
}
