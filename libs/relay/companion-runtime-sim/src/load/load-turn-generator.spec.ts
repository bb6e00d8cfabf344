import { projectRuntimeEvent } from '@trustmesh/relay-protocol';

import { recordedRuntime, SENTINEL, uuid } from '../runtime/runtime-recorder.spec-support';
import { startLoadDriver } from './load-driver';
import { createLoadTurnGenerator } from './load-turn-generator';

describe('the load turn generator', () => {
  it('is deterministic for a seed and different across seeds', () => {
    const a = createLoadTurnGenerator({ seed: 9 });
    const b = createLoadTurnGenerator({ seed: 9 });
    const c = createLoadTurnGenerator({ seed: 10 });
    const first = [a.next(), a.next()];
    expect([b.next(), b.next()]).toEqual(first);
    expect(c.next()).not.toEqual(first[0]);
  });

  it('sizes turns as configured', () => {
    const generator = createLoadTurnGenerator({ seed: 1, messages: 3, messageChars: 1000, toolCalls: 4, toolOutputChars: 64, reasoningChars: 0, approvalRate: 1, userInputRate: 1 });
    const script = generator.next();
    const kinds = script.steps.map((step) => step.kind);
    expect(kinds.filter((kind) => kind === 'message')).toHaveLength(3);
    expect(kinds.filter((kind) => kind === 'tool')).toHaveLength(4);
    expect(kinds).not.toContain('reasoning');
    expect(kinds).toContain('userInput');
    for (const step of script.steps) {
      if (step.kind === 'message') expect(step.text).toHaveLength(1000);
      if (step.kind === 'tool') {
        expect(step.output).toHaveLength(64);
        expect(step.approval?.autoRespond).toMatchObject({ decision: 'approve' });
      }
    }
  });

  it('drives turn after turn through the runtime, every event projecting cleanly, never stalling on approvals', () => {
    const recorded = recordedRuntime();
    const generator = createLoadTurnGenerator({ seed: 3, approvalRate: 0.5, userInputRate: 0.5, failureRate: 0.2, autoRespondMs: 1000 });
    const driver = startLoadDriver({ runtime: recorded.runtime, generator, intervalMs: 50, maxTurns: 12 });
    recorded.clock.runUntilIdle();
    expect(driver.stats()).toMatchObject({ turnsStarted: 12, turnsEnded: 12, turnsRefused: 0, running: false });
    const terminal = recorded.types().filter((type) => type === 'turn.completed' || type === 'turn.failed');
    expect(terminal).toHaveLength(12);
    expect(recorded.requests.length).toBeGreaterThan(0);
    for (const envelope of recorded.events) {
      const projected = projectRuntimeEvent('1.2', envelope);
      if (!projected.ok) throw new Error(JSON.stringify(projected.issues));
      expect(JSON.stringify(projected.value)).not.toContain(SENTINEL);
    }
  });

  it('serves as the script source for turns people start, and stops on request', async () => {
    const recorded = recordedRuntime({ turnScripts: createLoadTurnGenerator({ seed: 4, toolCalls: 1, messages: 1 }).source });
    const thread = await recorded.runtime.createThread({ requestId: uuid(1) });
    await recorded.runtime.startTurn({ requestId: uuid(2), threadId: thread.id, turnId: uuid(3), input: { text: 'go' } });
    recorded.clock.runUntilIdle();
    expect(recorded.types().filter((type) => type === 'tool.completed')).toHaveLength(1);

    const driver = startLoadDriver({ runtime: recorded.runtime, generator: createLoadTurnGenerator(), intervalMs: 10 });
    recorded.clock.advance(5_000);
    driver.stop();
    const stats = driver.stats();
    expect(stats.turnsStarted).toBeGreaterThan(3);
    recorded.clock.runUntilIdle();
    expect(driver.stats().turnsStarted).toBe(stats.turnsStarted);
  });
});
