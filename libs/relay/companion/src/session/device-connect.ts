/**
 * The first frame of every Companion socket (BEHAVIOUR.md §12). Sending it is the transport's job; this
 * builds and validates it so a host never hand-writes it. `pairingToken` carries the long-lived device
 * credential, never a pairing code.
 */
import { validateWireFrame } from '@trustmesh/relay-protocol';

import type { CompanionWireVersion } from './companion-session';

export interface DeviceConnectInput {
  wireVersion: CompanionWireVersion;
  deviceId: string;
  /** The device credential from enrollment (≥ 16 characters). */
  deviceCredential: string;
}

/** The `device.connect` frame text; throws (without echoing the credential) if the input is invalid. */
export function deviceConnectFrame(input: DeviceConnectInput): string {
  const frame = { type: 'device.connect', protocolVersion: input.wireVersion, deviceId: input.deviceId, pairingToken: input.deviceCredential };
  const verdict = validateWireFrame(input.wireVersion, frame);
  if (!verdict.ok) {
    const fields = verdict.issues.map((found) => found.path || '/').join(', ');
    throw new Error(`device.connect is invalid at ${fields}: deviceId must be a UUID and the credential at least 16 characters.`);
  }
  return JSON.stringify(frame);
}
