/**
 * A replica restarted while the workspace's Companion lives on another one (two gateway processes on one
 * Postgres server, the local bus over it): the restarted replica rebuilds its rings from the frames log, which
 * ends with the stream of a Companion that is gone. A browser connecting to it must get the stream of the
 * Companion that is live, never the dead one's frames as current (they would use up its reset detection and
 * make the live stream's first frames look like duplicates, so the turn would never end for it).
 */
import { randomUUID } from 'node:crypto';

import { WebSocket } from 'ws';

import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { waitUntil } from '@trustmesh/platform-testing';
import { RelayClient } from '@trustmesh/relay-client';

import { RELAY_GATEWAY_MIGRATIONS } from '../../src/persistence/relay-gateway.migrations';
import { call } from '../support/gateway.fixture';
import { childAuth, enrollThrough, replicaEnv, startGatewayChild, statusFrom, ticketFrom, type GatewayChild } from './support/gateway.child';
import { frames } from './support/frames';
import { browser, type TestPeer } from './support/peers';
import { ReplayingCompanion } from './support/replaying-companion';

const ORIGIN = 'https://app.example';

/** relay_bus_published_total for the frames log, from a gateway's /metrics. */
async function framesLogged(gateway: GatewayChild): Promise<number> {
  const text = await (await fetch(`${gateway.operatorUrl}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith('relay_bus_published_total{') && entry.includes('relay.workspace-frames.v1'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('a replica restarted after its Companion moved to another replica', () => {
  let database: TestPostgresDatabase;
  const gateways: GatewayChild[] = [];
  const peers: TestPeer[] = [];
  const prefix = `t${randomUUID().slice(0, 8)}.`;

  async function replica(replicaId: string): Promise<GatewayChild> {
    const gateway = await startGatewayChild(replicaEnv({ databaseUrl: database.url, bus: 'local', topicPrefix: prefix }, replicaId));
    gateways.push(gateway);
    return gateway;
  }

  beforeAll(async () => {
    database = await createTestPostgresDatabase('relay-gateway-replica-restart');
    await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) peer.close();
    for (const gateway of gateways) await gateway.kill();
    await database?.drop();
  });

  it("serves the live Companion's stream, not the dead one's, to a browser on the restarted replica", async () => {
    let replicaA = await replica('replica-a');
    const replicaB = await replica('replica-b');
    const device = await enrollThrough(replicaA);
    const { workspaceId } = device;
    await waitUntil(
      async () => (await call(replicaB.client, replicaB.client.listDevices, { workspaceId, pageSize: 0, pageToken: '' }, childAuth)).devices.length === 1,
      { what: 'the device in the read model on replica B', timeoutMs: 60_000, intervalMs: 250 },
    );

    // The old Companion streams on A; its frames are in the log.
    const old = new ReplayingCompanion(device, (sequence) => `old-${sequence}`);
    await old.connect(replicaA.wsUrl);
    peers.push(old.peer as TestPeer);
    await waitUntil(async () => (await statusFrom(replicaA, workspaceId)).status === 'online', { what: 'the workspace online on A' });
    const watcher = await browser(replicaA.wsUrl, await ticketFrom(replicaA, workspaceId, 'user-watch', ORIGIN), ORIGIN);
    peers.push(watcher);
    watcher.send(frames.ack(workspaceId, -1));
    old.send(10);
    await watcher.waitFor((frame) => frame.type === 'runtime.event', 'the old stream at a browser on A', 10);
    await waitUntil(async () => (await framesLogged(replicaA)) >= 10, { what: 'the old stream in the log' });

    // A dies; the Companion (restarted: a new stream from 0) comes back on B.
    await replicaA.kill();
    old.close();
    const live = new ReplayingCompanion(device, (sequence) => `new-${sequence}`);
    await live.connect(replicaB.wsUrl);
    peers.push(live.peer as TestPeer);
    await waitUntil(async () => (await statusFrom(replicaB, workspaceId)).status === 'online', { what: 'the workspace online on B' });

    // A comes back (as a process without a fixed RELAY_REPLICA_ID would: under a new id, so its presence feed
    // starts from now) and rebuilds its rings from the log; a browser connects to A, then the live Companion streams.
    replicaA = await replica('replica-a-restarted');
    const restarted = replicaA;
    const applied: string[] = [];
    const client = new RelayClient({
      descriptor: async () => ({
        connectUrl: `${restarted.wsUrl}/v1/browser?ticket=${encodeURIComponent(await ticketFrom(restarted, workspaceId, 'user-new', ORIGIN))}`,
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      }),
      createSocket: (url) => new WebSocket(url, { origin: ORIGIN }),
      allowInsecureLoopback: true,
    });
    client.on('error', () => undefined);
    client.on('frame', (frame) => {
      const delta = (frame as { event?: { event?: { delta?: string } } }).event?.event?.delta;
      if (delta) applied.push(delta);
    });
    try {
      await client.connect();
      live.send(5);
      await waitUntil(() => applied.includes('new-4'), { what: "the live Companion's frames applied by the browser on A", timeoutMs: 30_000 }).catch(
        (error: unknown) => {
          throw new Error(`${String(error)} applied: ${applied.join(' ')}`);
        },
      );
      expect(applied.filter((marker) => marker.startsWith('new-'))).toEqual(['new-0', 'new-1', 'new-2', 'new-3', 'new-4']);
      // The dead Companion's frames were never served as current after the new stream began.
      expect(applied.slice(applied.indexOf('new-0'))).toEqual(['new-0', 'new-1', 'new-2', 'new-3', 'new-4']);
    } finally {
      client.close();
    }
  }, 300_000);
});
