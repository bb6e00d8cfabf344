/**
 * Request method registry (BEHAVIOUR.md §4): which methods each Wire version recognises and how each
 * is treated. Read from the schema documents' `x-roll-*` keywords.
 */
import { WIRE_REGISTRY } from '../generated/registry';
import type { WireVersion } from '../wire-version';

export type MethodDisposition = 'query' | 'mutation' | 'local-only';

/** The disposition of `method` in `version`, or `null` if that version does not recognise it. */
export function methodDisposition(version: WireVersion, method: string): MethodDisposition | null {
  const dispositions: Readonly<Record<string, MethodDisposition>> = WIRE_REGISTRY[version].dispositions;
  return Object.prototype.hasOwnProperty.call(dispositions, method) ? (dispositions[method] ?? null) : null;
}

export function requestMethods(version: WireVersion): readonly string[] {
  return WIRE_REGISTRY[version].requestMethods;
}

/** Only mutations are idempotent and cached (§5). */
export function isMutation(version: WireVersion, method: string): boolean {
  return methodDisposition(version, method) === 'mutation';
}

export function messageTypes(version: WireVersion): readonly string[] {
  return WIRE_REGISTRY[version].messageTypes;
}
