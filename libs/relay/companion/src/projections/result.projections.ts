/**
 * Result projections the protocol library has no function for: thread summaries (`thread.list`,
 * `thread.create`, `thread.rename`), the `thread.capabilities` manifest in 1.2, and the app-output result
 * of `operation.result.get`. Like the library's projections they copy from allowlists only, never by
 * deleting from raw data; the core validates every result against the session's result schema before
 * sending it (fail closed → `COMPANION_ERROR`).
 */
import type { Wire12, WireVersion } from '@trustmesh/relay-protocol';

import type { RuntimeThread } from '../agent-runtime.port';
import type { AppResultGrant } from '../policy/companion-policies';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A new object with only the named, defined keys of `source`. */
export function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(source, key)) continue;
    const value = source[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

const SUMMARY_FIELDS = ['id', 'title', 'model', 'createdAt', 'updatedAt', 'messageCount'] as const;

/** The Wire `ThreadSummary` of a Runtime thread. */
export function projectThreadSummary(thread: RuntimeThread | unknown): Record<string, unknown> | undefined {
  return isRecord(thread) ? pick(thread, SUMMARY_FIELDS) : undefined;
}

/** Wraps a grant so a throwing or non-boolean answer denies (fail closed). */
export function safeGrant(grant: AppResultGrant, agentName: unknown, toolName: unknown): boolean {
  if (typeof agentName !== 'string' || typeof toolName !== 'string') return false;
  try {
    return grant(agentName, toolName) === true;
  } catch {
    return false;
  }
}

/**
 * The capabilities manifest crosses as the Runtime gives it (exposed on purpose, §9), except that a 1.2
 * session learns `appOutput = {supported}` and each tool's `appOutput.remoteReadable` from the live host
 * grant. 1.1 sessions are downgraded afterwards, which removes every `appOutput`.
 */
export function projectCapabilities(
  version: Exclude<WireVersion, '1.0'>,
  manifest: unknown,
  appResults: boolean,
  grant: AppResultGrant,
): { manifest: Record<string, unknown> } | undefined {
  if (!isRecord(manifest)) return undefined;
  const out: Record<string, unknown> = { ...manifest };
  if (version === '1.2') {
    out['appOutput'] = { supported: appResults };
    const tools = manifest['tools'];
    if (Array.isArray(tools)) {
      out['tools'] = tools.map((tool: unknown) => {
        if (!isRecord(tool) || !isRecord(tool['appOutput'])) return tool;
        return { ...tool, appOutput: { ...tool['appOutput'], remoteReadable: safeGrant(grant, tool['agentName'], tool['toolName']) } };
      });
    }
  }
  return { manifest: out };
}

type OperationResultView = NonNullable<Wire12.OperationResultGetResult['result']>;

/**
 * `operation.result.get` (§4): identity and the output, which becomes `{status:"denied"}` unless the host
 * grants the (agentName, toolName) pair and the Runtime marked an available output `remoteReadable`.
 * `undefined` when the Runtime data is malformed.
 */
export function projectOperationAppResult(runtimeResult: unknown, grant: AppResultGrant): Wire12.OperationResultGetResult | undefined {
  if (runtimeResult === null || runtimeResult === undefined) return { result: null };
  if (!isRecord(runtimeResult) || !isRecord(runtimeResult['output'])) return undefined;
  const identity = pick(runtimeResult, ['threadId', 'operationId', 'agentName', 'toolName', 'createdAt']);
  const raw = runtimeResult['output'];
  let output: Record<string, unknown>;
  if (!safeGrant(grant, runtimeResult['agentName'], runtimeResult['toolName'])) {
    output = { status: 'denied' };
  } else if (raw['status'] === 'available') {
    output = raw['remoteReadable'] === true ? pick(raw, ['status', 'schemaId', 'schemaVersion', 'remoteReadable', 'data', 'fallbackText']) : { status: 'denied' };
  } else if (raw['status'] === 'rejected') {
    output = pick(raw, ['status', 'reason', 'field']);
  } else {
    output = { status: raw['status'] };
  }
  return { result: { ...identity, output } as OperationResultView };
}
