/**
 * The 1.2 → 1.1 downgrade (BEHAVIOUR.md §2). Whoever delivers 1.2 data to a 1.1 peer removes:
 *
 * - `appOutput` and `operationId` from `tool.completed`;
 * - `appOutput` from operations in `thread.open`, `thread.snapshot` and `operation.get` results;
 * - `manifest.appOutput` and `tools[].appOutput` from `thread.capabilities` results;
 *
 * relabels `device.connect` as `"1.1"`, and sends the result only if it validates under 1.1. A relay
 * bridging a 1.2 Companion to a 1.1 browser tracks `requestId → method` to know how to downgrade a
 * response; it passes that lookup in. The input frame is never modified: the same 1.2 frame may also
 * go, unchanged, to a 1.2 browser.
 */
import type * as Wire11 from '../generated/wire-1.1.types';
import type * as Wire12 from '../generated/wire-1.2.types';
import { issue, reject, type Verdict } from '../validation/frame-issue';
import { validateMethodResult, validateWireFrame } from '../validation/frame-validator';
import { isRecord } from './allowlist';

const without = (record: Record<string, unknown>, ...keys: string[]): Record<string, unknown> => {
  const copy = { ...record };
  for (const key of keys) delete copy[key];
  return copy;
};

export function downgradeFrameTo11(frame: Wire12.WireFrame, methodOf: (requestId: string) => string | undefined = () => undefined): Verdict<Wire11.WireFrame> {
  let downgraded: unknown = frame;
  let method: string | undefined;
  switch (frame.type) {
    case 'device.connect':
      downgraded = { ...frame, protocolVersion: '1.1' };
      break;
    case 'runtime.event': {
      const event = frame.event.event;
      if (event.type === 'tool.completed') {
        downgraded = { ...frame, event: { ...frame.event, event: without(event, 'appOutput', 'operationId') } };
      }
      break;
    }
    case 'runtime.request':
      if (frame.method === 'operation.result.get') {
        return reject(issue('METHOD_UNKNOWN', '/method', '`operation.result.get` does not exist in Wire 1.1.'));
      }
      break;
    case 'runtime.response':
      method = methodOf(frame.requestId);
      if (method === 'operation.result.get') {
        return reject(issue('METHOD_UNKNOWN', '/method', '`operation.result.get` has no Wire 1.1 response.'));
      }
      if (frame.result !== undefined && method !== undefined) {
        downgraded = { ...frame, result: downgradeResult(method, frame.result) };
      }
      break;
    default:
      break;
  }
  const verdict = validateWireFrame('1.1', downgraded);
  if (!verdict.ok || method === undefined || verdict.value.type !== 'runtime.response' || verdict.value.result === undefined) {
    return verdict;
  }
  const result = validateMethodResult('1.1', method, verdict.value.result);
  return result.ok ? verdict : result;
}

function downgradeResult(method: string, result: unknown): unknown {
  if (!isRecord(result)) return result;
  switch (method) {
    case 'thread.open':
    case 'thread.snapshot': {
      const operations = result['operations'];
      if (!isRecord(operations) || !Array.isArray(operations['items'])) return result;
      return {
        ...result,
        operations: { ...operations, items: operations['items'].map((op) => (isRecord(op) ? without(op, 'appOutput') : op)) },
      };
    }
    case 'operation.get':
      return isRecord(result['operation']) ? { ...result, operation: without(result['operation'], 'appOutput') } : result;
    case 'thread.capabilities': {
      const manifest = result['manifest'];
      if (!isRecord(manifest)) return result;
      const stripped = without(manifest, 'appOutput');
      if (Array.isArray(manifest['tools'])) {
        stripped['tools'] = manifest['tools'].map((tool) => (isRecord(tool) ? without(tool, 'appOutput') : tool));
      }
      return { ...result, manifest: stripped };
    }
    default:
      return result;
  }
}
