/**
 * `/shield/cases/:caseId`: a case and everything decided on it. Its consultations (newest first) with the
 * analysis laid out as SHIELD.md §9 has it, a form to consult again, owner guidance, closing with an outcome,
 * and the counterparty's history of outcomes.
 */
import { Accordion, Anchor, Badge, Button, Checkbox, Code, Divider, Group, List, Paper, Select, SimpleGrid, Stack, Table, Tabs, Text, Textarea, Title } from '@mantine/core';
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';

import { api, segment, type ApiError } from '../api/api-client';
import type { CaseDetail, CounterpartyHistory, OutcomeResult, ShieldCase, ShieldConsultation, ShieldOutcome } from '../api/console-types';
import { RiskBadge, StatusBadge } from '../ui/badges';
import { ErrorAlert } from '../ui/error-alert';
import { FieldIssues } from '../ui/field-issues';
import { UnmappedIssues } from '../ui/unmapped-issues';
import { formatTime, percent, words } from '../ui/format';
import { JsonListField, parseJsonList } from '../ui/json-field';
import { LoadingBlock } from '../ui/loading-block';
import { PageHeader } from '../ui/page-header';
import { asApiError, useLoad } from '../ui/use-load';
import { EVIDENCE_HINT, FACTS_HINT, POLICIES_HINT } from './new-case.page';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export default function CasePage() {
  const { caseId = '' } = useParams();
  const valid = UUID.test(caseId);
  const { data, error, loading, reload } = useLoad((signal) => (valid ? api.get<CaseDetail>(`/shield/cases/${segment(caseId)}`, {}, signal) : Promise.resolve(undefined)), [caseId, valid]);

  if (!valid) {
    return (
      <>
        <PageHeader title="Case not found" />
        <Text>
          This address does not name a case. Go back to{' '}
          <Anchor component={Link} to="/shield">
            your cases
          </Anchor>
          .
        </Text>
      </>
    );
  }
  const record = data?.case;
  const closed = record?.status === 'closed';
  const consultations = [...(data?.consultations ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  return (
    <>
      <PageHeader title={record?.title ?? 'Shield case'}>
        {record && (
          <>
            <StatusBadge status={record.status} size="lg" data-testid="case-status" />
            <RiskBadge tier={record.riskTier} size="lg" data-testid="case-risk" />
          </>
        )}
      </PageHeader>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <LoadingBlock label="Loading the case" />}
      {record && data && (
        <Stack>
          <CaseSummary record={record} outcome={data.outcome} />
          <Tabs defaultValue="analysis">
            <Tabs.List mb="md">
              <Tabs.Tab value="analysis">Consultations ({consultations.length})</Tabs.Tab>
              <Tabs.Tab value="consult" disabled={closed}>
                Consult
              </Tabs.Tab>
              <Tabs.Tab value="guidance" disabled={closed}>
                Guidance ({record.ownerGuidance.length})
              </Tabs.Tab>
              <Tabs.Tab value="close" disabled={closed}>
                Close
              </Tabs.Tab>
              <Tabs.Tab value="history" disabled={!record.counterparty.reference}>
                Counterparty history
              </Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="analysis">
              {consultations.length === 0 && <Text c="dimmed">No consultation yet. Consult the Shield with the counterparty’s request.</Text>}
              <Stack>
                {consultations.map((consultation, index) => (
                  <ConsultationView key={consultation.consultationId} consultation={consultation} latest={index === 0} />
                ))}
              </Stack>
            </Tabs.Panel>
            <Tabs.Panel value="consult">{!closed && <ConsultForm caseId={caseId} onDone={reload} />}</Tabs.Panel>
            <Tabs.Panel value="guidance">
              <GuidancePanel record={record} onDone={reload} />
            </Tabs.Panel>
            <Tabs.Panel value="close">{!closed && <CloseForm caseId={caseId} onDone={reload} />}</Tabs.Panel>
            <Tabs.Panel value="history">{record.counterparty.reference && <History reference={record.counterparty.reference} />}</Tabs.Panel>
          </Tabs>
        </Stack>
      )}
    </>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" fw={500}>
        {label}
      </Text>
      <div>{children}</div>
    </div>
  );
}

function CaseSummary({ record, outcome }: { record: ShieldCase; outcome: ShieldOutcome | undefined }) {
  return (
    <Paper withBorder p="md" radius="md" data-testid="case-summary">
      <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }}>
        <Field label="Goal">
          <Text size="sm">{record.goal}</Text>
        </Field>
        <Field label="Counterparty">
          <Text size="sm">
            {record.counterparty.type}
            {record.counterparty.reference ? ` · ${record.counterparty.reference}` : ''}
          </Text>
        </Field>
        <Field label="Protected agent">
          <Code>{record.agentId}</Code>
        </Field>
        {record.proposedAction && (
          <Field label="Proposed action">
            <Text size="sm">{record.proposedAction}</Text>
          </Field>
        )}
        <Field label="Latest advice">
          <Text size="sm">{record.latestDisposition ? words(record.latestDisposition) : 'not consulted yet'}</Text>
        </Field>
        <Field label="Updated">
          <Text size="sm">{formatTime(record.updatedAt)}</Text>
        </Field>
      </SimpleGrid>
      {record.brief && (
        <Text size="sm" mt="sm" c="dimmed">
          {record.brief}
        </Text>
      )}
      <Text size="xs" c="dimmed" mt="sm">
        {record.facts.length} facts · {record.evidence.length} evidence items · {record.policies.length} policies
      </Text>
      {outcome && (
        <>
          <Divider my="sm" />
          <Group gap="sm" data-testid="case-outcome">
            <Badge variant="light">{words(outcome.result)}</Badge>
            <Text size="sm">
              {outcome.acceptedAdvice ? 'Advice followed.' : 'Advice not followed.'} {outcome.actionTaken}
            </Text>
            {outcome.observedImpact && (
              <Text size="sm" c="dimmed">
                Impact: {outcome.observedImpact}
              </Text>
            )}
          </Group>
        </>
      )}
    </Paper>
  );
}

function Items({ title, items }: { title: string; items: readonly string[] }) {
  if (items.length === 0) return null;
  return (
    <div>
      <Text fw={500} size="sm">
        {title}
      </Text>
      <List size="sm" spacing={2}>
        {items.map((item, index) => (
          <List.Item key={index}>{item}</List.Item>
        ))}
      </List>
    </div>
  );
}

export function ConsultationView({ consultation, latest }: { consultation: ShieldConsultation; latest: boolean }) {
  const { analysis } = consultation;
  return (
    <Paper withBorder p="md" radius="md" data-testid="consultation" data-disposition={analysis.disposition}>
      <Group justify="space-between" mb="xs">
        <Group gap="sm">
          <StatusBadge status={analysis.disposition} size="lg" data-testid="disposition" />
          <RiskBadge tier={analysis.riskTier} />
          <Badge variant="outline" color="gray">
            confidence {percent(analysis.confidence)}
          </Badge>
          {latest && <Badge variant="dot">latest</Badge>}
        </Group>
        <Text size="xs" c="dimmed">
          {formatTime(consultation.createdAt)} · {consultation.generation.mode === 'ai' ? consultation.generation.model : `fallback${consultation.generation.errorCode ? ` (${consultation.generation.errorCode})` : ''}`}
        </Text>
      </Group>
      <Text size="sm" mb="xs" style={{ whiteSpace: 'pre-wrap' }} data-testid="reply">
        {analysis.reply}
      </Text>
      <Text size="sm" c="dimmed" mb="sm">
        {analysis.situationSummary}
      </Text>
      <Accordion multiple defaultValue={latest ? ['claims', 'signals', 'next'] : []} variant="separated" transitionDuration={0}>
        <Accordion.Item value="claims">
          <Accordion.Control>Claims ({analysis.claims.length})</Accordion.Control>
          <Accordion.Panel>
            {analysis.claims.length === 0 ? (
              <Text size="sm" c="dimmed">
                No material claims.
              </Text>
            ) : (
              <Table.ScrollContainer minWidth={560}>
                <Table aria-label="Claims" data-testid="claims-table">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Claim</Table.Th>
                      <Table.Th>Status</Table.Th>
                      <Table.Th>Significance</Table.Th>
                      <Table.Th>Evidence cited</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {analysis.claims.map((claim, index) => (
                      <Table.Tr key={index} data-testid="claim" data-status={claim.status}>
                        <Table.Td>
                          <Text size="sm">{claim.claim}</Text>
                          <Text size="xs" c="dimmed">
                            {claim.explanation}
                          </Text>
                        </Table.Td>
                        <Table.Td>
                          <StatusBadge status={claim.status} />
                        </Table.Td>
                        <Table.Td>{claim.significance}</Table.Td>
                        <Table.Td>
                          {claim.evidenceReferences.length === 0
                            ? '—'
                            : claim.evidenceReferences.map((reference) => (
                                <Code key={reference} mr={4}>
                                  {reference}
                                </Code>
                              ))}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="signals">
          <Accordion.Control>Manipulation signals ({analysis.manipulationSignals.length})</Accordion.Control>
          <Accordion.Panel>
            {analysis.manipulationSignals.length === 0 && (
              <Text size="sm" c="dimmed">
                None reported.
              </Text>
            )}
            <Stack gap="xs">
              {analysis.manipulationSignals.map((signal, index) => (
                <Group key={index} gap="sm" align="flex-start" wrap="nowrap" data-testid="signal" data-tactic={signal.tactic}>
                  <Badge variant="light" color={signal.tactic === 'none' ? 'gray' : 'orange'}>
                    {words(signal.tactic)}
                  </Badge>
                  <div>
                    <Text size="sm">{signal.observation}</Text>
                    <Text size="xs" c="dimmed">
                      {signal.significance} significance · confidence {percent(signal.confidence)}
                    </Text>
                  </div>
                </Group>
              ))}
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
        <Accordion.Item value="next">
          <Accordion.Control>What to do</Accordion.Control>
          <Accordion.Panel>
            <Stack gap="sm">
              <Items title="Next steps" items={analysis.nextSteps} />
              <Items title="Missing evidence" items={analysis.missingEvidence} />
              <Items title="Questions to ask" items={analysis.questionsToAsk} />
              <Items title="Safeguards" items={analysis.safeguards} />
              <Items title="Why" items={analysis.rationale} />
              {analysis.suggestedResponse && (
                <div>
                  <Text fw={500} size="sm">
                    Suggested response
                  </Text>
                  {/* A long response scrolls sideways: focusable, so a keyboard can scroll it too. */}
                  <Code block tabIndex={0} aria-label="Suggested response" data-testid="suggested-response">
                    {analysis.suggestedResponse}
                  </Code>
                </div>
              )}
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
      </Accordion>
    </Paper>
  );
}

function ConsultForm({ caseId, onDone }: { caseId: string; onDone: () => void }) {
  const [message, setMessage] = useState('');
  const [situationContext, setSituationContext] = useState('');
  const [proposedAction, setProposedAction] = useState('');
  const [lists, setLists] = useState({ facts: '[]', evidence: '[]', policies: '[]' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const parsed = { facts: parseJsonList(lists.facts), evidence: parseJsonList(lists.evidence), policies: parseJsonList(lists.policies) };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!parsed.facts.ok || !parsed.evidence.ok || !parsed.policies.ok) return;
    setBusy(true);
    setError(null);
    try {
      await api.post(`/shield/cases/${segment(caseId)}/consultations`, {
        message: message.trim(),
        ...(situationContext.trim() ? { situationContext: situationContext.trim() } : {}),
        ...(proposedAction.trim() ? { proposedAction: proposedAction.trim() } : {}),
        facts: parsed.facts.value,
        evidence: parsed.evidence.value,
        policies: parsed.policies.value,
      });
      setMessage('');
      setSituationContext('');
      setLists({ facts: '[]', evidence: '[]', policies: '[]' });
      onDone();
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  const issues = FieldIssues.of(error);
  const at = {
    message: issues.at('/message'),
    situationContext: issues.at('/situationContext'),
    proposedAction: issues.at('/proposedAction'),
    facts: issues.at('/facts'),
    evidence: issues.at('/evidence'),
    policies: issues.at('/policies'),
  };
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={(event) => void submit(event)} aria-label="Consult the Shield" noValidate>
        <Stack>
          {error && error.issues.length === 0 && <ErrorAlert error={error} />}
          {error && <UnmappedIssues issues={issues.unclaimed()} />}
          <Textarea label="The request (or the agent’s question on it)" required autosize minRows={3} maxLength={4000} value={message} onChange={(event) => setMessage(event.currentTarget.value)} error={at.message} />
          <Textarea label="Situation context" description="This turn’s context; never stored." autosize minRows={2} maxLength={8000} value={situationContext} onChange={(event) => setSituationContext(event.currentTarget.value)} error={at.situationContext} />
          <Textarea label="Proposed action (replaces the case’s when given)" autosize minRows={1} maxLength={1000} value={proposedAction} onChange={(event) => setProposedAction(event.currentTarget.value)} error={at.proposedAction} />
          <JsonListField label="More facts" description={FACTS_HINT} value={lists.facts} onChange={(value) => setLists((current) => ({ ...current, facts: value }))} error={at.facts} />
          <JsonListField label="More evidence" description={EVIDENCE_HINT} value={lists.evidence} onChange={(value) => setLists((current) => ({ ...current, evidence: value }))} error={at.evidence} />
          <JsonListField label="More policies" description={POLICIES_HINT} value={lists.policies} onChange={(value) => setLists((current) => ({ ...current, policies: value }))} error={at.policies} />
          <Group justify="flex-end">
            <Button type="submit" loading={busy} disabled={!message.trim()}>
              Consult
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

function GuidancePanel({ record, onDone }: { record: ShieldCase; onDone: () => void }) {
  const [instruction, setInstruction] = useState('');
  const [scope, setScope] = useState<'case' | 'agent'>('case');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post(`/shield/cases/${segment(record.caseId)}/guidance`, { instruction: instruction.trim(), scope });
      setInstruction('');
      onDone();
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  const issues = FieldIssues.of(error);
  const at = { instruction: issues.at('/instruction'), scope: issues.at('/scope') };
  return (
    <Stack>
      {record.ownerGuidance.length > 0 && (
        <Paper withBorder p="md" radius="md">
          <List spacing="xs" data-testid="guidance-list">
            {record.ownerGuidance.map((item) => (
              <List.Item key={item.guidanceId}>
                <Text size="sm">{item.instruction}</Text>
                <Text size="xs" c="dimmed">
                  {item.scope} · {formatTime(item.createdAt)}
                </Text>
              </List.Item>
            ))}
          </List>
        </Paper>
      )}
      {record.status !== 'closed' && (
        <Paper withBorder p="md" radius="md">
          <form onSubmit={(event) => void submit(event)} aria-label="Add guidance" noValidate>
            <Stack>
              <Title order={2} size="h5">
                Add owner guidance
              </Title>
              {error && error.issues.length === 0 && <ErrorAlert error={error} />}
              {error && <UnmappedIssues issues={issues.unclaimed()} />}
              <Textarea
                label="Instruction"
                description="Authoritative for the analysis, but it cannot turn missing evidence into verified evidence."
                required
                autosize
                minRows={2}
                maxLength={2000}
                value={instruction}
                onChange={(event) => setInstruction(event.currentTarget.value)}
                error={at.instruction}
              />
              <Select label="Scope" allowDeselect={false} data={['case', 'agent']} value={scope} onChange={(value) => setScope(value === 'agent' ? 'agent' : 'case')} error={at.scope} />
              <Group justify="flex-end">
                <Button type="submit" loading={busy} disabled={!instruction.trim()}>
                  Add guidance
                </Button>
              </Group>
            </Stack>
          </form>
        </Paper>
      )}
    </Stack>
  );
}

const RESULTS: Array<{ value: OutcomeResult; label: string }> = [
  { value: 'successful', label: 'Successful: goal met without harm' },
  { value: 'prevented_harm', label: 'Prevented harm: the advice stopped a harmful action' },
  { value: 'escalated', label: 'Escalated to a person' },
  { value: 'false_alarm', label: 'False alarm: the flagged risk was benign' },
  { value: 'unsuccessful', label: 'Unsuccessful: goal missed or harm done' },
  { value: 'unknown', label: 'Unknown' },
];

function CloseForm({ caseId, onDone }: { caseId: string; onDone: () => void }) {
  const [result, setResult] = useState<OutcomeResult | null>(null);
  const [acceptedAdvice, setAcceptedAdvice] = useState(true);
  const [actionTaken, setActionTaken] = useState('');
  const [observedImpact, setObservedImpact] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post(`/shield/cases/${segment(caseId)}/close`, {
        result,
        acceptedAdvice,
        actionTaken: actionTaken.trim(),
        ...(observedImpact.trim() ? { observedImpact: observedImpact.trim() } : {}),
      });
      onDone();
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  const issues = FieldIssues.of(error);
  const at = { result: issues.at('/result'), acceptedAdvice: issues.at('/acceptedAdvice'), actionTaken: issues.at('/actionTaken'), observedImpact: issues.at('/observedImpact') };
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={(event) => void submit(event)} aria-label="Close the case" noValidate>
        <Stack>
          <Text size="sm">Closing records what happened. A closed case takes no more consultations or guidance.</Text>
          {error && error.issues.length === 0 && <ErrorAlert error={error} />}
          {error && <UnmappedIssues issues={issues.unclaimed()} />}
          <Select label="Outcome" required data={RESULTS} value={result} onChange={(value) => setResult(value as OutcomeResult | null)} error={at.result} />
          <Checkbox label="The agent followed the Shield’s advice" checked={acceptedAdvice} onChange={(event) => setAcceptedAdvice(event.currentTarget.checked)} error={at.acceptedAdvice} />
          <Textarea label="Action taken" required autosize minRows={2} maxLength={2000} value={actionTaken} onChange={(event) => setActionTaken(event.currentTarget.value)} error={at.actionTaken} />
          <Textarea label="Observed impact" autosize minRows={1} maxLength={2000} value={observedImpact} onChange={(event) => setObservedImpact(event.currentTarget.value)} error={at.observedImpact} />
          <Group justify="flex-end">
            <Button type="submit" color="gray" loading={busy} disabled={!result || !actionTaken.trim()}>
              Close the case
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

function History({ reference }: { reference: string }) {
  const { data, error, loading, reload } = useLoad((signal) => api.get<CounterpartyHistory>(`/shield/counterparties/${segment(reference)}`, {}, signal), [reference]);
  return (
    <Paper withBorder p="md" radius="md" data-testid="counterparty-history">
      <Title order={2} size="h5" mb="xs">
        Outcomes with {reference}
      </Title>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <LoadingBlock rows={2} label="Loading the counterparty history" />}
      {data && data.outcomes.length === 0 && (
        <Text size="sm" c="dimmed">
          No closed case with this counterparty yet.
        </Text>
      )}
      {data && data.outcomes.length > 0 && (
        <Table aria-label="Counterparty outcomes">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Closed</Table.Th>
              <Table.Th>Outcome</Table.Th>
              <Table.Th>Advice</Table.Th>
              <Table.Th>Risk</Table.Th>
              <Table.Th>Case</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.outcomes.map((outcome) => (
              <Table.Tr key={outcome.caseId}>
                <Table.Td>{formatTime(outcome.closedAt)}</Table.Td>
                <Table.Td>{words(outcome.result)}</Table.Td>
                <Table.Td>
                  {outcome.latestDisposition ? words(outcome.latestDisposition) : '—'} ({outcome.acceptedAdvice ? 'followed' : 'not followed'})
                </Table.Td>
                <Table.Td>
                  <RiskBadge tier={outcome.riskTier} />
                </Table.Td>
                <Table.Td>
                  <Anchor component={Link} to={`/shield/cases/${outcome.caseId}`}>
                    open
                  </Anchor>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
