/**
 * Property: whatever a script contains and however the person answers (or cancels), a turn ends exactly
 * once, the raw timeline stays in order, and everything projects for Wire 1.1 and 1.2 with no sentinel.
 */
import fc from 'fast-check';
import type { ServerRequestResolution } from '@trustmesh/relay-companion';
import { projectInteractionRequest, projectRuntimeEvent, projectThreadSnapshot, type RuntimeInteraction } from '@trustmesh/relay-protocol';

import { recordedRuntime, SENTINEL, uuid } from './runtime-recorder.spec-support';
import type { AppOutputScript, JsonValue, TurnStep } from './turn-script';

const name = fc.stringMatching(/^[a-z][a-z_]{0,15}$/);
const someText = fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' });
const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>;
const outcome = fc.constantFrom('success', 'user_rejected', 'policy_denied', 'invalid_input', 'cancelled', 'tool_failed' as const);
const appOutput: fc.Arbitrary<AppOutputScript> = fc.oneof(
  fc.record({ status: fc.constant('available' as const), schemaId: name, schemaVersion: fc.integer({ min: 1, max: 9 }), remoteReadable: fc.boolean(), data: fc.dictionary(name, json, { maxKeys: 3 }), fallbackText: fc.string({ maxLength: 40 }) }),
  fc.record({ status: fc.constant('rejected' as const), reason: fc.constantFrom('credential_field', 'credential_value' as const) }),
  fc.record({ status: fc.constantFrom('not_provided', 'invalid', 'too_large', 'expired', 'denied' as const) }),
);
const form = {
  title: 'Pick',
  controls: [
    { type: 'choice' as const, id: 'c', label: 'Choice', required: true, multiple: false, options: [{ id: 'a', label: 'A' }, { id: 'b', label: 'B' }] },
    { type: 'number' as const, id: 'n', label: 'Number', required: false, min: 0, max: 10 },
  ],
};

const step: fc.Arbitrary<TurnStep> = fc.oneof(
  fc.record({ kind: fc.constant('message' as const), text: someText, chunkChars: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ kind: fc.constant('reasoning' as const), text: someText }),
  fc.record(
    {
      kind: fc.constant('tool' as const),
      agent: name,
      tool: name,
      input: json,
      output: fc.oneof(fc.string({ maxLength: 80 }), fc.record({ stdout: fc.string({ maxLength: 40 }), stderr: fc.string({ maxLength: 40 }) }, { requiredKeys: [] })),
      outcome,
      outcomeReason: fc.string({ maxLength: 30 }),
      display: json,
      appOutput,
      approval: fc.record({ explanation: fc.string({ maxLength: 150 }), reason: fc.string({ maxLength: 30 }), expiresInMs: fc.integer({ min: 1, max: 100_000 }) }, { requiredKeys: [] }),
    },
    { requiredKeys: ['kind', 'agent', 'tool', 'input'] },
  ),
  fc.record({ kind: fc.constant('userInput' as const), form: fc.constant(form), reason: fc.string({ maxLength: 30 }) }, { requiredKeys: ['kind', 'form'] }),
  fc.record({ kind: fc.constant('delay' as const), ms: fc.integer({ min: 0, max: 5_000 }) }),
  fc.record({ kind: fc.constant('capabilitiesChanged' as const) }),
  fc.record({ kind: fc.constant('fail' as const), stage: fc.constantFrom('bootstrap', 'plan', 'execute' as const), message: fc.string({ maxLength: 30 }) }, { requiredKeys: ['kind', 'stage'] }),
  fc.record({ kind: fc.constant('cancel' as const), reason: fc.string({ maxLength: 30 }) }, { requiredKeys: ['kind'] }),
);
type Answer = 'approve' | 'reject' | 'submit' | 'dismiss' | 'expire' | 'abort' | 'cancel-turn';
const answer = fc.constantFrom<Answer>('approve', 'reject', 'submit', 'dismiss', 'expire', 'abort', 'cancel-turn');

function resolution(request: { request: { method: string } }, choice: Answer): ServerRequestResolution | undefined {
  if (request.request.method === 'approval.request') {
    if (choice === 'approve') return { method: 'approval.request', decision: 'approve' };
    if (choice === 'reject') return { method: 'approval.request', decision: 'reject', reason: 'no' };
  } else {
    if (choice === 'submit') return { method: 'userInput.request', response: { status: 'submitted', values: [{ id: 'c', value: 'a' }] } };
    if (choice === 'dismiss') return { method: 'userInput.request', response: { status: 'cancelled' } };
  }
  return undefined;
}

describe('random turns', () => {
  it('end once, stay ordered and project leak-free whatever happens', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), fc.array(answer, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 2 ** 31 }), async (steps, answers, seed) => {
        const recorded = recordedRuntime({ seed, expiryGraceMs: 0 });
        const { runtime, clock } = recorded;
        const thread = await runtime.createThread({ requestId: uuid(1) });
        runtime.queueTurnScript(thread.id, { steps });
        await runtime.startTurn({ requestId: uuid(2), threadId: thread.id, turnId: uuid(3), input: { text: 'go' } });
        let answered = 0;
        for (let guard = 0; guard < 2_000 && runtime.activeTurn(thread.id); guard++) {
          clock.advance(100);
          const pending = runtime.pendingServerRequests()[0];
          if (!pending) continue;
          const choice = answers[answered++ % answers.length] ?? 'approve';
          const answer = resolution(pending, choice);
          if (answer) await runtime.resolveServerRequest(pending.serverRequestId, answer);
          else if (choice === 'expire') await runtime.cancelServerRequest(pending.serverRequestId, 'expired');
          else if (choice === 'abort') await runtime.cancelServerRequest(pending.serverRequestId, 'policy-failure');
          else if (choice === 'cancel-turn') await runtime.cancelTurn({ requestId: uuid(1000 + answered), threadId: thread.id, turnId: uuid(3) });
          else clock.advance(100_000); // a mismatched answer: let it expire on the runtime's own
        }
        clock.runUntilIdle();
        expect(runtime.activeTurn(thread.id)).toBeUndefined();

        const types = recorded.types();
        expect(types[0]).toBe('turn.started');
        expect(types.filter((type) => type === 'turn.completed' || type === 'turn.failed' || type === 'turn.cancelled')).toHaveLength(1);
        expect(['turn.completed', 'turn.failed', 'turn.cancelled']).toContain(types.at(-1));
        expect(types.filter((type) => type === 'tool.started')).toHaveLength(types.filter((type) => type === 'tool.completed').length);
        recorded.events.forEach((envelope, index) => expect(envelope.sequence).toBe(index + 1));

        for (const version of ['1.1', '1.2'] as const) {
          for (const envelope of recorded.events) {
            const projected = projectRuntimeEvent(version, envelope);
            if (!projected.ok) throw new Error(`${JSON.stringify(envelope)}: ${JSON.stringify(projected.issues)}`);
            expect(JSON.stringify(projected.value)).not.toContain(SENTINEL);
          }
          for (const request of recorded.requests) {
            const identity = { workspaceId: uuid(9), relaySequence: 0, interactionId: request.interactionId ?? uuid(8), threadId: request.threadId, turnId: request.turnId, expiresAt: request.expiresAt ?? '' };
            const projected = projectInteractionRequest(version, identity, request.request as RuntimeInteraction);
            if (!projected.ok) throw new Error(JSON.stringify(projected.issues));
            expect(JSON.stringify(projected.value)).not.toContain(SENTINEL);
          }
          const snapshot = projectThreadSnapshot(version, await runtime.readThread({ threadId: thread.id, limit: 500 }));
          if (!snapshot.ok) throw new Error(JSON.stringify(snapshot.issues));
          expect(JSON.stringify(snapshot.value)).not.toContain(SENTINEL);
        }
      }),
      { numRuns: 60 },
    );
  });
});
