import { projectInteractionRequest, projectRuntimeEvent, type RuntimeInteraction } from '@trustmesh/relay-protocol';

import { createManualClock } from '../clock/sim-clock';
import { SENTINEL, uuid } from '../runtime/runtime-recorder.spec-support';
import type { SimDirective, SimulatedRuntime } from '../runtime/simulated-runtime';
import type { RuntimeEventEnvelope } from '@trustmesh/relay-protocol';
import type { RuntimeServerRequest } from '@trustmesh/relay-companion';
import { demoScenario } from './demo.scenario';
import { parseScenario } from './scenario-loader';
import { startScenario, type ScenarioRunStatus } from './scenario-run';
import { createScenarioRuntime } from './scenario-runtime';
import type { Scenario } from './scenario.types';

function setUp(scenario: Scenario) {
  const clock = createManualClock();
  const directives: SimDirective[] = [];
  const events: RuntimeEventEnvelope[] = [];
  const requests: RuntimeServerRequest[] = [];
  const make = () => {
    const runtime = createScenarioRuntime(scenario, { clock, sentinel: SENTINEL, onDirective: (directive) => directives.push(directive) });
    runtime.subscribe({ event: (envelope) => events.push(envelope), serverRequest: (request) => requests.push(request), serverRequestEnded: () => undefined });
    return runtime;
  };
  const runtime = make();
  const statuses: ScenarioRunStatus[] = [];
  const run = startScenario(scenario, runtime, { onStatus: (status) => statuses.push(status) });
  return { clock, runtime, run, directives, events, requests, statuses, make };
}

const scenario = (yaml: string) => parseScenario(yaml, { source: 'test.yaml' });

describe('running a scenario', () => {
  it('plays the demo to the end on its own, answering at the machine when nobody else does', async () => {
    const demo = demoScenario();
    const { clock, run, directives, events, requests, statuses } = setUp(demo);
    expect(run.status()).toMatchObject({ state: 'running', name: 'demo', stepsCompleted: 0, stepCount: 14 });
    clock.runUntilIdle();
    const final = await run.finished;
    expect(final).toEqual({ state: 'completed', name: 'demo', stepsCompleted: 14, stepCount: 14 });
    expect(statuses.map((status) => status.stepsCompleted)).toEqual([...statuses.map((status) => status.stepsCompleted)].sort((a, b) => a - b));
    expect(directives).toEqual([{ kind: 'disconnect', forMs: 3000 }]);
    expect(events.filter((envelope) => envelope.event.type === 'turn.completed')).toHaveLength(2);
    expect(requests.map((request) => request.request.method)).toEqual(['approval.request', 'userInput.request']);

    for (const envelope of events) {
      const projected = projectRuntimeEvent('1.2', envelope);
      if (!projected.ok) throw new Error(JSON.stringify(projected.issues));
      expect(JSON.stringify(projected.value)).not.toContain(SENTINEL);
    }
    for (const request of requests) {
      const identity = { workspaceId: uuid(1), relaySequence: 1, interactionId: request.interactionId ?? uuid(2), threadId: request.threadId, turnId: request.turnId, expiresAt: request.expiresAt ?? '' };
      const projected = projectInteractionRequest('1.1', identity, request.request as RuntimeInteraction);
      if (!projected.ok) throw new Error(JSON.stringify(projected.issues));
      expect(JSON.stringify(projected.value)).not.toContain(SENTINEL);
    }
  });

  it('seeds threads with their history and fixed ids', async () => {
    const { runtime, run } = setUp(
      scenario(`version: 1
name: seeded
threads:
  - key: a
    id: 00000000-0000-4000-8000-00000000000a
    title: Seeded
    history:
      - { kind: user, text: hi }
      - { kind: tool, agent: assistant, tool: shell, input: { command: ls } }
      - { kind: assistant, text: hello }
steps:
  - { kind: delay, ms: 10 }
`),
    );
    expect(run.threadId('a')).toBe('00000000-0000-4000-8000-00000000000a');
    const snapshot = await runtime.readThread({ threadId: run.threadId('a'), limit: 10 });
    expect(snapshot.messages.items.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(snapshot.operations.items.map((operation) => operation.toolName)).toEqual(['shell']);
    expect(snapshot.thread.title).toBe('Seeded');
  });

  it('waits for a person to start the turn it scripts, leaving other turns to the default script', async () => {
    const { clock, runtime, run, events } = setUp(
      scenario(`version: 1
name: await
threads: [{ key: a }]
steps:
  - kind: awaitTurn
    thread: a
    match: deploy
    steps:
      - { kind: message, text: Deploying now. }
`),
    );
    clock.advance(60_000);
    expect(run.status()).toMatchObject({ state: 'running', stepsCompleted: 0 });
    await runtime.startTurn({ requestId: uuid(1), threadId: run.threadId('a'), turnId: uuid(2), input: { text: 'hello there' } });
    clock.advance(60_000);
    expect(run.status()).toMatchObject({ state: 'running', stepsCompleted: 0 });
    await runtime.startTurn({ requestId: uuid(3), threadId: run.threadId('a'), turnId: uuid(4), input: { text: 'please deploy' } });
    clock.runUntilIdle();
    await expect(run.finished).resolves.toMatchObject({ state: 'completed', stepsCompleted: 2, stepCount: 2 });
    const texts = events.flatMap((envelope) => (envelope.event.type === 'message.completed' && envelope.turnId === uuid(4) ? [envelope.event.text] : []));
    expect(texts).toEqual(['Deploying now.']);
  });

  it('fails with SCENARIO_TIMEOUT when nobody starts an awaited turn in time', async () => {
    const { clock, run } = setUp(scenario(`version: 1\nname: timeout\nthreads: [{ key: a }]\nsteps:\n  - { kind: awaitTurn, thread: a, timeoutMs: 5000, steps: [] }\n`));
    clock.runUntilIdle();
    const status = await run.finished;
    expect(status).toMatchObject({ state: 'failed', errorCode: 'SCENARIO_TIMEOUT' });
    expect(status.errorMessage).toContain('/steps/0 (awaitTurn)');
  });

  it('fails with SCENARIO_EXPECTATION_UNMET when the person decides otherwise than expected', async () => {
    const { clock, runtime, run, requests } = setUp(
      scenario(`version: 1
name: expect
threads: [{ key: a }]
steps:
  - kind: turn
    thread: a
    input: delete the cache
    steps:
      - kind: tool
        agent: assistant
        tool: shell
        input: { command: rm -rf .cache }
        approval: { explanation: Delete the cache, expect: reject }
`),
    );
    clock.advance(1_000);
    const [request] = requests;
    await runtime.resolveServerRequest(request?.serverRequestId ?? '', { method: 'approval.request', decision: 'approve' });
    clock.runUntilIdle();
    await expect(run.finished).resolves.toMatchObject({
      state: 'failed',
      errorCode: 'SCENARIO_EXPECTATION_UNMET',
      errorMessage: '/steps/0 (turn): the scenario expected approval.request to end as reject, but it ended as approve.',
    });
  });

  it('fails with SCENARIO_STEP_FAILED when the runtime refuses a step, and can be stopped', async () => {
    const busy = setUp(
      scenario(`version: 1
name: busy
threads: [{ key: a }]
steps:
  - { kind: delay, ms: 1000 }
  - { kind: turn, thread: a, input: second, steps: [{ kind: message, text: hi }] }
`),
    );
    busy.runtime.startLocalTurn({ threadId: busy.run.threadId('a'), input: 'first', script: { steps: [{ kind: 'delay', ms: 60_000 }] } });
    busy.clock.advance(2_000);
    await expect(busy.run.finished).resolves.toMatchObject({ state: 'failed', errorCode: 'SCENARIO_STEP_FAILED', errorMessage: '/steps/1 (turn) failed: the runtime refused it (TURN_ALREADY_ACTIVE)' });

    const stopped = setUp(scenario(`version: 1\nname: long\nsteps:\n  - { kind: delay, ms: 100000 }\n`));
    stopped.run.stop();
    await expect(stopped.run.finished).resolves.toMatchObject({ state: 'failed', errorCode: 'SCENARIO_STOPPED' });
  });

  it('goes on with a new runtime after a restart, with the same threads', async () => {
    const restartScenario = scenario(`version: 1
name: restart
threads: [{ key: a, title: Kept }]
steps:
  - { kind: turn, thread: a, input: before, steps: [{ kind: message, text: one }, { kind: restart, downMs: 500 }, { kind: message, text: never }] }
  - { kind: restart }
  - { kind: turn, thread: a, input: after, steps: [{ kind: message, text: two }] }
`);
    const { clock, runtime, run, directives, make } = setUp(restartScenario);
    // The host: a restart directive shuts the Companion (and its runtime) down at once, and a fresh
    // one comes up `downMs` later.
    const runtimes: SimulatedRuntime[] = [runtime];
    let handled = 0;
    const host = () => {
      while (handled < directives.length) {
        const directive = directives[handled++];
        if (directive?.kind !== 'restart') continue;
        void runtimes.at(-1)?.shutdown();
        clock.setTimer(directive.downMs, () => {
          const fresh = make();
          runtimes.push(fresh);
          run.attach(fresh);
          host();
        });
      }
    };
    directives.push = (...items: SimDirective[]) => {
      const length = Array.prototype.push.apply(directives, items);
      host();
      return length;
    };
    clock.runUntilIdle();
    await expect(run.finished).resolves.toMatchObject({ state: 'completed', stepsCompleted: 7, stepCount: 7 });
    expect([...directives]).toEqual([{ kind: 'restart', downMs: 500 }, { kind: 'restart', downMs: 0 }]);
    const last = runtimes.at(-1);
    const snapshot = await last?.readThread({ threadId: run.threadId('a'), limit: 10 });
    expect(snapshot?.thread.title).toBe('Kept');
    expect(snapshot?.messages.items.map((message) => message.parts[0]?.text)).toEqual(['after', 'two']);
  });
});
