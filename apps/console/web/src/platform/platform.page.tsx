/**
 * `/platform`: each app's health, and live charts of the platform's metrics. `GET /platform/metrics` is
 * polled every 2 s (one request at a time, paused while the tab is hidden) and the last 5 minutes are kept.
 * This page's chunk is the only one that carries the charts library.
 */
import '@mantine/charts/styles.css';

import { LineChart } from '@mantine/charts';
import { Badge, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useDocumentVisibility } from '@mantine/hooks';
import { useEffect, useState } from 'react';

import { api, type ApiError } from '../api/api-client';
import type { PlatformHealth, PlatformMetrics } from '../api/console-types';
import { ErrorAlert } from '../ui/error-alert';
import { formatTime } from '../ui/format';
import { LoadingBlock } from '../ui/loading-block';
import { PageHeader } from '../ui/page-header';
import { asApiError, useLoad } from '../ui/use-load';

const POLL_MS = 2_000;
const WINDOW_MS = 5 * 60_000;
const APP_NAMES: Record<string, string> = { 'relay-gateway': 'Relay gateway', 'shield-analyzer': 'Shield analyzer', 'card-registry': 'Card registry', console: 'Console' };

interface Point {
  at: number;
  time: string;
  connections: number;
  framesPerSecond: number;
  consultsPerSecond: number;
  publishesPerSecond: number;
}

const CHARTS: Array<{ key: keyof Omit<Point, 'at' | 'time'>; title: string; unit: string; color: string }> = [
  { key: 'connections', title: 'Relay connections', unit: '', color: 'indigo.6' },
  { key: 'framesPerSecond', title: 'Relay frames', unit: '/s', color: 'teal.6' },
  { key: 'consultsPerSecond', title: 'Shield consultations', unit: '/s', color: 'orange.6' },
  { key: 'publishesPerSecond', title: 'Card publishes', unit: '/s', color: 'grape.6' },
];

export default function PlatformPage() {
  const health = useLoad((signal) => api.get<PlatformHealth>('/platform/health', {}, signal), []);
  const { points, error } = useMetricsPoll();
  return (
    <>
      <PageHeader title="Platform" />
      <Stack>
        <Paper withBorder p="md" radius="md" component="section" aria-labelledby="health-title">
          <Group justify="space-between" mb="xs">
            <Title order={2} size="h4" id="health-title">
              Health
            </Title>
          </Group>
          {health.error && <ErrorAlert error={health.error} onRetry={health.reload} />}
          {health.loading && !health.data && <LoadingBlock rows={4} label="Checking the apps" />}
          {health.data && (
            <Table aria-label="App health" data-testid="health-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>App</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>Checked</Table.Th>
                  <Table.Th>Detail</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {health.data.apps.map((app) => (
                  <Table.Tr key={app.app} data-testid="health-row" data-app={app.app} data-ready={app.ready}>
                    <Table.Td>{APP_NAMES[app.app] ?? app.app}</Table.Td>
                    <Table.Td>
                      <Badge color={app.ready ? 'teal' : 'red'} variant="light">
                        {app.ready ? 'ready' : 'not ready'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{formatTime(app.checkedAt)}</Table.Td>
                    <Table.Td>{app.detail ?? '—'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Paper>
        <section aria-labelledby="metrics-title">
          <Title order={2} size="h4" id="metrics-title" mb="xs">
            Live metrics (last 5 minutes, every 2 s)
          </Title>
          {error && <ErrorAlert error={error} title="Metrics are not updating" />}
          {points.length === 0 && !error && <LoadingBlock rows={2} label="Waiting for the first metrics" />}
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            {points.length > 0 &&
              CHARTS.map((chart) => {
                const latest = points[points.length - 1]?.[chart.key] ?? 0;
                return (
                  <Paper key={chart.key} withBorder p="md" radius="md" data-testid="metric-chart" data-metric={chart.key}>
                    <Group justify="space-between" mb="xs">
                      <Text fw={500}>{chart.title}</Text>
                      <Text fw={700} aria-live="off">
                        {formatRate(latest)}
                        {chart.unit}
                      </Text>
                    </Group>
                    <div role="img" aria-label={`${chart.title} over the last 5 minutes`}>
                    <LineChart
                      h={180}
                      data={points}
                      dataKey="time"
                      series={[{ name: chart.key, label: chart.title, color: chart.color }]}
                      curveType="monotone"
                      withDots={false}
                      lineProps={{ isAnimationActive: false }}
                      tickLine="none"
                      gridAxis="y"
                      valueFormatter={formatRate}
                    />
                    </div>
                  </Paper>
                );
              })}
          </SimpleGrid>
        </section>
      </Stack>
    </>
  );
}

function formatRate(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 2 : 1);
}

function useMetricsPoll(): { points: Point[]; error: ApiError | undefined } {
  const [points, setPoints] = useState<Point[]>([]);
  const [error, setError] = useState<ApiError | undefined>();
  const visibility = useDocumentVisibility();
  useEffect(() => {
    if (visibility === 'hidden') return undefined;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const metrics = await api.get<PlatformMetrics>('/platform/metrics', {}, controller.signal);
        const at = Date.parse(metrics.at) || Date.now();
        setError(undefined);
        setPoints((old) => [...old.filter((point) => point.at > at - WINDOW_MS && point.at !== at), { at, time: new Date(at).toLocaleTimeString(), ...metrics.series }]);
      } catch (failure) {
        if (controller.signal.aborted) return;
        setError(asApiError(failure));
      }
      if (!controller.signal.aborted) timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
    };
  }, [visibility]);
  return { points, error };
}
