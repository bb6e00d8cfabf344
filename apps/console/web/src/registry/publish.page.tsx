/**
 * `/registry/publish`: an AI Card v1 (CARDS.md §1.1) as a form, or any card kind as JSON. A refused publish
 * (`422 CONSOLE_CARD_INVALID`) puts every issue at the field its JSON pointer names; pointers no field owns
 * are listed above the form. Nothing the person typed is lost on a refusal.
 */
import { Alert, Button, Group, JsonInput, Paper, SegmentedControl, Select, SimpleGrid, Stack, TagsInput, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';

import { api, type ApiError, type ApiIssue } from '../api/api-client';
import type { CardView } from '../api/console-types';
import { ErrorAlert } from '../ui/error-alert';
import { FieldIssues } from '../ui/field-issues';
import { UnmappedIssues } from '../ui/unmapped-issues';
import { PageHeader } from '../ui/page-header';
import { asApiError } from '../ui/use-load';

const MAX_DOCUMENT_CHARS = 250_000;

interface CardForm {
  schema: string;
  specVersion: string;
  id: string;
  identityType: string | null;
  name: string;
  description: string;
  logoUrl: string;
  tags: string[];
  maturity: string | null;
  publisherId: string;
  publisherIdentityType: string | null;
  publisherName: string;
  services: string;
  trust: string;
  metadata: string;
  createdAt: string;
  updatedAt: string;
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

const EMPTY: CardForm = {
  schema: 'https://a2a-protocol.org/ai-card/v1/schema.json',
  specVersion: '1.0',
  id: '',
  identityType: null,
  name: '',
  description: '',
  logoUrl: '',
  tags: [],
  maturity: null,
  publisherId: '',
  publisherIdentityType: null,
  publisherName: '',
  services: JSON.stringify({ a2a: { type: 'a2a', name: 'A2A interface', protocolSpecific: { protocolVersion: '0.3.0', supportedInterfaces: [{ transport: 'JSONRPC', url: 'https://agent.example/a2a/v1' }] } } }, null, 2),
  trust: '',
  metadata: '',
  createdAt: now(),
  updatedAt: now(),
};

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

function parseObject(text: string, optional: boolean): Parsed {
  if (!text.trim()) return optional ? { ok: true, value: undefined } : { ok: false, message: 'Required: a JSON object.' };
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, message: 'Write a JSON object: { ... }.' };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, message: `Not valid JSON: ${error instanceof Error ? error.message : 'check the brackets and quotes'}.` };
  }
}

/** The document the form describes; optional members are left out when empty. */
function documentOf(form: CardForm, parsed: { services: Parsed; trust: Parsed; metadata: Parsed }): Record<string, unknown> {
  const card: Record<string, unknown> = { $schema: form.schema.trim(), specVersion: form.specVersion.trim(), id: form.id.trim() };
  if (form.identityType) card['identityType'] = form.identityType;
  card['name'] = form.name.trim();
  card['description'] = form.description.trim();
  if (form.logoUrl.trim()) card['logoUrl'] = form.logoUrl.trim();
  if (form.tags.length) card['tags'] = form.tags;
  if (form.maturity) card['maturity'] = form.maturity;
  card['publisher'] = { id: form.publisherId.trim(), ...(form.publisherIdentityType ? { identityType: form.publisherIdentityType } : {}), name: form.publisherName.trim() };
  if (parsed.trust.ok && parsed.trust.value !== undefined) card['trust'] = parsed.trust.value;
  card['services'] = parsed.services.ok ? parsed.services.value : {};
  card['createdAt'] = form.createdAt.trim();
  card['updatedAt'] = form.updatedAt.trim();
  if (parsed.metadata.ok && parsed.metadata.value !== undefined) card['metadata'] = parsed.metadata.value;
  return card;
}

/** Issue paths point into the card; a backend that points into the body (`/card/...`) is read the same way. */
function intoCard(issues: readonly ApiIssue[]): ApiIssue[] {
  return issues.map((issue) => (issue.path === '/card' || issue.path.startsWith('/card/') ? { ...issue, path: issue.path.slice('/card'.length) } : issue));
}

export default function PublishPage() {
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [form, setForm] = useState<CardForm>(EMPTY);
  const [json, setJson] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [published, setPublished] = useState<CardView | null>(null);
  const set = <K extends keyof CardForm>(name: K, value: CardForm[K]) => setForm((current) => ({ ...current, [name]: value }));
  const parsed = { services: parseObject(form.services, false), trust: parseObject(form.trust, true), metadata: parseObject(form.metadata, true) };
  const jsonParsed = parseObject(json, false);

  const switchMode = (next: string) => {
    if (next === 'json' && mode === 'form') setJson(JSON.stringify(documentOf(form, parsed), null, 2));
    setMode(next === 'json' ? 'json' : 'form');
    setError(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const card = mode === 'form' ? documentOf(form, parsed) : jsonParsed.ok ? jsonParsed.value : undefined;
    if (card === undefined) return;
    setBusy(true);
    setError(null);
    setPublished(null);
    try {
      setPublished(await api.post<CardView>('/registry/cards', { card }));
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };

  const issues = new FieldIssues(intoCard(error?.issues ?? []));
  const at = (pointer: string) => (mode === 'form' ? issues.at(pointer) : undefined);
  const fieldError = {
    schema: at('/$schema'),
    specVersion: at('/specVersion'),
    id: at('/id'),
    identityType: at('/identityType'),
    name: at('/name'),
    description: at('/description'),
    logoUrl: at('/logoUrl'),
    tags: at('/tags'),
    maturity: at('/maturity'),
    publisherId: at('/publisher/id'),
    publisherIdentityType: at('/publisher/identityType'),
    publisherName: at('/publisher/name'),
    publisher: at('/publisher'),
    services: at('/services'),
    trust: at('/trust'),
    metadata: at('/metadata'),
    createdAt: at('/createdAt'),
    updatedAt: at('/updatedAt'),
    signature: at('/signature'),
  };
  const unmapped = issues.unclaimed();
  const formOk = parsed.services.ok && parsed.trust.ok && parsed.metadata.ok;
  const issueText = (value: string | undefined) => (value ? <span data-testid="field-issue">{value}</span> : undefined);

  return (
    <>
      <PageHeader title="Publish a card" />
      <Stack>
        <SegmentedControl
          aria-label="How to write the card"
          value={mode}
          onChange={switchMode}
          data={[
            { value: 'form', label: 'AI Card form' },
            { value: 'json', label: 'JSON document (any kind)' },
          ]}
          w="fit-content"
        />
        {published && (
          <Alert color="teal" title="Published" data-testid="publish-success">
            Revision <code>{published.revision}</code> of the card is {published.status}.{' '}
            <Link to={`/registry/cards/${encodeURIComponent(published.identifier ?? String(published.card?.['id'] ?? ''))}`}>Open its page</Link>.
          </Alert>
        )}
        {error && error.issues.length === 0 && <ErrorAlert error={error} title="The card was not published" />}
        {error && error.issues.length > 0 && (
          <Alert color="red" variant="light" title="The card was not published" role="alert" data-testid="publish-refused" data-code={error.code}>
            {error.message} {mode === 'form' ? 'Each problem is shown at its field below.' : ''}
          </Alert>
        )}
        <UnmappedIssues issues={unmapped} />
        <Paper withBorder p="md" radius="md">
          <form onSubmit={(event) => void submit(event)} aria-label="Card" noValidate data-testid="publish-form">
            {mode === 'json' ? (
              <Stack>
                <JsonInput
                  label="Card document"
                  description="An AI Card, an A2A AgentCard or an MCP server.json. Problems are listed above with their JSON pointer."
                  value={json}
                  onChange={setJson}
                  autosize
                  minRows={16}
                  maxRows={40}
                  maxLength={MAX_DOCUMENT_CHARS}
                  formatOnBlur
                  error={json.trim() && !jsonParsed.ok ? jsonParsed.message : undefined}
                />
                <Group justify="flex-end">
                  <Button type="submit" loading={busy} disabled={!jsonParsed.ok}>
                    Publish
                  </Button>
                </Group>
              </Stack>
            ) : (
              <Stack>
                <Title order={2} size="h5">
                  Identity
                </Title>
                <SimpleGrid cols={{ base: 1, sm: 2 }}>
                  <TextInput label="Card id" description="Absolute URI: did:web:…, spiffe://… or https://… in a namespace you own." required value={form.id} onChange={(event) => set('id', event.currentTarget.value)} error={issueText(fieldError.id)} maxLength={512} />
                  <Select label="Identity type" placeholder="From the id" clearable data={['did', 'spiffe', 'url']} value={form.identityType} onChange={(value) => set('identityType', value)} error={issueText(fieldError.identityType)} />
                  <TextInput label="Name" required value={form.name} onChange={(event) => set('name', event.currentTarget.value)} error={issueText(fieldError.name)} maxLength={200} />
                  <Select label="Maturity" placeholder="Not stated" clearable data={['preview', 'stable', 'deprecated']} value={form.maturity} onChange={(value) => set('maturity', value)} error={issueText(fieldError.maturity)} />
                </SimpleGrid>
                <Textarea label="Description" required autosize minRows={2} maxLength={4000} value={form.description} onChange={(event) => set('description', event.currentTarget.value)} error={issueText(fieldError.description)} />
                <SimpleGrid cols={{ base: 1, sm: 2 }}>
                  <TagsInput label="Tags" description="Enter adds a tag." value={form.tags} onChange={(value) => set('tags', value)} error={issueText(fieldError.tags)} maxTags={50} />
                  <TextInput label="Logo URL" description="data:image/… or https:" value={form.logoUrl} onChange={(event) => set('logoUrl', event.currentTarget.value)} error={issueText(fieldError.logoUrl)} maxLength={100_000} />
                </SimpleGrid>
                <Title order={2} size="h5">
                  Publisher
                </Title>
                {fieldError.publisher && !fieldError.publisherId && !fieldError.publisherName && (
                  <Text size="sm" c="red">
                    {issueText(fieldError.publisher)}
                  </Text>
                )}
                <SimpleGrid cols={{ base: 1, sm: 3 }}>
                  <TextInput label="Publisher id" required value={form.publisherId} onChange={(event) => set('publisherId', event.currentTarget.value)} error={issueText(fieldError.publisherId)} maxLength={512} />
                  <Select label="Publisher identity type" placeholder="Not stated" clearable data={['did', 'dns']} value={form.publisherIdentityType} onChange={(value) => set('publisherIdentityType', value)} error={issueText(fieldError.publisherIdentityType)} />
                  <TextInput label="Publisher name" required value={form.publisherName} onChange={(event) => set('publisherName', event.currentTarget.value)} error={issueText(fieldError.publisherName)} maxLength={200} />
                </SimpleGrid>
                <Title order={2} size="h5">
                  Services
                </Title>
                <JsonInput
                  label="Services"
                  description="A JSON map of service type to {type, name, protocolSpecific}; each key equals its type."
                  required
                  value={form.services}
                  onChange={(value) => set('services', value)}
                  autosize
                  minRows={6}
                  maxRows={24}
                  maxLength={MAX_DOCUMENT_CHARS}
                  formatOnBlur
                  error={!parsed.services.ok ? parsed.services.message : issueText(fieldError.services)}
                />
                <Title order={2} size="h5">
                  Dates and more
                </Title>
                <SimpleGrid cols={{ base: 1, sm: 2 }}>
                  <TextInput label="Created at" description="RFC 3339 with offset, e.g. 2026-01-31T12:00:00Z." required value={form.createdAt} onChange={(event) => set('createdAt', event.currentTarget.value)} error={issueText(fieldError.createdAt)} maxLength={64} />
                  <TextInput label="Updated at" description="Each new revision needs a later time." required value={form.updatedAt} onChange={(event) => set('updatedAt', event.currentTarget.value)} error={issueText(fieldError.updatedAt)} maxLength={64} />
                  <TextInput label="Schema" required value={form.schema} onChange={(event) => set('schema', event.currentTarget.value)} error={issueText(fieldError.schema)} maxLength={512} />
                  <TextInput label="Spec version" required value={form.specVersion} onChange={(event) => set('specVersion', event.currentTarget.value)} error={issueText(fieldError.specVersion)} maxLength={16} />
                </SimpleGrid>
                <JsonInput label="Trust (optional)" description="{attestations, privacyPolicyUrl, termsOfServiceUrl}" value={form.trust} onChange={(value) => set('trust', value)} autosize minRows={2} maxRows={16} maxLength={MAX_DOCUMENT_CHARS} formatOnBlur error={!parsed.trust.ok ? parsed.trust.message : issueText(fieldError.trust)} />
                <JsonInput label="Metadata (optional)" description="An open JSON object." value={form.metadata} onChange={(value) => set('metadata', value)} autosize minRows={2} maxRows={16} maxLength={MAX_DOCUMENT_CHARS} formatOnBlur error={!parsed.metadata.ok ? parsed.metadata.message : issueText(fieldError.metadata)} />
                {fieldError.signature && (
                  <Text size="sm" c="red">
                    Signature: {issueText(fieldError.signature)}
                  </Text>
                )}
                <Group justify="flex-end">
                  <Button variant="default" onClick={() => set('updatedAt', now())}>
                    Set “updated at” to now
                  </Button>
                  <Button type="submit" loading={busy} disabled={!formOk}>
                    Publish
                  </Button>
                </Group>
              </Stack>
            )}
          </form>
        </Paper>
      </Stack>
    </>
  );
}
