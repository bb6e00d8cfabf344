/**
 * The real parts of a load run: simulated Companions (CompanionSession over the simulated runtime, the
 * simulator's transport), the simulated runtime's seeded load generator, and browsers built on
 * `@trustmesh/relay-client` over `ws`.
 */
import { RelayClient, type WebSocketLike } from '@trustmesh/relay-client';
import { createLoadTurnGenerator, startLoadDriver, type LoadTurnOptions } from '@trustmesh/relay-companion-sim';

import type { CompanionBehaviour } from '../config/simulator-config';
import { CompanionSimulator } from '../simulator/companion-simulator';
import { createCompanionCore, createRuntime, DEFAULT_BEHAVIOUR } from '../simulator/companion.factory';
import type { LoadStack } from './load-driver';

export interface SimulatorLoadStackOptions {
  /** Companion policies and runtime options (defaults: every method served, approvals allowed). */
  behaviour?: CompanionBehaviour;
  /** Shape of the generated turns (frames per turn, bytes per frame...). */
  turns?: Omit<LoadTurnOptions, 'seed'>;
}

export function simulatorLoadStack(options: SimulatorLoadStackOptions = {}): LoadStack {
  const behaviour = options.behaviour ?? DEFAULT_BEHAVIOUR;
  return {
    createCompanion({ identity, companionUrl, tls, wireVersion, observer }) {
      return new CompanionSimulator({
        identity,
        companionUrl,
        tls,
        wireVersion,
        observer,
        createRuntime: () => createRuntime(behaviour),
        createCore: (runtime) => createCompanionCore(runtime, { workspaceId: identity.workspaceId, wireVersion, behaviour }),
      });
    },
    startTurns(companion, { turnIntervalMs, seed }) {
      const driver = startLoadDriver({
        runtime: companion.runtime,
        generator: createLoadTurnGenerator({ ...options.turns, seed }),
        ...(turnIntervalMs !== undefined ? { intervalMs: turnIntervalMs } : {}),
      });
      return { stop: () => driver.stop() };
    },
    createBrowser(context) {
      const client = new RelayClient({
        descriptor: context.descriptor,
        createSocket: (url) => context.createSocket(url) as unknown as WebSocketLike,
        acceptedWireVersions: context.wireVersions.filter((v): v is '1.2' | '1.1' => v === '1.2' || v === '1.1'),
        allowInsecureLoopback: true,
      });
      let readies = 0;
      client.on('ready', () => {
        readies += 1;
        if (readies > 1) context.reconnected();
      });
      client.on('error', (error) => context.error(error.code));
      return {
        start: () => client.connect(),
        close: async () => client.close(),
      };
    },
  };
}
