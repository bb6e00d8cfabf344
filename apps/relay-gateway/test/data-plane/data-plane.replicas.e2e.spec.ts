/**
 * Two gateway replicas as two processes on one Kafka cluster (librdkafka's mock): a browser on replica A
 * and its Companion on replica B still work, in order, with nothing lost and nothing delivered twice.
 * Requests and ACKs cross through relay.companion-inbound.v1, responses and sequenced frames through
 * relay.workspace-frames.v1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { frames } from './support/frames';
import { browser, companion, type TestPeer } from './support/peers';

const workspaceRoot = join(__dirname, '../../../..');
const ORIGIN = 'https://app.example';
const workspaceId = randomUUID();
const device = { deviceId: randomUUID(), workspaceId, credential: `cred-${randomUUID()}` };
const tickets = [0, 1, 2].map(() => `ticket-${randomUUID()}`);
const children: ChildProcess[] = [];
const peers: TestPeer[] = [];
let replicaA: string;
let replicaB: string;

function startReplica(replicaId: string, prefix: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'support', 'gateway.process.ts')], {
    cwd: workspaceRoot,
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: join(workspaceRoot, 'tsconfig.base.json'),
      KAFKA_BROKERS: cluster.brokers.join(','),
      TOPIC_PREFIX: prefix,
      REPLICA_ID: replicaId,
      STATUS_TOPIC: 'test.relay-status.v1',
      FIXTURE: JSON.stringify({ devices: [device], tickets: tickets.map((ticket) => [ticket, { workspaceId, origin: ORIGIN, userId: 'user-1' }]) }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); if (process.env['DEBUG_SHUTDOWN']) process.stderr.write(chunk); });
  return new Promise((resolve, reject) => {
    let partial = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const message = JSON.parse(line) as { event: string; wsUrl: string };
        if (message.event === 'ready') resolve(message.wsUrl);
      }
    });
    child.once('exit', (code) => reject(new Error(`replica ${replicaId} exited with ${code}: ${stderr.slice(-2000)}`)));
  });
}

// Registered before the cluster's own hooks so the replicas stop while Kafka is still up.
afterAll(async () => {
  for (const peer of peers) peer.close();
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          // A replica that cannot leave its groups in time is not what this file tests: stop it hard.
          setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
        }),
    ),
  );
});

const cluster = useKafkaCluster();

beforeAll(async () => {
  const prefix = `t${randomUUID().slice(0, 8)}.`;
  [replicaA, replicaB] = await Promise.all([startReplica('replica-a', prefix), startReplica('replica-b', prefix)]);
}, 120_000);

it('serves a browser on replica A and its Companion on replica B, in order, nothing lost or doubled', async () => {
  const peer = await companion(replicaB, frames.deviceConnect(device.deviceId, device.credential));
  peers.push(peer);
  const session = await browser(replicaA, tickets[0] as string, ORIGIN);
  peers.push(session);
  // Replica A learns that the Companion (on B) is online from the directory's cross-replica status.
  if (session.received[0]?.['workspaceStatus'] !== 'online') {
    await session.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'online', 'online');
  }
  session.send(frames.ack(workspaceId, -1));
  const [ack] = await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK at the Companion');
  expect(ack).toEqual(frames.ack(workspaceId, -1));

  // Requests cross A → B, responses B → A, to the requester only.
  const requests = [0, 1, 2].map(() => frames.request(workspaceId));
  for (const request of requests) session.send(request);
  const received = await peer.waitFor((frame) => frame.type === 'runtime.request', 'the requests', 3);
  expect(received).toEqual(requests);
  for (const request of requests) peer.send(frames.response(workspaceId, request.requestId));

  // Sequenced frames cross B → A in order, interleaved with the responses.
  const sent = Array.from({ length: 50 }, (_, sequence) => frames.event(workspaceId, sequence));
  for (const frame of sent) peer.send(frame);
  const events = await session.waitFor((frame) => frame.type === 'runtime.event', 'the events', 50);
  const responses = await session.waitFor((frame) => frame.type === 'runtime.response', 'the responses', 3);
  expect(events).toEqual(sent);
  expect(responses.map((frame) => frame['requestId'])).toEqual(requests.map((request) => request.requestId));

  // A second browser on B (the Companion's replica, the in-process fast path) sees the same stream once.
  const local = await browser(replicaB, tickets[1] as string, ORIGIN);
  peers.push(local);
  local.send(frames.ack(workspaceId, 49));
  session.send(frames.ack(workspaceId, 49));
  peer.send(frames.event(workspaceId, 50));
  await local.waitFor((frame) => frame.type === 'runtime.event', 'the live event on B');
  await session.waitFor((frame) => frame.type === 'runtime.event', 'the live event on A', 51);
  // Give both paths every chance to deliver twice, then check nobody got a frame twice.
  const marker = frames.request(workspaceId);
  session.send(marker);
  await peer.waitFor((frame) => frame.type === 'runtime.request', 'the marker request', 4);
  peer.send(frames.response(workspaceId, marker.requestId));
  await session.waitFor((frame) => frame.type === 'runtime.response', 'the marker response', 4);
  const sequences = session.ofType('runtime.event').map((frame) => frame['relaySequence']);
  expect(sequences).toEqual(Array.from({ length: 51 }, (_, sequence) => sequence));
  expect(local.ofType('runtime.event').map((frame) => frame['relaySequence'])).toEqual([50]);
  await waitUntil(() => peer.ofType('runtime.ack').length >= 3, { what: 'the ACKs from both replicas' });
});
