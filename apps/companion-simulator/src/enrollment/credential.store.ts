/**
 * The enrolled device on disk (§12 step 4). One JSON file, created with mode 0600 before any byte is
 * written, atomically (temp file + rename) so a crash never leaves half a credential. It holds the device
 * identity and the device credential; the pairing code is never stored. A file that group or others can
 * read is refused, as ssh refuses a readable private key.
 *
 * Re-enrolling requires unenrolling first: `saveEnrollment` refuses to replace an existing file.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { dirname, resolve } from 'node:path';

import { checkEnrollmentReply, type EnrollmentReply } from './enrollment-reply';
import { EnrollmentError } from './enrollment.errors';

export interface StoredEnrollment extends EnrollmentReply {
  /** The gateway base URL the device enrolled with (https/http form). */
  gatewayUrl: string;
  /** The simulator's working directory at enrollment (recorded as §12 step 4 asks). */
  workingDirectory: string;
  enrolledAt: string;
}

const FILE_VERSION = 1;
const MAX_FILE_BYTES = 16 * 1024;

export async function loadEnrollment(path: string): Promise<StoredEnrollment | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new EnrollmentError('CREDENTIAL_FILE_INVALID', `cannot read the credential file ${JSON.stringify(path)}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new EnrollmentError('CREDENTIAL_FILE_INVALID', `${JSON.stringify(path)} is not a file`);
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      throw new EnrollmentError(
        'CREDENTIAL_FILE_INSECURE',
        `the credential file ${JSON.stringify(path)} is readable by other users (mode ${(stat.mode & 0o777).toString(8)}); run chmod 600 on it`,
      );
    }
    if (stat.size > MAX_FILE_BYTES) throw new EnrollmentError('CREDENTIAL_FILE_INVALID', `the credential file ${JSON.stringify(path)} is too large`);
    const text = await handle.readFile('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new EnrollmentError('CREDENTIAL_FILE_INVALID', `the credential file ${JSON.stringify(path)} is not JSON; unenroll and enroll again`);
    }
    const record = parsed as Partial<Record<keyof StoredEnrollment | 'version', unknown>> | null;
    const reply =
      record && typeof record === 'object'
        ? checkEnrollmentReply({ deviceId: record.deviceId, workspaceId: record.workspaceId, deviceCredential: record.deviceCredential })
        : 'not an object';
    if (
      typeof reply === 'string' ||
      record?.version !== FILE_VERSION ||
      typeof record.gatewayUrl !== 'string' ||
      typeof record.workingDirectory !== 'string' ||
      typeof record.enrolledAt !== 'string'
    ) {
      throw new EnrollmentError('CREDENTIAL_FILE_INVALID', `the credential file ${JSON.stringify(path)} is not a device enrollment; unenroll and enroll again`);
    }
    return { ...reply, gatewayUrl: record.gatewayUrl, workingDirectory: record.workingDirectory, enrolledAt: record.enrolledAt };
  } finally {
    await handle.close();
  }
}

/** Writes a new enrollment; fails with ALREADY_ENROLLED when the file exists. */
export async function saveEnrollment(path: string, enrollment: StoredEnrollment): Promise<void> {
  await fs.mkdir(dirname(resolve(path)), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const content = `${JSON.stringify({ version: FILE_VERSION, ...enrollment }, null, 2)}\n`;
  // O_EXCL + mode 0600 at creation: the secret is never in a file with a wider mode, not even briefly.
  const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // link() refuses to replace an existing file, unlike rename(): enrollment never overwrites a device.
    await fs.link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new EnrollmentError('ALREADY_ENROLLED', `a device is already enrolled in ${JSON.stringify(path)}; unenroll first to enroll again`);
    }
    throw new EnrollmentError('CREDENTIAL_FILE_INVALID', `cannot write the credential file ${JSON.stringify(path)}`);
  } finally {
    await fs.rm(temp, { force: true });
  }
}

/** Removes the stored enrollment (the credential stays valid at the gateway until revoked there). */
export async function removeEnrollment(path: string): Promise<boolean> {
  try {
    await fs.unlink(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new EnrollmentError('CREDENTIAL_FILE_INVALID', `cannot remove the credential file ${JSON.stringify(path)}`);
  }
}

/** True when a file exists at `path` (whatever it holds). */
export async function enrollmentExists(path: string): Promise<boolean> {
  try {
    await fs.stat(path);
    return true;
  } catch {
    return false;
  }
}
