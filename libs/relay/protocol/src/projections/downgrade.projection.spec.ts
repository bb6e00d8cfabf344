import { deviceConnect, OTHER_WORKSPACE, REQUEST, request, runtimeEvent, THREAD, WORKSPACE } from '../../test/support/sample-frames';
import type * as Wire12 from '../generated/wire-1.2.types';
import { downgradeFrameTo11 } from './downgrade.projection';

const at = '2026-11-30T10:00:00Z';
const operation = {
  id: OTHER_WORKSPACE,
  sequence: 0,
  toolCallId: 'call-1',
  agentName: 'agent',
  toolName: 'deploy',
  createdAt: at,
  outcome: { kind: 'success' },
  display: null,
  appOutput: { status: 'available', schemaId: 'report', schemaVersion: 1 },
};
const response = (result: unknown) => ({ type: 'runtime.response', requestId: REQUEST, workspaceId: WORKSPACE, result }) as Wire12.WireFrame;

describe('the 1.2 → 1.1 downgrade (§2)', () => {
  it('strips app output from tool.completed without touching the 1.2 frame', () => {
    const frame = runtimeEvent({ type: 'tool.completed', toolCallId: 'c', agentName: 'a', toolName: 't', operationId: OTHER_WORKSPACE, appOutput: { status: 'denied' } }) as Wire12.WireFrame;
    const before = JSON.stringify(frame);
    const verdict = downgradeFrameTo11(frame);
    expect(verdict.ok && verdict.value.type === 'runtime.event' && verdict.value.event.event).toEqual({ type: 'tool.completed', toolCallId: 'c', agentName: 'a', toolName: 't' });
    expect(JSON.stringify(frame)).toBe(before);
  });

  it('relabels device.connect', () => {
    const verdict = downgradeFrameTo11(deviceConnect('1.2') as Wire12.WireFrame);
    expect(verdict.ok && verdict.value.type === 'device.connect' && verdict.value.protocolVersion).toBe('1.1');
  });

  it('strips app output from responses by the method of their request', () => {
    const snapshot = {
      thread: { id: THREAD, createdAt: at, updatedAt: at, messageCount: 0 },
      messages: { items: [], nextBeforeSequence: null },
      operations: { items: [operation], nextBeforeSequence: null },
      pendingApprovals: [],
      transcriptCompleteness: 'complete',
    };
    const viaSnapshot = downgradeFrameTo11(response(snapshot), () => 'thread.snapshot');
    expect(viaSnapshot.ok && JSON.stringify(viaSnapshot.value)).not.toContain('appOutput');
    const viaGet = downgradeFrameTo11(response({ operation }), () => 'operation.get');
    expect(viaGet.ok && JSON.stringify(viaGet.value)).not.toContain('appOutput');
    const manifest = { manifest: { appOutput: { supported: true }, tools: [{ name: 'deploy', appOutput: { remoteReadable: false } }], cwd: '/work' } };
    const viaCapabilities = downgradeFrameTo11(response(manifest), () => 'thread.capabilities');
    expect(viaCapabilities.ok && viaCapabilities.value.type === 'runtime.response' && viaCapabilities.value.result).toEqual({ manifest: { tools: [{ name: 'deploy' }], cwd: '/work' } });
  });

  it('sends a result only if it validates under 1.1', () => {
    expect(downgradeFrameTo11(response({ operation }), () => 'operation.get').ok).toBe(true);
    expect(downgradeFrameTo11(response({ operation: { ...operation, display: undefined, extra: 1 } }), () => 'operation.get').ok).toBe(false);
  });

  it('never carries operation.result.get to a 1.1 peer', () => {
    expect(downgradeFrameTo11(request('operation.result.get', { threadId: THREAD, operationId: OTHER_WORKSPACE }) as Wire12.WireFrame).ok).toBe(false);
    expect(downgradeFrameTo11(response({ result: null }), () => 'operation.result.get').ok).toBe(false);
  });
});
