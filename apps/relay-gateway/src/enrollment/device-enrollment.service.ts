/**
 * Device enrollment (§12 steps 2–3): a pairing code is redeemed once, atomically across replicas, for a
 * fresh device id and a long-lived device credential. The code's stream is keyed by its SHA-256, and the
 * redeem appends at the version it read, so of two concurrent redeems exactly one wins. The credential is
 * returned once and kept only as its SHA-256 verifier (in DeviceEnrolled).
 *
 * Two appends, in this order: PairingCodeRedeemed (the single-use gate), then DeviceEnrolled. A crash
 * between them consumes the code without enrolling a device; the person issues a new code.
 */
import { ConcurrencyError } from '@trustmesh/platform-event-store';
import { uuidv7 } from '@trustmesh/platform-events';
import { sha256Hex } from '@trustmesh/platform-credentials';

import type { ControlStore } from '../control/control-store';
import { controlEvent, streams } from '../control/control.events';
import { decidePairingRedeem, pairingCodeState } from '../control/control.state';
import { looksLike, mintSecret } from '../control/secrets';
import type { JsonLogger } from '../logging/json-logger';

/** §11: a pairing code is at most 4 KiB, trimmed, non-empty. */
export const MAX_PAIRING_CODE_BYTES = 4096;

export const REDEEM_ERRORS = {
  CODE_REQUIRED: { status: 400, message: 'The body must be {"code": "<pairing code>"} with a non-empty code.' },
  CODE_TOO_LONG: { status: 400, message: 'The pairing code is longer than 4 KiB.' },
  PAIRING_CODE_INVALID: { status: 400, message: 'This pairing code is not valid. Ask for a new one.' },
  PAIRING_CODE_EXPIRED: { status: 410, message: 'This pairing code has expired. Ask for a new one.' },
  PAIRING_CODE_ALREADY_USED: { status: 409, message: 'This pairing code was already used. Ask for a new one.' },
} as const;
export type RedeemErrorCode = keyof typeof REDEEM_ERRORS;

export type RedeemResult =
  | { ok: true; deviceId: string; workspaceId: string; deviceCredential: string }
  | { ok: false; code: RedeemErrorCode };

export class DeviceEnrollmentService {
  constructor(
    private readonly control: ControlStore,
    private readonly logger: JsonLogger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async redeem(rawCode: unknown): Promise<RedeemResult> {
    if (typeof rawCode !== 'string') return { ok: false, code: 'CODE_REQUIRED' };
    if (Buffer.byteLength(rawCode, 'utf8') > MAX_PAIRING_CODE_BYTES) return { ok: false, code: 'CODE_TOO_LONG' };
    const code = rawCode.trim();
    if (code === '') return { ok: false, code: 'CODE_REQUIRED' };
    if (!looksLike('pairingCode', code)) return { ok: false, code: 'PAIRING_CODE_INVALID' };

    const streamId = streams.pairingCode(sha256Hex(code));
    const state = pairingCodeState(await this.control.read(streamId));
    const verdict = decidePairingRedeem(state, this.now());
    if (verdict === 'unknown' || !state.issued) return this.refuse('PAIRING_CODE_INVALID');
    if (verdict === 'used') return this.refuse('PAIRING_CODE_ALREADY_USED', state.issued.workspaceId);
    if (verdict === 'expired') return this.refuse('PAIRING_CODE_EXPIRED', state.issued.workspaceId);

    const { workspaceId, codeId } = state.issued;
    const deviceId = uuidv7();
    const redeemedAt = this.now().toISOString();
    try {
      await this.control.append(streamId, state.version, [controlEvent('PairingCodeRedeemed', { codeId, workspaceId, deviceId, redeemedAt })]);
    } catch (error) {
      if (error instanceof ConcurrencyError) return this.refuse('PAIRING_CODE_ALREADY_USED', workspaceId);
      throw error;
    }
    const deviceCredential = mintSecret('deviceCredential');
    await this.control.append(streams.device(deviceId), 'no-stream', [
      controlEvent('DeviceEnrolled', { deviceId, workspaceId, codeId, credentialVerifier: sha256Hex(deviceCredential), enrolledAt: redeemedAt }),
    ]);
    this.logger.info('device enrolled', { workspaceId, deviceId });
    return { ok: true, deviceId, workspaceId, deviceCredential };
  }

  private refuse(code: RedeemErrorCode, workspaceId?: string): RedeemResult {
    this.logger.info('pairing code refused', { refusal: code, workspaceId });
    return { ok: false, code };
  }
}
