/**
 * Which frame types each side of each socket may send (BEHAVIOUR.md §13 direction allowlists). The
 * baseline profile has no end-to-end encryption, so `runtime.encrypted` is allowed only on sockets
 * that opted into an encryption profile (§7), and then in either direction.
 */
import { CONTROL_REGISTRY } from '../generated/registry';

export const DIRECTIONS = ['browser-to-relay', 'relay-to-browser', 'companion-to-relay', 'relay-to-companion'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export function isDirection(value: unknown): value is Direction {
  return typeof value === 'string' && (DIRECTIONS as readonly string[]).includes(value);
}

const ALLOWLISTS: Record<Direction, readonly string[]> = {
  'browser-to-relay': CONTROL_REGISTRY.browser.peerToRelay,
  'relay-to-browser': CONTROL_REGISTRY.browser.relayToPeer,
  'companion-to-relay': CONTROL_REGISTRY.companion.peerToRelay,
  'relay-to-companion': CONTROL_REGISTRY.companion.relayToPeer,
};
// Every inbound frame is checked against one of these: sets keep the check O(1).
const ALLOWED: Record<Direction, ReadonlySet<string>> = {
  'browser-to-relay': new Set(ALLOWLISTS['browser-to-relay']),
  'relay-to-browser': new Set(ALLOWLISTS['relay-to-browser']),
  'companion-to-relay': new Set(ALLOWLISTS['companion-to-relay']),
  'relay-to-companion': new Set(ALLOWLISTS['relay-to-companion']),
};

const ENCRYPTED = 'runtime.encrypted';

export interface DirectionOptions {
  /** The socket uses an end-to-end encryption profile, so `runtime.encrypted` may cross it. */
  encryption?: boolean;
}

export function allowedFrameTypes(direction: Direction, options: DirectionOptions = {}): readonly string[] {
  const base = ALLOWLISTS[direction];
  return options.encryption ? [...base, ENCRYPTED] : base;
}

export function isAllowedInDirection(direction: Direction, frameType: string, options: DirectionOptions = {}): boolean {
  return isAllowedOnSocket(direction, frameType, options.encryption === true);
}

/** `isAllowedInDirection` without an options object, for the per-frame path. */
export function isAllowedOnSocket(direction: Direction, frameType: string, encryption: boolean): boolean {
  return ALLOWED[direction].has(frameType) || (encryption && frameType === ENCRYPTED);
}

/** Browser sockets carry Control 1.0 messages from the relay besides Wire frames. */
export function carriesControl(direction: Direction): boolean {
  return direction === 'relay-to-browser';
}

export function isBrowserSocket(direction: Direction): boolean {
  return direction === 'browser-to-relay' || direction === 'relay-to-browser';
}
