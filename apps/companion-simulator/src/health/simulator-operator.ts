/**
 * The simulator's operator port (`SIMULATOR_OPERATOR_ADDRESS`): `/healthz`, `/readyz` (ready while its
 * Companion is connected to the relay) and `/metrics` (prom-client's process metrics and the simulated
 * Companion's connection, frames, reconnects and replay buffer, read from its stats when scraped). Labels
 * carry nothing: one simulator is one device, whose id is in its logs, not in a series name.
 */
import { collectedCounter, collectedGauge, createMetricsRegistry, type Registry } from '@trustmesh/platform-metrics';
import { OperatorServer, type ReadinessAnswer } from '@trustmesh/platform-operator-http';

import type { CompanionSimulator } from '../simulator/companion-simulator';

type Stats = ReturnType<CompanionSimulator['stats']>;

const COUNTERS: ReadonlyArray<[name: string, help: string, read: (stats: Stats) => number]> = [
  ['simulator_frames_sent_total', 'Frames the simulated Companion sent to the relay.', (stats) => stats.framesSent],
  ['simulator_requests_received_total', 'Requests the simulated Companion received from browsers.', (stats) => stats.requestsReceived],
  ['simulator_reconnects_total', 'Reconnections of the simulated Companion to the relay.', (stats) => stats.reconnects],
];

const GAUGES: ReadonlyArray<[name: string, help: string, read: (stats: Stats) => number]> = [
  ['simulator_connected', '1 while the simulated Companion is connected to the relay, else 0.', (stats) => (stats.state === 'connected' ? 1 : 0)],
  ['simulator_replay_buffer_frames', 'Frames held in the replay buffer, not yet acknowledged by a browser.', (stats) => stats.bufferFrames],
  ['simulator_replay_buffer_bytes', 'Bytes held in the replay buffer.', (stats) => stats.bufferBytes],
];

export function simulatorMetrics(simulator: Pick<CompanionSimulator, 'stats'>): Registry {
  const registry = createMetricsRegistry();
  for (const [name, help, read] of COUNTERS) collectedCounter(registry, { name, help, collect: () => [{ value: read(simulator.stats()) }] });
  for (const [name, help, read] of GAUGES) collectedGauge(registry, { name, help, collect: () => [{ value: read(simulator.stats()) }] });
  return registry;
}

export function simulatorReadiness(simulator: Pick<CompanionSimulator, 'stats'>): Promise<ReadinessAnswer> {
  const connected = simulator.stats().state === 'connected';
  return Promise.resolve({ status: connected ? 200 : 503, body: { status: connected ? 'ready' : 'not-ready', checks: { relay: connected ? 'connected' : 'disconnected' } } });
}

/** Starts the operator port; resolves with the server and its `http://host:port`. */
export async function startSimulatorOperator(simulator: Pick<CompanionSimulator, 'stats'>, address: { host: string; port: number }): Promise<{ server: OperatorServer; url: string }> {
  const server = new OperatorServer({ registry: simulatorMetrics(simulator), readiness: () => simulatorReadiness(simulator) });
  const url = await server.listen(address.host, address.port);
  return { server, url };
}
