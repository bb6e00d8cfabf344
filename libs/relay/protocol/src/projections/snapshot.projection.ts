/**
 * Pull projections (BEHAVIOUR.md §9): Runtime thread snapshots and operations as `thread.open`,
 * `thread.snapshot` and `operation.get` results.
 *
 * - operations carry `display: null` and `outcome: {kind}`; 1.2 keeps `appOutput`, reporting
 *   `not_provided` where the Runtime has no descriptor;
 * - pending approvals carry `preview: {explanation} | null` and no `reason`;
 * - newer-Runtime fields (`pendingInteractions`, `eventCursor`, recovery data) are dropped;
 * - message parts become text parts;
 * - a `waiting-for-user` turn is reported as `running`.
 *
 * Like every projection it copies from allowlists, and fails closed: malformed Runtime data, or a
 * result that would not validate under the version's result schema, yields issues (the Companion
 * answers `COMPANION_ERROR`).
 */
import type * as Wire12 from '../generated/wire-1.2.types';
import { issue, reject, type Verdict } from '../validation/frame-issue';
import { validateMethodResult } from '../validation/frame-validator';
import type { WireVersion } from '../wire-version';
import { isRecord, pick } from './allowlist';
import { explanationOf } from './runtime-event.projection';

export type ThreadSnapshot = Wire12.ThreadSnapshotResult;
export type OperationView = Wire12.ThreadSnapshotResult['operations']['items'][number];

const malformed = (path: string, what: string) => reject<never>(issue('FIELD_TYPE', path, `The Runtime ${what} is malformed.`));

/** Projects a Runtime thread snapshot as the result of `method` in `version`. */
export function projectThreadSnapshot(
  version: WireVersion,
  runtimeSnapshot: unknown,
  method: 'thread.open' | 'thread.snapshot' = 'thread.snapshot',
): Verdict<ThreadSnapshot> {
  if (!isRecord(runtimeSnapshot)) return malformed('', 'snapshot');
  const { thread, messages, operations, activeTurn, pendingApprovals } = runtimeSnapshot;
  if (!isRecord(thread) || !isRecord(messages) || !isRecord(operations)) return malformed('', 'snapshot');
  if (!Array.isArray(messages['items']) || !Array.isArray(operations['items']) || !Array.isArray(pendingApprovals)) {
    return malformed('', 'snapshot');
  }
  const projectedOperations: unknown[] = [];
  for (const operation of operations['items']) {
    const projected = projectOperationView(version, operation);
    if (!projected) return malformed('/operations/items', 'operation');
    projectedOperations.push(projected);
  }
  const result = {
    thread: pick(thread, ['id', 'title', 'model', 'createdAt', 'updatedAt', 'messageCount']),
    messages: { items: messages['items'].map(projectMessage), nextBeforeSequence: messages['nextBeforeSequence'] },
    operations: { items: projectedOperations, nextBeforeSequence: operations['nextBeforeSequence'] },
    ...(isRecord(activeTurn) ? { activeTurn: projectActiveTurn(activeTurn) } : {}),
    pendingApprovals: pendingApprovals.map((approval) =>
      isRecord(approval)
        ? { ...pick(approval, ['id', 'turnId', 'agentName', 'toolName']), preview: previewOf(approval['preview']) }
        : approval,
    ),
    transcriptCompleteness: runtimeSnapshot['transcriptCompleteness'],
  };
  const verdict = validateMethodResult(version, method, result, '');
  return verdict.ok ? { ok: true, value: result as ThreadSnapshot } : verdict;
}

/** Projects a Runtime operation (or its absence) as the result of `operation.get`. */
export function projectOperationResult(version: WireVersion, runtimeOperation: unknown): Verdict<Wire12.OperationGetResult> {
  const operation = runtimeOperation === null || runtimeOperation === undefined ? null : projectOperationView(version, runtimeOperation);
  if (operation === undefined) return malformed('/operation', 'operation');
  const result = { operation };
  const verdict = validateMethodResult(version, 'operation.get', result, '');
  return verdict.ok ? { ok: true, value: result as Wire12.OperationGetResult } : verdict;
}

function projectOperationView(version: WireVersion, operation: unknown): Record<string, unknown> | undefined {
  if (!isRecord(operation) || !isRecord(operation['outcome'])) return undefined;
  return {
    ...pick(operation, ['id', 'sequence', 'toolCallId', 'agentName', 'toolName', 'createdAt']),
    outcome: { kind: operation['outcome']['kind'] },
    display: null,
    ...(version === '1.2' ? { appOutput: operation['appOutput'] ?? { status: 'not_provided' } } : {}),
  };
}

function projectMessage(message: unknown): unknown {
  if (!isRecord(message)) return message;
  const parts = Array.isArray(message['parts']) ? message['parts'] : [];
  return {
    ...pick(message, ['sequence', 'role', 'createdAt']),
    parts: parts
      .filter((part): part is Record<string, unknown> => isRecord(part) && typeof part['text'] === 'string')
      .map((part) => ({ type: 'text', text: part['text'] })),
  };
}

function projectActiveTurn(turn: Record<string, unknown>): Record<string, unknown> {
  const projected = pick(turn, ['id', 'status', 'startedAt']);
  if (projected['status'] === 'waiting-for-user') projected['status'] = 'running';
  return projected;
}

function previewOf(preview: unknown): { explanation: string } | null {
  const explanation = explanationOf(preview);
  return explanation === undefined ? null : { explanation };
}
