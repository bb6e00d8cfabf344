/**
 * Enrollment use cases shared by the CLI commands and the app: enroll with a pairing code, unenroll, and
 * "enrolled device or enroll now" for `run`. Re-enrolling requires unenrolling first (§12 step 4).
 */
import type { SimulatorConfig } from '../config/simulator-config';
import { redeemPairingCode } from './enrollment.client';
import { EnrollmentError } from './enrollment.errors';
import { enrollmentExists, loadEnrollment, removeEnrollment, saveEnrollment, type StoredEnrollment } from './credential.store';

export type EnrollmentConfig = Pick<SimulatorConfig, 'gateway' | 'tls' | 'pairingCode' | 'credentialFile'>;

export async function enrollDevice(config: EnrollmentConfig, options: { timeoutMs?: number } = {}): Promise<StoredEnrollment> {
  if (config.pairingCode === null) throw new EnrollmentError('NOT_ENROLLED', 'a pairing code is required to enroll (SIMULATOR_PAIRING_CODE)');
  // Checked before redeeming, so an accidental second enroll does not burn a single-use code.
  if (await enrollmentExists(config.credentialFile)) {
    throw new EnrollmentError('ALREADY_ENROLLED', `a device is already enrolled in ${JSON.stringify(config.credentialFile)}; unenroll first to enroll again`);
  }
  const reply = await redeemPairingCode(config.pairingCode, { redeemUrl: config.gateway.redeemUrl, tls: config.tls, ...options });
  const enrollment: StoredEnrollment = {
    ...reply,
    gatewayUrl: config.gateway.httpBase,
    workingDirectory: process.cwd(),
    enrolledAt: new Date().toISOString(),
  };
  await saveEnrollment(config.credentialFile, enrollment);
  return enrollment;
}

export async function unenrollDevice(config: Pick<SimulatorConfig, 'credentialFile'>): Promise<boolean> {
  return removeEnrollment(config.credentialFile);
}

/** The stored device, or a fresh enrollment with the configured pairing code. */
export async function ensureEnrollment(config: EnrollmentConfig): Promise<StoredEnrollment> {
  const stored = await loadEnrollment(config.credentialFile);
  if (stored) {
    if (config.pairingCode !== null) {
      throw new EnrollmentError('ALREADY_ENROLLED', `a device is already enrolled in ${JSON.stringify(config.credentialFile)}; unenroll first to enroll again`);
    }
    return stored;
  }
  if (config.pairingCode === null) {
    throw new EnrollmentError('NOT_ENROLLED', `no device is enrolled in ${JSON.stringify(config.credentialFile)}; enroll with a pairing code first`);
  }
  return enrollDevice(config);
}
