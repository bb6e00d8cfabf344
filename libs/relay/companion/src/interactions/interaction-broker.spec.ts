/**
 * The interaction broker (§8) through the session: publication, exactly-once ends, expiry, candidate
 * processing steps 6–11 and the local approval policy table.
 */
import { LOCAL_DENY_REASON, type ApprovalDecision } from '../policy/companion-policies';
import { approvalRequest, deferred, rawEvent, SENTINEL, THREAD, TURN, userInputRequest, uuid, WORKSPACE } from '../testing/scripted-runtime';
import { Harness, settle } from '../testing/session-harness';

const APPROVAL_INTERACTION = uuid(900);
const FORM_INTERACTION = uuid(901);
const approve = (overrides = {}) => ({ interactionId: APPROVAL_INTERACTION, threadId: THREAD, turnId: TURN, method: 'approval.request', candidate: { decision: 'approve' }, ...overrides });
const reject = (reason?: string) => approve({ candidate: { decision: 'reject', ...(reason ? { reason } : {}) } });
const submit = (values: unknown[]) => ({ interactionId: FORM_INTERACTION, threadId: THREAD, turnId: TURN, method: 'userInput.request', candidate: { status: 'submitted', values } });
const errorCode = (response: Record<string, unknown> | undefined) => (response?.['error'] as { code: string } | undefined)?.code ?? null;

async function withApproval(options = {}) {
  const harness = await Harness.started(options);
  harness.runtime.raise(approvalRequest());
  await harness.flush();
  return harness;
}

describe('publishing server requests', () => {
  it('publishes an approval as interaction.request with only the projection', async () => {
    const harness = await withApproval();
    expect(harness.framesOf('interaction.request')).toEqual([
      {
        type: 'interaction.request',
        workspaceId: WORKSPACE,
        relaySequence: 0,
        interactionId: APPROVAL_INTERACTION,
        threadId: THREAD,
        turnId: TURN,
        expiresAt: '2026-11-30T12:05:00Z',
        sensitivity: 'normal',
        method: 'approval.request',
        projection: { approvalId: expect.any(String), agentName: 'agent', toolName: 'deploy', explanation: 'Deploy to prod' },
      },
    ]);
    expect(harness.sent.map((sent) => sent.text).join()).not.toContain(SENTINEL);
  });

  it('publishes a user-input form reduced to its controls', async () => {
    const harness = await Harness.started();
    harness.runtime.raise(userInputRequest());
    await harness.flush();
    const frame = harness.framesOf('interaction.request')[0]!;
    expect(frame['projection']).toEqual({
      title: 'Deploy settings',
      controls: [
        { type: 'text', id: 'name', label: 'Name', required: true, maxLength: 20 },
        { type: 'choice', id: 'region', label: 'Region', required: true, multiple: false, options: [{ id: 'eu', label: 'EU' }, { id: 'us', label: 'US' }] },
        { type: 'number', id: 'replicas', label: 'Replicas', required: false, min: 1, max: 5, integer: true },
      ],
    });
  });

  it('gives Runtime 1.1 approvals a local interactionId and a 5-minute deadline', async () => {
    const harness = await Harness.started();
    const { interactionId: _none, expiresAt: _noDeadline, ...legacy } = approvalRequest();
    harness.runtime.raise(legacy);
    await harness.flush();
    const frame = harness.framesOf('interaction.request')[0]!;
    expect(frame['interactionId']).toBe(uuid(500));
    expect(frame['expiresAt']).toBe('2026-11-30T12:05:00.000Z');
  });

  it.each([
    ['already expired', approvalRequest({ expiresAt: '2026-11-30T11:59:59Z' }), 'expired'],
    ['an unreadable deadline', approvalRequest({ expiresAt: 'tomorrow' }), 'not-projectable'],
    ['a local-only kind', approvalRequest({ request: { method: 'authentication.request', secret: SENTINEL } }), 'not-projectable'],
    ['non-normal sensitivity', approvalRequest({ request: { ...approvalRequest().request, sensitivity: 'secret' } }), 'not-projectable'],
    [
      'a form breaking §8 rules',
      userInputRequest({ request: { method: 'userInput.request', form: { controls: [{ type: 'boolean', id: 'a', label: 'A', required: false }, { type: 'boolean', id: 'a', label: 'B', required: false }] } } }),
      'not-projectable',
    ],
  ])('refuses %s: never published, the Runtime request fails', async (_name, request, reason) => {
    const harness = await Harness.started();
    harness.runtime.raise(request);
    await harness.flush();
    expect(harness.sent).toEqual([]);
    expect(harness.runtime.cancelled).toEqual([{ serverRequestId: request.serverRequestId, reason }]);
    expect(harness.session.stats().pendingInteractions).toBe(0);
    expect(harness.diagnostics.some((entry) => entry.event === 'interaction-refused')).toBe(true);
  });

  it('refuses an interactionId that is already pending', async () => {
    const harness = await withApproval();
    harness.runtime.raise(approvalRequest({ serverRequestId: 'second' }));
    await harness.flush();
    expect(harness.framesOf('interaction.request')).toHaveLength(1);
    expect(harness.runtime.cancelled).toEqual([{ serverRequestId: 'second', reason: 'not-projectable' }]);
  });
});

describe('ending interactions exactly once', () => {
  it('expiry cancels (Companion timer), tells the Runtime, and later candidates get COMPANION_ERROR', async () => {
    const harness = await withApproval();
    harness.clock.advance(5 * 60 * 1000);
    await harness.flush();
    expect(harness.framesOf('interaction.cancelled')).toEqual([
      { type: 'interaction.cancelled', workspaceId: WORKSPACE, relaySequence: 1, interactionId: APPROVAL_INTERACTION, threadId: THREAD, turnId: TURN, method: 'approval.request' },
    ]);
    expect(harness.runtime.cancelled).toEqual([{ serverRequestId: approvalRequest().serverRequestId, reason: 'expired' }]);
    expect(errorCode((await harness.request('interaction.candidate', approve())).response)).toBe('COMPANION_ERROR');
    expect(harness.runtime.resolved).toEqual([]);
  });

  it('a terminal turn cancels its interactions after the turn event, without calling the Runtime', async () => {
    const harness = await withApproval();
    harness.runtime.emit(rawEvent({ type: 'turn.failed', stage: 'execute', message: SENTINEL }));
    await harness.flush();
    expect(harness.sent.map((sent) => [sent.frame.type, sent.frame['relaySequence']])).toEqual([
      ['interaction.request', 0],
      ['runtime.event', 1],
      ['interaction.cancelled', 2],
    ]);
    expect(harness.runtime.cancelled).toEqual([]);
    expect(harness.clock.pendingTimers).toBe(0);
  });

  it('a Runtime abort cancels; a local answer on the device resolves', async () => {
    const harness = await withApproval();
    harness.runtime.raise(userInputRequest());
    harness.runtime.endRequest(approvalRequest().serverRequestId, 'cancelled');
    harness.runtime.endRequest(userInputRequest().serverRequestId, 'resolved');
    harness.runtime.endRequest(userInputRequest().serverRequestId, 'cancelled');
    await harness.flush();
    expect(harness.sent.map((sent) => sent.frame.type)).toEqual(['interaction.request', 'interaction.request', 'interaction.cancelled', 'interaction.resolved']);
  });

  it('shutdown cancels what is pending, fails it at the Runtime, unbinds and stops the runtime', async () => {
    const harness = await withApproval();
    await harness.session.shutdown();
    expect(harness.framesOf('interaction.cancelled')).toHaveLength(1);
    expect(harness.runtime.cancelled).toEqual([{ serverRequestId: approvalRequest().serverRequestId, reason: 'shutdown' }]);
    expect([harness.runtime.boundTo, harness.runtime.shutDown, harness.runtime.subscribers]).toEqual([undefined, true, 0]);
    expect(harness.ended.at(-1)?.reason).toBe('shutdown');
    expect(await harness.ack(0)).toEqual({ kind: 'dropped', reason: 'STALE_GENERATION' });
    expect(() => harness.connect()).toThrow('shut down');
  });
});

describe('candidate processing (§8)', () => {
  it('approve + allow: the Runtime approves, interaction.resolved goes out before {accepted:true}', async () => {
    const harness = await withApproval();
    const { response } = await harness.request('interaction.candidate', approve());
    expect(response?.['result']).toEqual({ accepted: true });
    expect(harness.runtime.resolved).toEqual([{ serverRequestId: approvalRequest().serverRequestId, resolution: { method: 'approval.request', decision: 'approve' } }]);
    expect(harness.sent.map((sent) => sent.frame.type)).toEqual(['interaction.request', 'interaction.resolved', 'runtime.response']);
    expect(harness.framesOf('interaction.resolved')[0]).toEqual({
      type: 'interaction.resolved',
      workspaceId: WORKSPACE,
      relaySequence: 1,
      interactionId: APPROVAL_INTERACTION,
      threadId: THREAD,
      turnId: TURN,
      method: 'approval.request',
    });
    expect(harness.clock.pendingTimers).toBe(0);
  });

  it('step 6: a broker without a bound workspace answers LocalApprovalDeniedError', async () => {
    const harness = new Harness();
    harness.connect();
    expect(errorCode((await harness.request('interaction.candidate', approve())).response)).toBe('LocalApprovalDeniedError');
  });

  it.each([
    ['an unknown interaction', approve({ interactionId: uuid(1) })],
    ['another turn', approve({ turnId: uuid(2) })],
    ['another thread', approve({ threadId: uuid(3) })],
    ['another method', { ...submit([]), interactionId: APPROVAL_INTERACTION }],
  ])('step 6: %s → COMPANION_ERROR', async (_name, params) => {
    const harness = await withApproval();
    expect(errorCode((await harness.request('interaction.candidate', params)).response)).toBe('COMPANION_ERROR');
    expect(harness.session.stats().pendingInteractions).toBe(1);
  });

  it('step 8: the responder policy refuses, or throws → COMPANION_ERROR', async () => {
    const refusing = await withApproval({ policies: { responder: () => false } });
    expect(errorCode((await refusing.request('interaction.candidate', approve())).response)).toBe('COMPANION_ERROR');
    const throwing = await withApproval({
      policies: {
        responder: () => {
          throw new Error(SENTINEL);
        },
      },
    });
    expect(errorCode((await throwing.request('interaction.candidate', approve())).response)).toBe('COMPANION_ERROR');
    expect(throwing.session.stats().pendingInteractions).toBe(1);
  });

  it('step 9: one active candidate; another approve is refused; a reject supersedes the approve', async () => {
    const decision = deferred<ApprovalDecision>();
    const harness = await withApproval({ policies: { approval: () => decision.promise } });
    const first = harness.request('interaction.candidate', approve());
    await settle();
    expect(errorCode((await harness.request('interaction.candidate', approve())).response)).toBe('COMPANION_ERROR');
    const rejection = await harness.request('interaction.candidate', reject('not now'));
    expect(rejection.response?.['result']).toEqual({ accepted: true });
    expect(errorCode((await first).response)).toBe('COMPANION_ERROR');
    decision.resolve('allow');
    await settle();
    expect(harness.runtime.resolved.map((entry) => entry.resolution)).toEqual([{ method: 'approval.request', decision: 'reject', reason: 'not now' }]);
    expect(harness.framesOf('interaction.resolved')).toHaveLength(1);
  });

  it('step 9: an approve already answering the Runtime cannot be superseded', async () => {
    const answering = deferred<void>();
    const harness = await withApproval();
    harness.runtime.resolveHandler = () => answering.promise;
    const first = harness.request('interaction.candidate', approve());
    await settle();
    expect(errorCode((await harness.request('interaction.candidate', reject())).response)).toBe('COMPANION_ERROR');
    answering.resolve();
    expect((await first).response?.['result']).toEqual({ accepted: true });
  });

  it('step 10: a reject resolves with its reason', async () => {
    const harness = await withApproval();
    expect((await harness.request('interaction.candidate', reject('too risky'))).response?.['result']).toEqual({ accepted: true });
    expect(harness.runtime.resolved[0]?.resolution).toEqual({ method: 'approval.request', decision: 'reject', reason: 'too risky' });
    expect(harness.framesOf('interaction.resolved')).toHaveLength(1);
  });

  it('step 10: user input is normalised against the original form, in form order', async () => {
    const harness = await Harness.started();
    harness.runtime.raise(userInputRequest());
    await harness.flush();
    const unknownOption = await harness.request('interaction.candidate', submit([{ id: 'name', value: 'web' }, { id: 'region', value: 'north' }]));
    expect(errorCode(unknownOption.response)).toBe('COMPANION_ERROR');
    expect(harness.session.stats().pendingInteractions).toBe(1);
    const missingRequired = await harness.request('interaction.candidate', submit([{ id: 'name', value: 'web' }]));
    expect(errorCode(missingRequired.response)).toBe('COMPANION_ERROR');
    const ok = await harness.request('interaction.candidate', submit([{ id: 'replicas', value: 3 }, { id: 'region', value: 'eu' }, { id: 'name', value: 'web' }]));
    expect(ok.response?.['result']).toEqual({ accepted: true });
    expect(harness.runtime.resolved[0]?.resolution).toEqual({
      method: 'userInput.request',
      response: { status: 'submitted', values: [{ id: 'name', value: 'web' }, { id: 'region', value: 'eu' }, { id: 'replicas', value: 3 }] },
    });
  });

  it('step 10: a cancelled user input passes through and resolves', async () => {
    const harness = await Harness.started();
    harness.runtime.raise(userInputRequest());
    await harness.flush();
    const cancel = { interactionId: FORM_INTERACTION, threadId: THREAD, turnId: TURN, method: 'userInput.request', candidate: { status: 'cancelled', reason: 'later' } };
    expect((await harness.request('interaction.candidate', cancel)).response?.['result']).toEqual({ accepted: true });
    expect(harness.runtime.resolved[0]?.resolution).toEqual({ method: 'userInput.request', response: { status: 'cancelled', reason: 'later' } });
    expect(harness.framesOf('interaction.resolved')).toHaveLength(1);
  });

  it('step 11: deny → Runtime rejects with the fixed local reason, resolved, LocalApprovalDeniedError', async () => {
    const harness = await withApproval({ policies: { approval: () => 'deny' } });
    expect(errorCode((await harness.request('interaction.candidate', approve())).response)).toBe('LocalApprovalDeniedError');
    expect(harness.runtime.resolved[0]?.resolution).toEqual({ method: 'approval.request', decision: 'reject', reason: LOCAL_DENY_REASON });
    expect(harness.framesOf('interaction.resolved')).toHaveLength(1);
  });

  it('step 11: require-local-confirmation → nothing happens, still pending, LocalConfirmationRequiredError', async () => {
    const harness = await withApproval({ policies: { approval: () => 'require-local-confirmation' } });
    expect(errorCode((await harness.request('interaction.candidate', approve())).response)).toBe('LocalConfirmationRequiredError');
    expect(harness.runtime.resolved).toEqual([]);
    expect(harness.session.stats().pendingInteractions).toBe(1);
    expect(harness.framesOf('interaction.resolved')).toEqual([]);
    // Still answerable.
    expect((await harness.request('interaction.candidate', reject())).response?.['result']).toEqual({ accepted: true });
  });

  it.each([
    ['throws', () => Promise.reject(new Error(SENTINEL))],
    ['answers something invalid', () => 'maybe' as ApprovalDecision],
  ])('step 11: a policy that %s → the Runtime request fails, cancelled, LocalApprovalDeniedError', async (_name, approval) => {
    const harness = await withApproval({ policies: { approval } });
    const { response } = await harness.request('interaction.candidate', approve());
    expect(errorCode(response)).toBe('LocalApprovalDeniedError');
    expect(harness.runtime.cancelled).toEqual([{ serverRequestId: approvalRequest().serverRequestId, reason: 'policy-failure' }]);
    expect(harness.framesOf('interaction.cancelled')).toHaveLength(1);
    expect(JSON.stringify(response)).not.toContain(SENTINEL);
  });

  it('a Runtime that fails to take the answer: cancelled, COMPANION_ERROR', async () => {
    const harness = await withApproval();
    harness.runtime.resolveHandler = () => Promise.reject(new Error(SENTINEL));
    expect(errorCode((await harness.request('interaction.candidate', approve())).response)).toBe('COMPANION_ERROR');
    expect(harness.framesOf('interaction.cancelled')).toHaveLength(1);
  });

  it('once resolved, new candidates get COMPANION_ERROR; the same request replays its answer', async () => {
    const harness = await withApproval();
    const requestId = uuid(300);
    const first = await harness.request('interaction.candidate', approve(), { requestId });
    expect((await harness.request('interaction.candidate', approve(), { requestId })).response).toEqual(first.response);
    expect(errorCode((await harness.request('interaction.candidate', reject())).response)).toBe('COMPANION_ERROR');
    expect(harness.runtime.resolved).toHaveLength(1);
  });

  it('losing the generation aborts only the attempt: a late policy answer settles nothing, a retry is re-processed', async () => {
    const decisions = [deferred<ApprovalDecision>(), deferred<ApprovalDecision>()];
    let call = 0;
    const harness = await withApproval({ policies: { approval: () => decisions[call++]!.promise } });
    const requestId = uuid(301);
    const lost = harness.request('interaction.candidate', approve(), { requestId });
    await settle();
    harness.connect();
    expect((await lost).result).toEqual(expect.objectContaining({ kind: 'response', errorCode: 'COMPANION_ERROR', sent: false }));
    decisions[0]!.resolve('allow');
    await settle();
    expect(harness.runtime.resolved).toEqual([]);
    expect(harness.session.stats().pendingInteractions).toBe(1);
    const retry = harness.request('interaction.candidate', approve(), { requestId });
    await settle();
    decisions[1]!.resolve('allow');
    expect((await retry).response?.['result']).toEqual({ accepted: true });
    expect(harness.runtime.resolved).toHaveLength(1);
  });

  it('expiry while a candidate decides: the attempt gets COMPANION_ERROR', async () => {
    const decision = deferred<ApprovalDecision>();
    const harness = await withApproval({ policies: { approval: () => decision.promise } });
    const attempt = harness.request('interaction.candidate', approve());
    await settle();
    harness.clock.advance(5 * 60 * 1000);
    expect(errorCode((await attempt).response)).toBe('COMPANION_ERROR');
    decision.resolve('allow');
    await settle();
    expect(harness.runtime.resolved).toEqual([]);
    expect(harness.framesOf('interaction.cancelled')).toHaveLength(1);
  });
});
