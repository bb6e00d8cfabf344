/**
 * Test support: records everything a simulated runtime emits, on a manual clock.
 */
import type { RuntimeServerRequest, RuntimeServerRequestEnd } from '@trustmesh/relay-companion';
import type { RuntimeEventEnvelope } from '@trustmesh/relay-protocol';

import { createManualClock, type ManualClock } from '../clock/sim-clock';
import { createSimulatedRuntime, type SimDirective, type SimulatedRuntime, type SimulatedRuntimeOptions } from './simulated-runtime';

export const SENTINEL = 'relay-security-sentinel';

export interface Recorded {
  runtime: SimulatedRuntime;
  clock: ManualClock;
  events: RuntimeEventEnvelope[];
  requests: RuntimeServerRequest[];
  ended: RuntimeServerRequestEnd[];
  directives: SimDirective[];
  types(): string[];
}

export function recordedRuntime(options: SimulatedRuntimeOptions = {}): Recorded {
  const clock = createManualClock();
  const directives: SimDirective[] = [];
  const runtime = createSimulatedRuntime({ clock, seed: 7, sentinel: SENTINEL, onDirective: (directive) => directives.push(directive), ...options });
  const recorded: Recorded = {
    runtime,
    clock,
    events: [],
    requests: [],
    ended: [],
    directives,
    types: () => recorded.events.map((envelope) => envelope.event.type),
  };
  runtime.subscribe({
    event: (envelope) => recorded.events.push(envelope),
    serverRequest: (request) => recorded.requests.push(request),
    serverRequestEnded: (end) => recorded.ended.push(end),
  });
  return recorded;
}

export const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
