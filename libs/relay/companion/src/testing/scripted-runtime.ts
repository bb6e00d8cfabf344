/**
 * A tiny scripted AgentRuntime for this library's specs (not exported). Every raw, secret-bearing
 * field carries SENTINEL so the specs can prove no emitted frame contains it.
 */
import type { RuntimeEventEnvelope, Wire12 } from '@trustmesh/relay-protocol';

import {
  AgentRuntimeError,
  type AgentRuntime,
  type AgentRuntimeListener,
  type RuntimeCapabilitiesManifest,
  type RuntimeDescription,
  type RuntimeOperation,
  type RuntimeOperationResult,
  type RuntimeServerRequest,
  type RuntimeThread,
  type RuntimeThreadPage,
  type RuntimeThreadSnapshot,
  type ServerRequestCancelReason,
  type ServerRequestResolution,
} from '../agent-runtime.port';

export const SENTINEL = 'relay-security-sentinel';
export const WORKSPACE = '6d1f3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d';
export const OTHER_WORKSPACE = '0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d';
export const THREAD = '5e4d3c2b-1a09-4f8e-a7d6-c5b4a3928170';
export const TURN = '7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2918';
export const RUNTIME_INSTANCE = '2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901';
export const OPERATION = '3c4d5e6f-7081-4293-a4b5-c6d7e8f90a1b';
export const APPROVAL = '4d5e6f70-8192-43a4-b5c6-d7e8f90a1b2c';
export const STREAM = '8a9b0c1d-2e3f-4a5b-8c7d-9e0f1a2b3c4d';
export const AT = '2026-11-30T12:00:00Z';

/** Deterministic v4-shaped UUIDs: uuid(1) = 00000000-0000-4000-8000-000000000001. */
export const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export const rawThread = (id = THREAD, title = 'Release'): RuntimeThread => ({
  id,
  title,
  createdAt: AT,
  updatedAt: AT,
  messageCount: 2,
  workingDirectory: `/home/${SENTINEL}`,
});

export const rawOperation = (overrides: Partial<RuntimeOperation> = {}): RuntimeOperation => ({
  id: OPERATION,
  sequence: 0,
  toolCallId: 'call-1',
  agentName: 'agent',
  toolName: 'deploy',
  createdAt: AT,
  outcome: { kind: 'success', reason: SENTINEL },
  display: { stdout: SENTINEL },
  rawInput: SENTINEL,
  ...overrides,
});

export const rawSnapshot = (): RuntimeThreadSnapshot => ({
  thread: rawThread(),
  messages: {
    items: [
      { sequence: 0, role: 'user', createdAt: AT, parts: [{ type: 'text', text: 'ship it' }] },
      { sequence: 1, role: 'assistant', createdAt: AT, parts: [{ type: 'text', text: 'done' }, { type: 'image', data: SENTINEL }] },
    ],
    nextBeforeSequence: null,
  },
  operations: { items: [rawOperation({ appOutput: { status: 'available', schemaId: 'deploy/v1', schemaVersion: 1 } })], nextBeforeSequence: null },
  activeTurn: { id: TURN, status: 'waiting-for-user', startedAt: AT, pendingPrompt: SENTINEL },
  pendingApprovals: [{ id: APPROVAL, turnId: TURN, agentName: 'agent', toolName: 'deploy', preview: { explanation: 'Ship', diff: SENTINEL }, reason: SENTINEL }],
  transcriptCompleteness: 'complete',
  pendingInteractions: [{ secret: SENTINEL }],
  eventCursor: SENTINEL,
});

export const rawManifest = (): RuntimeCapabilitiesManifest => ({
  cwd: '/work',
  tools: [{ agentName: 'agent', toolName: 'deploy', appOutput: { schemaId: 'deploy/v1', remoteReadable: true } }, { agentName: 'agent', toolName: 'ls' }],
  appOutput: { supported: true },
});

export const rawOperationResult = (remoteReadable = true): RuntimeOperationResult => ({
  threadId: THREAD,
  operationId: OPERATION,
  agentName: 'agent',
  toolName: 'deploy',
  createdAt: AT,
  output: { status: 'available', schemaId: 'deploy/v1', schemaVersion: 1, remoteReadable, data: { url: 'https://example.test', token: SENTINEL }, fallbackText: SENTINEL },
  rawOutput: SENTINEL,
});

let sequence = 0;
/** A raw timeline envelope with the Runtime fields the projection must strip. */
export function rawEvent(event: RuntimeEventEnvelope['event'], turnId: string | undefined = TURN): RuntimeEventEnvelope {
  return {
    protocolVersion: '1.5',
    runtimeInstanceId: RUNTIME_INSTANCE,
    sequence: sequence++,
    timestamp: AT,
    threadId: THREAD,
    ...(turnId ? { turnId } : {}),
    event,
    id: SENTINEL,
    eventCursor: SENTINEL,
  };
}

/** Every raw event type, each with SENTINEL in its secret-bearing fields. */
export const everyRawEvent = (): RuntimeEventEnvelope[] => [
  rawEvent({ type: 'turn.started' }),
  rawEvent({ type: 'message.started', streamId: STREAM }),
  rawEvent({ type: 'message.delta', streamId: STREAM, delta: 'Hel' }),
  rawEvent({ type: 'message.completed', streamId: STREAM, text: 'Hello' }),
  rawEvent({ type: 'reasoning.summary.delta', reasoningId: 'r1', delta: 'thinking' }),
  rawEvent({ type: 'tool.started', toolCallId: 'call-1', agentName: 'agent', toolName: 'deploy', input: { password: SENTINEL } }),
  rawEvent({ type: 'tool.output', toolCallId: 'call-1', agentName: 'agent', toolName: 'deploy', stream: 'stdout', delta: SENTINEL }),
  rawEvent({
    type: 'tool.completed',
    toolCallId: 'call-1',
    agentName: 'agent',
    toolName: 'deploy',
    operationId: OPERATION,
    outcome: { kind: 'tool_failed', reason: SENTINEL },
    display: { stderr: SENTINEL },
    appOutput: { status: 'available', schemaId: 'deploy/v1', schemaVersion: 1 },
  }),
  rawEvent({
    type: 'approval.required',
    approval: { id: APPROVAL, turnId: TURN, agentName: 'agent', toolName: 'deploy', preview: { explanation: 'Deploy to prod', command: SENTINEL }, reason: SENTINEL },
  }),
  rawEvent({ type: 'approval.resolved', approvalId: APPROVAL, resolution: { status: 'resolved', decision: 'reject', reason: SENTINEL } }),
  rawEvent({ type: 'approval.resolved', approvalId: APPROVAL, resolution: { status: 'cancelled', reason: SENTINEL } }),
  rawEvent({ type: 'capabilities.changed' }),
  rawEvent({ type: 'turn.failed', stage: 'execute', message: SENTINEL }),
  rawEvent({ type: 'turn.cancelled', reason: SENTINEL, message: SENTINEL }),
];

export const approvalRequest = (overrides: Partial<RuntimeServerRequest> = {}): RuntimeServerRequest => ({
  serverRequestId: `jsonrpc-${SENTINEL}-1`,
  interactionId: uuid(900),
  threadId: THREAD,
  turnId: TURN,
  expiresAt: '2026-11-30T12:05:00Z',
  request: {
    method: 'approval.request',
    approval: { id: APPROVAL, agentName: 'agent', toolName: 'deploy', preview: { explanation: '  Deploy to prod  ', command: SENTINEL }, reason: SENTINEL, input: { token: SENTINEL } },
  },
  ...overrides,
});

export const userInputRequest = (overrides: Partial<RuntimeServerRequest> = {}): RuntimeServerRequest => ({
  serverRequestId: `jsonrpc-${SENTINEL}-2`,
  interactionId: uuid(901),
  threadId: THREAD,
  turnId: TURN,
  expiresAt: '2026-11-30T12:05:00Z',
  request: {
    method: 'userInput.request',
    form: {
      title: 'Deploy settings',
      secretNote: SENTINEL,
      controls: [
        { type: 'text', id: 'name', label: 'Name', required: true, maxLength: 20, defaultValue: SENTINEL },
        { type: 'choice', id: 'region', label: 'Region', required: true, multiple: false, options: [{ id: 'eu', label: 'EU', hint: SENTINEL }, { id: 'us', label: 'US' }] },
        { type: 'number', id: 'replicas', label: 'Replicas', required: false, min: 1, max: 5, integer: true },
      ],
    },
  },
  ...overrides,
});

type Handler<A, R> = (params: A) => Promise<R>;

/** Overridable per method; default handlers return SENTINEL-laden raw data. */
export class ScriptedRuntime implements AgentRuntime {
  description: RuntimeDescription = { runtimeInstanceId: RUNTIME_INSTANCE, runtimeProtocolVersion: '1.5', appResults: true };
  boundTo: string | undefined;
  shutDown = false;
  readonly resolved: Array<{ serverRequestId: string; resolution: ServerRequestResolution }> = [];
  readonly cancelled: Array<{ serverRequestId: string; reason: ServerRequestCancelReason }> = [];
  readonly calls: string[] = [];
  private listeners = new Set<AgentRuntimeListener>();

  listThreadsHandler: Handler<Wire12.ThreadListParams, RuntimeThreadPage> = async () => ({ items: [rawThread(), rawThread(uuid(2), 'Second')], nextCursor: '2' });
  createThreadHandler: Handler<Wire12.ThreadCreateParams, RuntimeThread> = async (params) => rawThread(uuid(3), params.title ?? 'New');
  readThreadHandler: Handler<Wire12.ThreadSnapshotParams, RuntimeThreadSnapshot> = async () => rawSnapshot();
  renameThreadHandler: Handler<Wire12.ThreadRenameParams, RuntimeThread> = async (params) => rawThread(params.threadId, params.title);
  deleteThreadHandler: Handler<Wire12.ThreadDeleteParams, void> = async () => undefined;
  detachThreadHandler: Handler<Wire12.ThreadDetachParams, { detached: boolean }> = async () => ({ detached: true });
  capabilitiesHandler: Handler<Wire12.ThreadCapabilitiesParams, RuntimeCapabilitiesManifest> = async () => rawManifest();
  startTurnHandler: Handler<Wire12.TurnStartParams, { turnId: string }> = async (params) => ({ turnId: params.turnId });
  cancelTurnHandler: Handler<Wire12.TurnCancelParams, { cancelling: boolean }> = async () => ({ cancelling: true });
  operationHandler: Handler<Wire12.OperationGetParams, RuntimeOperation | null> = async () => rawOperation();
  operationResultHandler: Handler<Wire12.OperationResultGetParams, RuntimeOperationResult | null> = async () => rawOperationResult();
  resolveHandler: (serverRequestId: string, resolution: ServerRequestResolution) => Promise<void> = async () => undefined;

  describe(): RuntimeDescription {
    return this.description;
  }
  async bindWorkspace(workspaceId: string): Promise<void> {
    this.boundTo = workspaceId;
  }
  async unbindWorkspace(): Promise<void> {
    this.boundTo = undefined;
  }
  async shutdown(): Promise<void> {
    this.shutDown = true;
  }
  subscribe(listener: AgentRuntimeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  listThreads(params: Wire12.ThreadListParams) {
    return this.call('listThreads', () => this.listThreadsHandler(params));
  }
  createThread(params: Wire12.ThreadCreateParams) {
    return this.call('createThread', () => this.createThreadHandler(params));
  }
  readThread(params: Wire12.ThreadSnapshotParams) {
    return this.call('readThread', () => this.readThreadHandler(params));
  }
  renameThread(params: Wire12.ThreadRenameParams) {
    return this.call('renameThread', () => this.renameThreadHandler(params));
  }
  deleteThread(params: Wire12.ThreadDeleteParams) {
    return this.call('deleteThread', () => this.deleteThreadHandler(params));
  }
  detachThread(params: Wire12.ThreadDetachParams) {
    return this.call('detachThread', () => this.detachThreadHandler(params));
  }
  getCapabilities(params: Wire12.ThreadCapabilitiesParams) {
    return this.call('getCapabilities', () => this.capabilitiesHandler(params));
  }
  startTurn(params: Wire12.TurnStartParams) {
    return this.call('startTurn', () => this.startTurnHandler(params));
  }
  cancelTurn(params: Wire12.TurnCancelParams) {
    return this.call('cancelTurn', () => this.cancelTurnHandler(params));
  }
  getOperation(params: Wire12.OperationGetParams) {
    return this.call('getOperation', () => this.operationHandler(params));
  }
  getOperationResult(params: Wire12.OperationResultGetParams) {
    return this.call('getOperationResult', () => this.operationResultHandler(params));
  }
  async resolveServerRequest(serverRequestId: string, resolution: ServerRequestResolution): Promise<void> {
    await this.resolveHandler(serverRequestId, resolution);
    this.resolved.push({ serverRequestId, resolution });
  }
  async cancelServerRequest(serverRequestId: string, reason: ServerRequestCancelReason): Promise<void> {
    this.cancelled.push({ serverRequestId, reason });
  }

  // Script controls.
  emit(envelope: RuntimeEventEnvelope): void {
    for (const listener of this.listeners) listener.event(envelope);
  }
  raise(request: RuntimeServerRequest): void {
    for (const listener of this.listeners) listener.serverRequest(request);
  }
  endRequest(serverRequestId: string, outcome: 'resolved' | 'cancelled'): void {
    for (const listener of this.listeners) listener.serverRequestEnded({ serverRequestId, outcome });
  }
  get subscribers(): number {
    return this.listeners.size;
  }

  private async call<T>(name: string, run: () => Promise<T>): Promise<T> {
    this.calls.push(name);
    return run();
  }
}

/** A Runtime failure whose message must never cross. */
export const runtimeFailure = (code: string | number, retryable = false) => new AgentRuntimeError(code, `failed at /home/${SENTINEL}`, retryable);

/** A promise the test settles by hand. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
