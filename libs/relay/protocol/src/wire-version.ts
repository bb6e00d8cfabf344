/**
 * Wire versions and version negotiation (BEHAVIOUR.md §2).
 */
export const WIRE_VERSIONS = ['1.0', '1.1', '1.2'] as const;
export type WireVersion = (typeof WIRE_VERSIONS)[number];

/** Preference order: the newest version both peers support wins. */
const PREFERENCE: readonly WireVersion[] = ['1.2', '1.1', '1.0'];

/**
 * Wire versions a remote-facing host may speak. 1.0 is unredacted and safe only inside a local trust
 * boundary, so relays and browsers refuse it (§2).
 */
export const REMOTE_WIRE_VERSIONS: readonly WireVersion[] = ['1.2', '1.1'];

/** What a browser is assumed to accept when its backend forwarded no list (§2). */
export const DEFAULT_BROWSER_WIRE_VERSIONS: readonly WireVersion[] = ['1.1'];

export function isWireVersion(value: unknown): value is WireVersion {
  return typeof value === 'string' && (WIRE_VERSIONS as readonly string[]).includes(value);
}

/**
 * Picks the first entry of ["1.2","1.1","1.0"] that both sides support, ignoring entries neither knows
 * (`"9.9"`). `null` means no overlap, and the connection must fail closed.
 */
export function negotiateWireVersion(
  peerVersions: readonly string[],
  localVersions: readonly WireVersion[] = WIRE_VERSIONS,
): WireVersion | null {
  return PREFERENCE.find((version) => peerVersions.includes(version) && localVersions.includes(version)) ?? null;
}

/** The versions at or below `version`: what a peer of that version can fall back to (N−1). */
export function versionsUpTo(version: WireVersion): WireVersion[] {
  return WIRE_VERSIONS.filter((candidate) => compareWireVersions(candidate, version) <= 0);
}

export function compareWireVersions(a: WireVersion, b: WireVersion): number {
  return WIRE_VERSIONS.indexOf(a) - WIRE_VERSIONS.indexOf(b);
}
