/**
 * `npm run bench:relay-protocol`: frames per second for JSON.parse alone (the baseline) and for the
 * relay's full inbound path (size check, strict parse — duplicate keys and nesting depth, then
 * JSON.parse —, Wire 1.2 schema, direction allowlist, and method params for requests), over a
 * realistic mix of frames of every type. Both are measured in the same
 * run, interleaved round by round so machine noise hits both alike; the goal is the median of the
 * per-round ratios.
 *
 * Goal: parse + validation at least half as fast as parse alone (`goal validate-vs-parse` ≥ 0.5).
 */
import { performance } from 'node:perf_hooks';

import { decodeFrame, type Direction } from '@trustmesh/relay-protocol';

const WORKSPACE = '6d1f3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d';
const THREAD = '5e4d3c2b-1a09-4f8e-a7d6-c5b4a3928170';
const TURN = '7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2918';
const RUNTIME = '2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901';
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const at = (n: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, n)).toISOString();

let sequence = 0;
const event = (inner: Record<string, unknown>) => {
  sequence += 1;
  return {
    type: 'runtime.event',
    workspaceId: WORKSPACE,
    relaySequence: sequence,
    event: { protocolVersion: '1.1', runtimeInstanceId: RUNTIME, sequence, timestamp: at(sequence % 60), threadId: THREAD, turnId: TURN, event: inner },
  };
};
const tool = { toolCallId: 'call-42', agentName: 'workspace-agent', toolName: 'run_tests' };
const snapshot = {
  thread: { id: THREAD, title: 'Release checklist', model: 'agent-large', createdAt: at(0), updatedAt: at(9), messageCount: 12 },
  messages: {
    items: Array.from({ length: 12 }, (_, i) => ({
      sequence: i,
      role: i % 2 === 0 ? 'user' : 'assistant',
      createdAt: at(i),
      parts: [{ type: 'text', text: `Message ${i}: ${'The deployment pipeline finished its checks. '.repeat(3)}` }],
    })),
    nextBeforeSequence: null,
  },
  operations: {
    items: Array.from({ length: 4 }, (_, i) => ({
      id: uuid(100 + i),
      sequence: i,
      ...tool,
      createdAt: at(i),
      outcome: { kind: 'success' },
      display: null,
      appOutput: { status: 'not_provided' },
    })),
    nextBeforeSequence: null,
  },
  pendingApprovals: [],
  transcriptCompleteness: 'complete',
};

/** One realistic slice of traffic: a turn is mostly message deltas, acked as they are applied. */
interface BenchFrame {
  text: string;
  direction: Direction;
  /** The frame belongs to a workspace with end-to-end encryption, whose sockets carry envelopes. */
  encryption: boolean;
}

function trafficMix(): BenchFrame[] {
  const companion: Direction = 'companion-to-relay';
  const browser: Direction = 'browser-to-relay';
  const frames: Array<[unknown, Direction]> = [
    [{ type: 'device.connect', protocolVersion: '1.2', deviceId: uuid(1), pairingToken: 'device-credential-0123456789abcdef' }, companion],
    [{ type: 'runtime.request', requestId: uuid(2), workspaceId: WORKSPACE, method: 'thread.list', params: { limit: 50 } }, browser],
    [{ type: 'runtime.request', requestId: uuid(3), workspaceId: WORKSPACE, method: 'turn.start', params: { requestId: uuid(4), threadId: THREAD, turnId: TURN, input: { text: 'Run the release checks and summarise failures.' } } }, browser],
    [{ type: 'runtime.request', requestId: uuid(5), workspaceId: WORKSPACE, method: 'thread.snapshot', params: { threadId: THREAD, limit: 100 } }, browser],
    [{ type: 'runtime.response', requestId: uuid(3), workspaceId: WORKSPACE, result: { accepted: true, turnId: TURN } }, companion],
    [{ type: 'runtime.response', requestId: uuid(5), workspaceId: WORKSPACE, result: snapshot }, companion],
    [event({ type: 'turn.started' }), companion],
    [event({ type: 'reasoning.summary.delta', reasoningId: 'r-1', delta: 'Planning the checks to run.' }), companion],
    [event({ type: 'message.started', streamId: uuid(6) }), companion],
    ...Array.from({ length: 24 }, (): [unknown, Direction] => [event({ type: 'message.delta', streamId: uuid(6), delta: 'Running the integration suite now; ' }), companion]),
    [event({ type: 'tool.started', ...tool }), companion],
    [event({ type: 'tool.completed', ...tool, outcome: { kind: 'success' }, operationId: uuid(7), appOutput: { status: 'available', schemaId: 'test-report', schemaVersion: 1 } }), companion],
    [event({ type: 'approval.required', approval: { approvalId: uuid(8), agentName: 'workspace-agent', toolName: 'deploy', explanation: 'Deploy build 1842 to staging' } }), companion],
    [{ type: 'interaction.request', workspaceId: WORKSPACE, relaySequence: ++sequence, interactionId: uuid(9), threadId: THREAD, turnId: TURN, expiresAt: at(59), sensitivity: 'normal', method: 'approval.request', projection: { approvalId: uuid(8), agentName: 'workspace-agent', toolName: 'deploy', explanation: 'Deploy build 1842 to staging' } }, companion],
    [{ type: 'runtime.request', requestId: uuid(10), workspaceId: WORKSPACE, method: 'interaction.candidate', params: { interactionId: uuid(9), threadId: THREAD, turnId: TURN, method: 'approval.request', candidate: { decision: 'approve' } } }, browser],
    [{ type: 'interaction.resolved', workspaceId: WORKSPACE, relaySequence: ++sequence, interactionId: uuid(9), threadId: THREAD, turnId: TURN, method: 'approval.request' }, companion],
    [event({ type: 'approval.resolved', approvalId: uuid(8), resolution: { status: 'resolved', decision: 'approve' } }), companion],
    [event({ type: 'message.completed', streamId: uuid(6), text: 'All 412 checks passed; staging deploy approved.' }), companion],
    [event({ type: 'turn.completed' }), companion],
    [{ type: 'runtime.gap', workspaceId: WORKSPACE, fromRelaySequence: 0, throughRelaySequence: 3, recovery: 'thread.snapshot' }, companion],
    ...Array.from({ length: 8 }, (_, i): [unknown, Direction] => [{ type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: i * 4 }, browser]),
    [{ type: 'interaction.cancelled', workspaceId: WORKSPACE, relaySequence: ++sequence, interactionId: uuid(11), threadId: THREAD, turnId: TURN, method: 'userInput.request' }, companion],
  ];
  const encrypted = {
    type: 'runtime.encrypted',
    workspaceId: WORKSPACE,
    envelopeId: uuid(12),
    payloadKind: 'event',
    relaySequence: ++sequence,
    algorithm: 'X25519-HKDF-SHA256/AES-256-GCM',
    nonce: 'q83vEjRWeJCrze8S',
    ciphertext: Buffer.from('x'.repeat(300)).toString('base64'),
  };
  return [
    ...frames.map(([frame, direction]) => ({ text: JSON.stringify(frame), direction, encryption: false })),
    { text: JSON.stringify(encrypted), direction: companion, encryption: true },
  ];
}

function measure(label: string, frames: BenchFrame[], work: (frame: BenchFrame) => unknown, minMillis: number): number {
  let count = 0;
  let sink = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMillis) {
    for (const frame of frames) {
      if (work(frame)) sink += 1;
      count += 1;
    }
    elapsed = performance.now() - start;
  }
  if (sink !== count) throw new Error(`${label}: ${count - sink} frames failed`);
  return (count / elapsed) * 1000;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const format = (value: number) => Math.round(value).toLocaleString('en-US');

function main(): void {
  const frames = trafficMix();
  const bytes = frames.reduce((sum, frame) => sum + Buffer.byteLength(frame.text), 0);
  const types = new Set(frames.map((frame) => (JSON.parse(frame.text) as { type: string }).type));
  const parseOnly = (frame: { text: string }) => JSON.parse(frame.text) as unknown;
  const checks = { methodParams: true };
  const fullValidation = (frame: BenchFrame) =>
    decodeFrame(frame.text, { wire: '1.2', direction: frame.direction, encryption: frame.encryption, checks }).ok;

  // Warm both paths up so the JIT has compiled them before anything is timed.
  measure('warm-up parse', frames, parseOnly, 500);
  measure('warm-up validate', frames, fullValidation, 1_000);

  const rounds = 7;
  const parseRates: number[] = [];
  const validateRates: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    parseRates.push(measure('JSON.parse', frames, parseOnly, 400));
    validateRates.push(measure('parse + validation', frames, fullValidation, 400));
  }
  const parse = median(parseRates);
  const validate = median(validateRates);
  // Each round measures both back to back, so its ratio cancels drift in clock speed and load; the
  // goal is the median of the per-round ratios.
  const ratio = median(parseRates.map((rate, i) => (validateRates[i] ?? 0) / rate));
  console.log(`relay-protocol benchmark: ${frames.length} frames per slice, ${types.size} frame types, ${Math.round(bytes / frames.length)} bytes on average`);
  console.log(`node ${process.version}, ${rounds} interleaved rounds of 400 ms each, medians:`);
  console.log(`  baseline JSON.parse alone:             ${format(parse)} frames/s`);
  console.log(`  parse + full validation (Wire 1.2):    ${format(validate)} frames/s`);
  console.log(`  per round (parse / validate): ${parseRates.map((rate, i) => `${format(rate)}/${format(validateRates[i] ?? 0)}`).join('  ')}`);
  console.log(`  validate/parse ratio per round: ${parseRates.map((rate, i) => ((validateRates[i] ?? 0) / rate).toFixed(2)).join(' ')}`);
  console.log(`goal validate-vs-parse: ${ratio.toFixed(2)}`);
}

main();
