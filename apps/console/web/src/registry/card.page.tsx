/**
 * `/registry/cards/:identifier` (URL-encoded): one card. Its kind, services and skills read from the document,
 * the signature and ownership states the registry decided, the lifecycle status and every revision.
 */
import { Accordion, Badge, Code, Group, List, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useParams } from 'react-router';

import { api, segment } from '../api/api-client';
import type { CardView } from '../api/console-types';
import { StatusBadge } from '../ui/badges';
import { ErrorAlert } from '../ui/error-alert';
import { formatTime } from '../ui/format';
import { LoadingBlock } from '../ui/loading-block';
import { PageHeader } from '../ui/page-header';
import { useLoad } from '../ui/use-load';

interface Service {
  key: string;
  type: string;
  name?: string;
  skills: string[];
}

const record = (value: unknown): Record<string, unknown> => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function skillNames(value: unknown): string[] {
  return Array.isArray(value) ? value.map((skill) => text(record(skill)['name']) ?? text(record(skill)['id']) ?? '').filter(Boolean) : [];
}

/** Services of an AI Card (`services`) or of a newer card (`protocols`), and an A2A card's own skills. */
function servicesOf(card: Record<string, unknown>): Service[] {
  const services: Service[] = [];
  for (const [key, value] of Object.entries(record(card['services']))) {
    const service = record(value);
    services.push({ key, type: text(service['type']) ?? key, ...(text(service['name']) ? { name: text(service['name']) as string } : {}), skills: skillNames(record(service['protocolSpecific'])['skills']) });
  }
  for (const [key, value] of Object.entries(record(card['protocols']))) {
    const protocol = record(value);
    services.push({ key, type: key, skills: skillNames(record(protocol['data'])['skills']) });
  }
  if (services.length === 0 && Array.isArray(card['skills'])) services.push({ key: 'a2a', type: 'a2a', skills: skillNames(card['skills']) });
  return services;
}

export default function CardPage() {
  const { identifier = '' } = useParams();
  const { data, error, loading, reload } = useLoad((signal) => api.get<CardView>(`/registry/cards/${segment(identifier)}`, {}, signal), [identifier]);
  const card = record(data?.card);
  const name = text(card['name']) ?? text(card['displayName']) ?? identifier;
  const services = servicesOf(card);
  const kinds = [...new Set([data?.kind, ...(data?.revisions ?? []).map((revision) => revision.kind)].filter((kind): kind is string => Boolean(kind) && kind !== 'unknown'))];
  const tags = Array.isArray(card['tags']) ? (card['tags'] as unknown[]).filter((tag): tag is string => typeof tag === 'string') : [];
  return (
    <>
      <PageHeader title={data ? name : 'Card'}>{data && <StatusBadge status={data.status} size="lg" data-testid="card-status" />}</PageHeader>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <LoadingBlock label="Loading the card" />}
      {data && (
        <Stack>
          <Paper withBorder p="md" radius="md">
            <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }} data-testid="card-identifier">
              {identifier}
            </Text>
            {text(card['description']) && <Text mt="xs">{text(card['description'])}</Text>}
            <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} mt="md">
              <div>
                <Text size="xs" c="dimmed" fw={500}>
                  Kind
                </Text>
                <Group gap={4}>
                  {(kinds.length ? kinds : ['unknown']).map((kind) => (
                    <Badge key={kind} variant="light" data-testid="card-kind">
                      {kind}
                    </Badge>
                  ))}
                </Group>
              </div>
              <div>
                <Text size="xs" c="dimmed" fw={500}>
                  Signature
                </Text>
                <StatusBadge status={data.signature.state} data-testid="signature-state" />
                {data.signature.keyId && (
                  <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                    key {data.signature.keyId}
                  </Text>
                )}
                {data.signature.signer && (
                  <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                    signed by {data.signature.signer}
                  </Text>
                )}
              </div>
              <div>
                <Text size="xs" c="dimmed" fw={500}>
                  Ownership of {data.ownership.namespace}
                </Text>
                <StatusBadge status={data.ownership.state} data-testid="ownership-state" />
                {data.ownership.publisherId && (
                  <Text size="xs" c="dimmed">
                    publisher {data.ownership.publisherId}
                  </Text>
                )}
              </div>
              <div>
                <Text size="xs" c="dimmed" fw={500}>
                  Latest revision
                </Text>
                <Code>{data.revision}</Code>
              </div>
            </SimpleGrid>
            {tags.length > 0 && (
              <Group gap={4} mt="sm">
                {tags.map((tag) => (
                  <Badge key={tag} size="sm" variant="outline" color="gray">
                    {tag}
                  </Badge>
                ))}
              </Group>
            )}
          </Paper>
          <Paper withBorder p="md" radius="md" component="section" aria-labelledby="services-title">
            <Title order={2} size="h4" id="services-title" mb="xs">
              Services and skills
            </Title>
            {services.length === 0 && (
              <Text size="sm" c="dimmed">
                The card lists no services.
              </Text>
            )}
            <Stack gap="sm">
              {services.map((service) => (
                <div key={service.key} data-testid="card-service">
                  <Group gap="xs">
                    <Badge variant="light">{service.type}</Badge>
                    {service.name && <Text size="sm">{service.name}</Text>}
                  </Group>
                  {service.skills.length > 0 && (
                    <List size="sm" mt={4} withPadding>
                      {service.skills.map((skill) => (
                        <List.Item key={skill} data-testid="card-skill">
                          {skill}
                        </List.Item>
                      ))}
                    </List>
                  )}
                </div>
              ))}
            </Stack>
          </Paper>
          <Paper withBorder p="md" radius="md" component="section" aria-labelledby="revisions-title">
            <Title order={2} size="h4" id="revisions-title" mb="xs">
              Revisions
            </Title>
            <Table.ScrollContainer minWidth={600}>
              <Table aria-label="Revisions" data-testid="revision-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Revision</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Published</Table.Th>
                    <Table.Th>Digest</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.revisions.map((revision) => (
                    <Table.Tr key={revision.revision} data-testid="revision-row">
                      <Table.Td>
                        <Code>{revision.revision}</Code>
                        {revision.latest && (
                          <Badge ml="xs" size="xs" variant="dot">
                            latest
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <StatusBadge status={revision.status} />
                        {revision.statusMessage && (
                          <Text size="xs" c="dimmed">
                            {revision.statusMessage}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>{formatTime(revision.publishedAt)}</Table.Td>
                      <Table.Td>
                        <Text size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                          {revision.digest ?? '—'}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Paper>
          {data.card === null && (
            <Text c="dimmed" data-testid="card-tombstone">
              The card’s document is not available: it was deleted, or its bytes are not JSON.
            </Text>
          )}
          <Accordion variant="separated" transitionDuration={0}>
            <Accordion.Item value="document">
              <Accordion.Control>The card document</Accordion.Control>
              <Accordion.Panel>
                <Code block style={{ maxHeight: 480, overflow: 'auto' }}>
                  {JSON.stringify(data.card, null, 2)}
                </Code>
              </Accordion.Panel>
            </Accordion.Item>
          </Accordion>
        </Stack>
      )}
    </>
  );
}
