/**
 * The redeem reply of §12 step 3, checked strictly: a 2xx body must be exactly
 * `{deviceId: uuid, workspaceId: uuid, deviceCredential: string ≥16}`; anything else fails enrollment.
 */
export interface EnrollmentReply {
  deviceId: string;
  workspaceId: string;
  /** A long-lived secret: never log it. */
  deviceCredential: string;
}

/** UUID versions 1–8 with variant 8/9/a/b, or the nil UUID (the spec's id rule). */
const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000)$/i;
export const MIN_DEVICE_CREDENTIAL_LENGTH = 16;
/** Upper bound so a hostile reply cannot make us store megabytes. */
export const MAX_DEVICE_CREDENTIAL_LENGTH = 4096;
const REPLY_KEYS = ['deviceCredential', 'deviceId', 'workspaceId'];

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** Returns the reply, or a reason (which never quotes the credential) why it is not acceptable. */
export function checkEnrollmentReply(body: unknown): EnrollmentReply | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the reply is not a JSON object';
  const keys = Object.keys(body).sort();
  if (keys.length !== REPLY_KEYS.length || keys.some((key, index) => key !== REPLY_KEYS[index])) {
    return `the reply must have exactly the fields deviceId, workspaceId and deviceCredential (got ${keys.slice(0, 8).map((k) => JSON.stringify(k.slice(0, 40))).join(', ') || 'none'})`;
  }
  const { deviceId, workspaceId, deviceCredential } = body as Record<string, unknown>;
  if (!isUuid(deviceId)) return 'deviceId is not a UUID';
  if (!isUuid(workspaceId)) return 'workspaceId is not a UUID';
  if (typeof deviceCredential !== 'string') return 'deviceCredential is not a string';
  if (deviceCredential.length < MIN_DEVICE_CREDENTIAL_LENGTH) return `deviceCredential is shorter than ${MIN_DEVICE_CREDENTIAL_LENGTH} characters`;
  if (deviceCredential.length > MAX_DEVICE_CREDENTIAL_LENGTH) return `deviceCredential is longer than ${MAX_DEVICE_CREDENTIAL_LENGTH} characters`;
  return { deviceId: deviceId.toLowerCase(), workspaceId: workspaceId.toLowerCase(), deviceCredential };
}
