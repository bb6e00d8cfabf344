/**
 * Builds the real parts of a simulated Companion: the protocol core (`CompanionSession` of
 * `@trustmesh/relay-companion`) with the configured policies and optional cipher, over a simulated runtime
 * (`@trustmesh/relay-companion-sim`).
 */
import { readFile } from 'node:fs/promises';

import {
  CompanionSession,
  createRequestPolicy,
  type AgentRuntime,
  type CompanionCipher,
  type CompanionLimits,
  type CompanionPolicies,
  type DiagnosticSink,
} from '@trustmesh/relay-companion';
import { createScenarioRuntime, createSimulatedRuntime, type Scenario, type SimulatedRuntime } from '@trustmesh/relay-companion-sim';
import { createWorkspaceCipher, EncryptionError } from '@trustmesh/relay-encryption';

import type { CompanionBehaviour, SimulatorConfig, SimulatorWireVersion } from '../config/simulator-config';
import type { SimulatedCompanionCore } from './companion-simulator';
import { FileReplayJournal } from './file-replay-journal';

export const DEFAULT_BEHAVIOUR: CompanionBehaviour = {
  requestPolicy: 'all',
  denyMethods: [],
  approvalPolicy: 'allow',
  appResultGrants: [],
  sentinel: null,
  seed: null,
};

export function companionPolicies(behaviour: CompanionBehaviour): CompanionPolicies {
  const grants = new Set(behaviour.appResultGrants.map((grant) => `${grant.agentName}\u0000${grant.toolName}`));
  return {
    // `all`: requests naming another workspace get WORKSPACE_NOT_FOUND; `production` refuses them with
    // REMOTE_REQUEST_DENIED, as §8's production hosts do.
    request:
      behaviour.requestPolicy === 'all'
        ? createRequestPolicy({ allow: 'all', deny: behaviour.denyMethods })
        : createRequestPolicy({ deny: behaviour.denyMethods, boundWorkspaceOnly: true }),
    approval: () => behaviour.approvalPolicy,
    appResults: (agentName, toolName) => grants.has(`${agentName}\u0000${toolName}`),
  };
}

export interface CoreOptions {
  workspaceId: string;
  wireVersion: SimulatorWireVersion;
  behaviour?: CompanionBehaviour;
  cipher?: CompanionCipher;
  onDiagnostic?: DiagnosticSink;
  /** Replay buffer and cache bounds (the spec's defaults otherwise). */
  limits?: Partial<CompanionLimits>;
}

export function createCompanionCore(runtime: AgentRuntime, options: CoreOptions): SimulatedCompanionCore {
  return new CompanionSession({
    workspaceId: options.workspaceId,
    wireVersion: options.wireVersion,
    runtime,
    policies: companionPolicies(options.behaviour ?? DEFAULT_BEHAVIOUR),
    ...(options.cipher ? { cipher: options.cipher } : {}),
    ...(options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
}

/** A simulated runtime; for a scenario, configured as the scenario asks (its seed wins over the configured one). */
export function createRuntime(behaviour: CompanionBehaviour = DEFAULT_BEHAVIOUR, scenario?: Scenario): SimulatedRuntime {
  const sentinel = behaviour.sentinel !== null ? { sentinel: behaviour.sentinel } : {};
  if (scenario) return createScenarioRuntime(scenario, { ...(behaviour.seed !== null && scenario.runtime?.seed === undefined ? { seed: behaviour.seed } : {}), ...sentinel });
  return createSimulatedRuntime({ ...(behaviour.seed !== null ? { seed: behaviour.seed } : {}), ...sentinel });
}

/**
 * The workspace cipher from the configured key file and peer key; null without encryption. Its replay
 * window is kept in the configured journal, so an envelope opened before a restart is refused after it.
 */
export async function loadCompanionCipher(encryption: SimulatorConfig['encryption'], workspaceId: string): Promise<CompanionCipher | null> {
  if (!encryption) return null;
  const text = (await readFile(encryption.privateKeyFile, 'utf8')).trim();
  let privateKey: string | JsonWebKey = text;
  if (text.startsWith('{')) {
    try {
      privateKey = JSON.parse(text) as JsonWebKey;
    } catch {
      throw new Error('SIMULATOR_E2EE_PRIVATE_KEY_FILE holds neither a base64url PKCS#8 key nor a JWK');
    }
  }
  const replayJournal = new FileReplayJournal(encryption.replayJournalFile);
  try {
    // role companion: requests are opened at most once (the cipher keeps a replay window, README of relay-encryption).
    return await createWorkspaceCipher({ workspaceId, privateKey, peerPublicKey: encryption.peerPublicKey, role: 'companion', replayJournal });
  } catch (error) {
    if (!(error instanceof EncryptionError)) throw error;
    // The key material itself never appears in the message.
    throw new Error('the end-to-end encryption keys are not usable X25519 keys (SIMULATOR_E2EE_PRIVATE_KEY_FILE, SIMULATOR_E2EE_PEER_PUBLIC_KEY)');
  }
}
