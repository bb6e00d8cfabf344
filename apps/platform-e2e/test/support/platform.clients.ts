/**
 * The clients the people and services around Trustmesh have, pointed at the app processes of the world:
 * RelayControl over gRPC (a product backend creating workspaces, pairing codes, browser tickets and a
 * workspace's card), SimulatorControl over gRPC (a test harness driving the Companion), and plain HTTP with
 * a bearer (the registry's and the Shield's REST APIs). Generated gRPC clients from `@trustmesh/contracts`; nothing
 * here knows an app's internals.
 */
import { randomUUID } from 'node:crypto';

import { Metadata, credentials, type Client, type ServiceError } from '@grpc/grpc-js';
import { relayControlV1GrpcJs, simulatorControlV1, simulatorControlV1GrpcJs } from '@trustmesh/contracts';

type Unary<Req, Res> = (request: Req, metadata: Metadata, callback: (error: ServiceError | null, response: Res) => void) => unknown;

function bearer(credential: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${credential}`);
  return metadata;
}

function unary<Req, Res>(client: Client, method: Unary<Req, Res>, request: Req, metadata: Metadata): Promise<Res> {
  return new Promise((resolve, reject) => method.call(client, request, metadata, (error, response) => (error ? reject(error) : resolve(response))));
}

export interface RelayControl {
  createWorkspace(displayName: string): Promise<string>;
  createPairingCode(workspaceId: string): Promise<string>;
  /** A single-use browser ticket of `workspaceId` for `origin` (CreateBrowserSession). */
  browserTicket(workspaceId: string, origin: string): Promise<string>;
  /** PublishWorkspaceCard as the workspace's owner: the card's identifier and the revision the relay publishes. */
  publishWorkspaceCard(workspaceId: string, card: { name: string; description: string; tags: string[] }): Promise<{ identifier: string; revision: string }>;
  close(): void;
}

export function relayControl(address: string, credential: string): RelayControl {
  const client = new relayControlV1GrpcJs.RelayControlClient(address, credentials.createInsecure());
  const auth = bearer(credential);
  return {
    async createWorkspace(displayName) {
      const { workspace } = await unary<relayControlV1GrpcJs.CreateWorkspaceRequest, relayControlV1GrpcJs.CreateWorkspaceResponse>(client, client.createWorkspace, { requestId: randomUUID(), ownerUserId: 'user-1', displayName, endToEndEncrypted: false }, auth);
      return workspace!.workspaceId;
    },
    async createPairingCode(workspaceId) {
      return (await unary<relayControlV1GrpcJs.CreatePairingCodeRequest, relayControlV1GrpcJs.CreatePairingCodeResponse>(client, client.createPairingCode, { workspaceId, ttlSeconds: 0, requestedByUserId: 'user-1' }, auth)).pairingCode;
    },
    async browserTicket(workspaceId, origin) {
      const { descriptor } = await unary<relayControlV1GrpcJs.CreateBrowserSessionRequest, relayControlV1GrpcJs.CreateBrowserSessionResponse>(
        client,
        client.createBrowserSession, { workspaceId, origin, acceptedWireVersions: ['1.2', '1.1'], userId: 'user-1' }, auth);
      const ticket = descriptor ? new URL(descriptor.connectUrl).searchParams.get('ticket') : null;
      if (!ticket) throw new Error('CreateBrowserSession returned no ticket');
      return ticket;
    },
    async publishWorkspaceCard(workspaceId, card) {
      const { identifier, revision } = await unary<relayControlV1GrpcJs.PublishWorkspaceCardRequest, relayControlV1GrpcJs.PublishWorkspaceCardResponse>(
        client,
        client.publishWorkspaceCard, { workspaceId, requestedByUserId: 'user-1', ...card }, auth);
      return { identifier, revision };
    },
    close: () => client.close(),
  };
}

export interface SimulatorControl {
  /** Starts a scenario (YAML); resolves once the simulator accepted it. */
  startScenario(document: string): Promise<void>;
  scenarioCompleted(): Promise<boolean>;
  close(): void;
}

export function simulatorControl(address: string, credential: string): SimulatorControl {
  const client = new simulatorControlV1GrpcJs.SimulatorControlClient(address, credentials.createInsecure());
  const auth = bearer(credential);
  return {
    async startScenario(document) {
      await unary<simulatorControlV1GrpcJs.StartScenarioRequest, simulatorControlV1GrpcJs.StartScenarioResponse>(client, client.startScenario, { document, format: 'yaml' }, auth);
    },
    async scenarioCompleted() {
      const stats = await unary<simulatorControlV1GrpcJs.GetStatsRequest, simulatorControlV1GrpcJs.GetStatsResponse>(client, client.getStats, {}, auth);
      return stats.scenario?.state === simulatorControlV1.ScenarioRunState.COMPLETED;
    },
    close: () => client.close(),
  };
}

export interface HttpReply {
  status: number;
  /** The parsed JSON body, undefined when there is none. */
  body: any;
  text: string;
}

/** A JSON request with a bearer to `baseUrl`; the body is sent as it is when it is a string. */
export async function httpCall(baseUrl: string, method: string, path: string, token: string, body?: unknown): Promise<HttpReply> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
}
