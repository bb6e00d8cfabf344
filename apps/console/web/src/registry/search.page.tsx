/**
 * `/registry`: full-text search over the registry's cards with filters (kind, namespace, status, tag) whose
 * options carry the facet counts of the current query. The query lives in the URL, so a search can be shared
 * and the back button works.
 */
import { Anchor, Badge, Button, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';

import { api, segment } from '../api/api-client';
import type { FacetName, SearchAnswer } from '../api/console-types';
import { StatusBadge } from '../ui/badges';
import { CursorPager, useCursorPages } from '../ui/cursor-pages';
import { ErrorAlert } from '../ui/error-alert';
import { formatTime } from '../ui/format';
import { LoadingBlock } from '../ui/loading-block';
import { PageHeader } from '../ui/page-header';
import { useLoad } from '../ui/use-load';

const FILTERS: Array<{ name: FacetName; label: string }> = [
  { name: 'kind', label: 'Kind' },
  { name: 'namespace', label: 'Namespace' },
  { name: 'status', label: 'Status' },
  { name: 'tag', label: 'Tag' },
];
const MAX_QUERY = 256;

export default function SearchPage() {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const filters = Object.fromEntries(FILTERS.map(({ name }) => [name, params.get(name) ?? ''])) as Record<FacetName, string>;
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const pages = useCursorPages();
  const key = params.toString();
  const [facets, setFacets] = useState<SearchAnswer['facets']>();
  const { data, error, loading, reload } = useLoad(
    async (signal) => {
      const answer = await api.get<SearchAnswer>('/registry/search', { q, ...filters, limit: 20, cursor: pages.cursor }, signal);
      pages.learn(answer.nextCursor);
      if (answer.facets) setFacets(answer.facets);
      return answer;
    },
    [key, pages.cursor],
  );

  const change = (next: Record<string, string>) => {
    pages.reset();
    const merged = new URLSearchParams(params);
    for (const [name, value] of Object.entries(next)) {
      if (value) merged.set(name, value);
      else merged.delete(name);
    }
    setParams(merged);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change({ q: text.trim() });
  };

  return (
    <>
      <PageHeader title="Registry">
        <Button component={Link} to="/registry/publish" variant="light">
          Publish a card
        </Button>
      </PageHeader>
      <Paper withBorder p="md" radius="md" mb="md">
        <form onSubmit={submit} role="search" aria-label="Search the registry">
          <Group align="flex-end" wrap="nowrap">
            <TextInput label="Search cards" placeholder="finance, travel booking, did:web:…" value={text} maxLength={MAX_QUERY} onChange={(event) => setText(event.currentTarget.value)} style={{ flex: 1 }} type="search" />
            <Button type="submit">Search</Button>
          </Group>
        </form>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} mt="sm">
          {FILTERS.map(({ name, label }) => {
            const counts = facets?.[name] ?? [];
            const options = counts.map((facet) => ({ value: facet.value, label: `${facet.value} (${facet.count})` }));
            if (filters[name] && !options.some((option) => option.value === filters[name])) options.unshift({ value: filters[name], label: filters[name] });
            return (
              <Select
                key={name}
                label={label}
                placeholder="Any"
                clearable
                searchable
                data={options}
                value={filters[name] || null}
                onChange={(value) => change({ [name]: value ?? '' })}
                nothingFoundMessage="No values"
                data-testid={`facet-${name}`}
              />
            );
          })}
        </SimpleGrid>
      </Paper>
      {error && <ErrorAlert error={error} onRetry={reload} />}
      {loading && !data && <LoadingBlock label="Searching" />}
      {data && data.items.length === 0 && <Text c="dimmed">No card matches. Try fewer words or clear a filter.</Text>}
      <Stack gap="sm" aria-busy={loading} data-testid="search-results">
        {data?.items.map((card) => (
          <Paper key={card.identifier} withBorder p="sm" radius="md" data-testid="search-result" data-identifier={card.identifier}>
            <Group justify="space-between" wrap="nowrap" align="flex-start">
              <div style={{ minWidth: 0 }}>
                <Anchor component={Link} to={`/registry/cards/${segment(card.identifier)}`} fw={600}>
                  {card.name ?? card.identifier}
                </Anchor>
                <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                  {card.identifier}
                </Text>
                {card.description && (
                  <Text size="sm" mt={4} lineClamp={2}>
                    {card.description}
                  </Text>
                )}
                {card.tags && card.tags.length > 0 && (
                  <Group gap={4} mt={4}>
                    {card.tags.slice(0, 8).map((tag) => (
                      <Badge key={tag} size="xs" variant="outline" color="gray">
                        {tag}
                      </Badge>
                    ))}
                  </Group>
                )}
              </div>
              <Stack gap={4} align="flex-end">
                {card.kind && <Badge variant="light">{card.kind}</Badge>}
                {card.status && <StatusBadge status={card.status} />}
                {card.verified !== undefined && (
                  <Badge color={card.verified ? 'teal' : 'gray'} variant="dot">
                    {card.verified ? 'verified publisher' : 'unverified'}
                  </Badge>
                )}
                {card.updatedAt && (
                  <Text size="xs" c="dimmed">
                    {formatTime(card.updatedAt)}
                  </Text>
                )}
              </Stack>
            </Group>
          </Paper>
        ))}
      </Stack>
      <CursorPager pages={pages} label="Result pages" />
    </>
  );
}
