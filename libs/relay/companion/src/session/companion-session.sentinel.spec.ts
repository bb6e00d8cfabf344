/**
 * The sentinel sweep (§9): SENTINEL is planted in every secret-bearing Runtime field the scripted
 * runtime has (tool input and output, display, outcome and approval reasons, previews, raw input,
 * user-input extras, turn messages, error and policy texts, local paths, Runtime cursors and JSON-RPC
 * ids). Every flow and error path is driven; no frame sent and no diagnostic may contain it.
 */
import {
  approvalRequest,
  everyRawEvent,
  OPERATION,
  rawEvent,
  rawOperationResult,
  runtimeFailure,
  SENTINEL,
  THREAD,
  TURN,
  userInputRequest,
  uuid,
} from '../testing/scripted-runtime';
import { Harness, settle } from '../testing/session-harness';

const R = uuid(77);

async function driveEverything(harness: Harness): Promise<void> {
  const { runtime } = harness;
  for (const envelope of everyRawEvent()) runtime.emit(envelope);

  await harness.request('thread.list', { limit: 10 });
  await harness.request('thread.create', { requestId: R, title: 'A' });
  await harness.request('thread.open', { threadId: THREAD });
  await harness.request('thread.snapshot', { threadId: THREAD, messageBeforeSequence: 5, limit: 10 });
  await harness.request('thread.rename', { requestId: R, threadId: THREAD, title: 'B' });
  await harness.request('thread.delete', { requestId: R, threadId: THREAD });
  await harness.request('thread.detach', { requestId: R, threadId: THREAD });
  await harness.request('thread.capabilities', { threadId: THREAD });
  await harness.request('turn.start', { requestId: R, threadId: THREAD, turnId: TURN, input: { text: 'go' } });
  await harness.request('turn.cancel', { requestId: R, threadId: THREAD, turnId: TURN });
  await harness.request('operation.get', { threadId: THREAD, operationId: OPERATION });
  if (harness.session.wireVersion === '1.2') {
    await harness.request('operation.result.get', { threadId: THREAD, operationId: OPERATION });
    runtime.operationResultHandler = async () => rawOperationResult(false);
    await harness.request('operation.result.get', { threadId: THREAD, operationId: OPERATION });
  }
  await harness.request('initialize', { protocolVersions: ['1.2'], client: { name: SENTINEL, version: '1' } });
  await harness.request('thread.list', { limit: 0, cursor: SENTINEL });

  // Runtime failures carry SENTINEL in their messages, and in a code that is not an identifier.
  runtime.readThreadHandler = () => Promise.reject(runtimeFailure('THREAD_NOT_FOUND'));
  await harness.request('thread.open', { threadId: THREAD });
  runtime.readThreadHandler = () => Promise.reject(runtimeFailure(SENTINEL));
  await harness.request('thread.open', { threadId: THREAD });
  runtime.listThreadsHandler = () => Promise.reject(new Error(SENTINEL));
  await harness.request('thread.list', { limit: 10 });
  runtime.operationHandler = async () => ({ secret: SENTINEL }) as never;
  await harness.request('operation.get', { threadId: THREAD, operationId: OPERATION });

  // Interactions: approve, reject with reason, user input submitted and cancelled, expiry, terminal turn.
  runtime.raise(approvalRequest());
  await harness.request('interaction.candidate', { interactionId: uuid(900), threadId: THREAD, turnId: TURN, method: 'approval.request', candidate: { decision: 'approve' } });
  runtime.raise(approvalRequest({ interactionId: uuid(902), serverRequestId: `${SENTINEL}-b` }));
  await harness.request('interaction.candidate', {
    interactionId: uuid(902),
    threadId: THREAD,
    turnId: TURN,
    method: 'approval.request',
    candidate: { decision: 'reject', reason: 'browser reason' },
  });
  runtime.raise(userInputRequest());
  await harness.request('interaction.candidate', {
    interactionId: uuid(901),
    threadId: THREAD,
    turnId: TURN,
    method: 'userInput.request',
    candidate: { status: 'submitted', values: [{ id: 'name', value: 'web' }, { id: 'region', value: SENTINEL }] },
  });
  await harness.request('interaction.candidate', {
    interactionId: uuid(901),
    threadId: THREAD,
    turnId: TURN,
    method: 'userInput.request',
    candidate: { status: 'submitted', values: [{ id: 'name', value: 'web' }, { id: 'region', value: 'us' }] },
  });
  runtime.raise(userInputRequest({ interactionId: uuid(903), serverRequestId: `${SENTINEL}-c` }));
  await harness.request('interaction.candidate', { interactionId: uuid(903), threadId: THREAD, turnId: TURN, method: 'userInput.request', candidate: { status: 'cancelled' } });
  runtime.raise(approvalRequest({ interactionId: uuid(904), serverRequestId: `${SENTINEL}-d` }));
  harness.clock.advance(5 * 60 * 1000);
  runtime.raise(approvalRequest({ interactionId: uuid(905), serverRequestId: `${SENTINEL}-e`, expiresAt: '2026-11-30T13:00:00Z' }));
  runtime.raise(approvalRequest({ interactionId: uuid(906), serverRequestId: `${SENTINEL}-f`, request: { method: 'authentication.request', secret: SENTINEL } }));
  runtime.emit(rawEvent({ type: 'turn.cancelled', reason: SENTINEL, message: SENTINEL }));
  runtime.raise(approvalRequest({ interactionId: uuid(907), serverRequestId: `${SENTINEL}-g`, expiresAt: '2026-11-30T13:00:00Z' }));
  await settle();
}

describe.each(['1.2', '1.1'] as const)('the sentinel sweep on Wire %s', (wireVersion) => {
  it('nothing sent and nothing reported contains the sentinel', async () => {
    const harness = await Harness.started({
      wireVersion,
      policies: {
        approval: ({ approval }) => {
          if (approval.id === undefined) throw new Error(SENTINEL);
          return 'allow';
        },
      },
    });
    await driveEverything(harness);
    // Local policy outcomes with texts of their own.
    const denying = await Harness.started({ wireVersion, policies: { approval: () => 'deny' } });
    const throwing = await Harness.started({
      wireVersion,
      policies: {
        approval: () => {
          throw new Error(SENTINEL);
        },
      },
    });
    for (const other of [denying, throwing]) {
      other.runtime.raise(approvalRequest());
      await other.request('interaction.candidate', { interactionId: uuid(900), threadId: THREAD, turnId: TURN, method: 'approval.request', candidate: { decision: 'approve' } });
    }
    await harness.session.shutdown();
    for (const each of [harness, denying, throwing]) {
      await each.flush();
      expect(each.sent.length).toBeGreaterThan(0);
      for (const sent of each.sent) expect(sent.text).not.toContain(SENTINEL);
      expect(JSON.stringify(each.diagnostics)).not.toContain(SENTINEL);
    }
    // The sweep really covered the flows: events, interactions, errors.
    const types = new Set(harness.sent.map((sent) => sent.frame.type));
    expect([...types].sort()).toEqual(['interaction.cancelled', 'interaction.request', 'interaction.resolved', 'runtime.event', 'runtime.response']);
    expect(harness.runtime.resolved.length).toBeGreaterThanOrEqual(4);
  });
});
