/**
 * Small, valid frames for unit tests. Ids are fixed v4 UUIDs so failures are easy to read.
 */
export const WORKSPACE = '6d1f3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d';
export const OTHER_WORKSPACE = '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d';
export const DEVICE = '3b2a1c0d-9e8f-4a7b-b6c5-d4e3f2a1b0c9';
export const THREAD = '5e4d3c2b-1a09-4f8e-a7d6-c5b4a3928170';
export const TURN = '7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2918';
export const REQUEST = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
export const INTERACTION = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';
export const RUNTIME = '2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901';
export const SENTINEL = 'trustmesh-unit-sentinel';

export const deviceConnect = (version: string) => ({
  type: 'device.connect',
  protocolVersion: version,
  deviceId: DEVICE,
  pairingToken: 'device-credential-0123456789abcdef',
});

export const ack = (through: number, workspaceId = WORKSPACE) => ({ type: 'runtime.ack', workspaceId, throughRelaySequence: through });

export const request = (method: string, params: unknown, workspaceId = WORKSPACE) => ({
  type: 'runtime.request',
  requestId: REQUEST,
  workspaceId,
  method,
  params,
});

export const timelineEnvelope = (event: Record<string, unknown>, sequence = 0) => ({
  protocolVersion: '1.1',
  runtimeInstanceId: RUNTIME,
  sequence,
  timestamp: '2026-11-30T10:00:00.000Z',
  threadId: THREAD,
  turnId: TURN,
  event,
});

export const runtimeEvent = (event: Record<string, unknown>, relaySequence = 0) => ({
  type: 'runtime.event',
  workspaceId: WORKSPACE,
  relaySequence,
  event: timelineEnvelope(event, relaySequence),
});

export const sessionReady = (relayProtocolVersion = '1.2', workspaceId = WORKSPACE) => ({
  type: 'session.ready',
  controlVersion: '1.0',
  relayProtocolVersion,
  sessionId: 'session-1',
  workspaceId,
  workspaceStatus: 'online',
});

export const userInputForm = () => ({
  title: 'Deploy target',
  controls: [
    { type: 'choice', id: 'region', label: 'Region', required: true, multiple: false, options: [{ id: 'eu', label: 'EU' }, { id: 'us', label: 'US' }] },
    { type: 'text', id: 'note', label: 'Note', required: false, maxLength: 20 },
    { type: 'number', id: 'replicas', label: 'Replicas', required: true, min: 1, max: 5, integer: true },
    { type: 'boolean', id: 'dryRun', label: 'Dry run', required: false },
    { type: 'choice', id: 'zones', label: 'Zones', required: false, multiple: true, options: [{ id: 'a', label: 'A' }, { id: 'b', label: 'B' }, { id: 'c', label: 'C' }], maxSelections: 2 },
  ],
});

export const interactionRequest = (method: 'approval.request' | 'userInput.request', projection: unknown, relaySequence = 3) => ({
  type: 'interaction.request',
  workspaceId: WORKSPACE,
  relaySequence,
  interactionId: INTERACTION,
  threadId: THREAD,
  turnId: TURN,
  expiresAt: '2026-11-30T10:05:00.000Z',
  sensitivity: 'normal',
  method,
  projection,
});
