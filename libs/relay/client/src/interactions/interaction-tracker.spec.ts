import { approvalRequest, interactionTerminal, userInputRequest, uuid } from '../../test/frames';
import { approvalCandidate, userInputCancellation, userInputCandidate } from './interaction-candidates';
import { InteractionTracker } from './interaction-tracker';

const ids = () => ({ interactionId: uuid(), threadId: uuid(), turnId: uuid() });
const NOW = Date.parse('2026-06-01T00:00:00Z');

describe('InteractionTracker (§8 Browser)', () => {
  it('tracks pending → responding → pending on failure → resolved', () => {
    const tracker = new InteractionTracker();
    const request = approvalRequest(3, ids());
    expect(tracker.onRequest(request)).toMatchObject({ outcome: 'pending', interaction: { state: 'pending', relaySequence: 3 } });
    expect(tracker.beginResponse(request.interactionId, NOW)).toMatchObject({ ok: true, interaction: { state: 'responding' } });
    expect(tracker.beginResponse(request.interactionId, NOW)).toEqual({ ok: false, code: 'INTERACTION_NOT_PENDING' });
    expect(tracker.responseFailed(request.interactionId)).toMatchObject({ state: 'pending' });
    expect(tracker.onTerminal(interactionTerminal('interaction.resolved', 4, request))).toMatchObject({ outcome: 'resolved', interaction: { state: 'resolved' } });
    expect(tracker.offered(NOW)).toEqual([]);
  });

  it('treats an identical redelivery as a duplicate, whatever its relaySequence', () => {
    const tracker = new InteractionTracker();
    const request = approvalRequest(3, ids());
    tracker.onRequest(request);
    expect(tracker.onRequest({ ...request })).toMatchObject({ outcome: 'duplicate' });
    expect(tracker.offered(NOW)).toHaveLength(1);
  });

  it('reports the same id with other metadata, a request after its terminal, and unknown or mismatched terminals', () => {
    const tracker = new InteractionTracker();
    const request = approvalRequest(3, ids());
    tracker.onRequest(request);
    expect(tracker.onRequest({ ...request, expiresAt: '2998-01-01T00:00:00Z' })).toMatchObject({ outcome: 'problem', code: 'INTERACTION_METADATA_CONFLICT' });
    expect(tracker.onTerminal(interactionTerminal('interaction.cancelled', 4, { ...request, turnId: uuid() }))).toMatchObject({
      outcome: 'problem',
      code: 'INTERACTION_TERMINAL_MISMATCH',
    });
    expect(tracker.onTerminal(interactionTerminal('interaction.cancelled', 4, { ...request, interactionId: uuid() }))).toMatchObject({
      outcome: 'problem',
      code: 'INTERACTION_TERMINAL_UNKNOWN',
    });
    expect(tracker.onTerminal(interactionTerminal('interaction.cancelled', 5, request))).toMatchObject({ outcome: 'cancelled' });
    expect(tracker.onTerminal(interactionTerminal('interaction.cancelled', 5, request))).toMatchObject({ outcome: 'duplicate' });
    expect(tracker.onTerminal(interactionTerminal('interaction.resolved', 6, request))).toMatchObject({ outcome: 'problem', code: 'INTERACTION_TERMINAL_MISMATCH' });
    expect(tracker.onRequest(request)).toMatchObject({ outcome: 'problem', code: 'INTERACTION_AFTER_TERMINAL' });
    expect(tracker.get(request.interactionId)?.state).toBe('cancelled');
  });

  it('stops offering an interaction at its expiresAt', () => {
    const tracker = new InteractionTracker();
    const request = approvalRequest(1, ids(), '2026-06-01T00:00:10Z');
    tracker.onRequest(request);
    expect(tracker.offered(NOW)).toHaveLength(1);
    expect(tracker.offered(NOW + 10_000)).toEqual([]);
    expect(tracker.beginResponse(request.interactionId, NOW + 10_000)).toEqual({ ok: false, code: 'INTERACTION_EXPIRED' });
    expect(tracker.beginResponse(uuid(), NOW)).toEqual({ ok: false, code: 'INTERACTION_UNKNOWN' });
  });

  it('keeps its memory bounded', () => {
    const tracker = new InteractionTracker({ maxTerminal: 2, maxOpen: 2 });
    const requests = [1, 2, 3].map((sequence) => approvalRequest(sequence, ids()));
    requests.forEach((request) => tracker.onRequest(request));
    expect(tracker.offered(NOW).map((entry) => entry.relaySequence)).toEqual([2, 3]);
  });
});

describe('candidate builders', () => {
  it('builds approval candidates with identity from the pending request', () => {
    const tracker = new InteractionTracker();
    const request = approvalRequest(1, ids());
    const { interaction } = tracker.onRequest(request) as { interaction: Parameters<typeof approvalCandidate>[0] };
    expect(approvalCandidate(interaction, { decision: 'approve' })).toEqual({
      ok: true,
      value: { interactionId: request.interactionId, threadId: request.threadId, turnId: request.turnId, method: 'approval.request', candidate: { decision: 'approve' } },
    });
    expect(approvalCandidate(interaction, { decision: 'reject', reason: 'no' })).toMatchObject({ ok: true, value: { candidate: { decision: 'reject', reason: 'no' } } });
    expect(approvalCandidate(interaction, { decision: 'reject', reason: '' }).ok).toBe(false);
    expect(userInputCandidate(interaction, {}).ok).toBe(false);
  });

  it('normalises user input against the original form: form order, unknown options rejected', () => {
    const tracker = new InteractionTracker();
    const request = userInputRequest(1, ids());
    const { interaction } = tracker.onRequest(request) as { interaction: Parameters<typeof approvalCandidate>[0] };
    expect(userInputCandidate(interaction, { replicas: 3, region: 'eu' })).toMatchObject({
      ok: true,
      value: { method: 'userInput.request', candidate: { status: 'submitted', values: [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 3 }] } },
    });
    const north = userInputCandidate(interaction, [{ id: 'region', value: 'north' }, { id: 'replicas', value: 1 }]);
    expect(north.ok).toBe(false);
    expect(userInputCandidate(interaction, { region: 'eu' }).ok).toBe(false); // replicas is required
    expect(userInputCandidate(interaction, { region: 'eu', replicas: 2.5 }).ok).toBe(false);
    expect(userInputCancellation(interaction, 'not now')).toMatchObject({ ok: true, value: { candidate: { status: 'cancelled', reason: 'not now' } } });
    expect(approvalCandidate(interaction, { decision: 'approve' }).ok).toBe(false);
  });
});
