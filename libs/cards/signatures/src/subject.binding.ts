/**
 * Subject binding of a signed trust manifest to its catalog entry (CARDS.md §3.4.5, digest rules of §2.3):
 * identifier and type equal, version absent on both or equal, digest absent on both or equal and, when
 * present, recomputed from the artifact's bytes; `subject.url` HTTPS and equal to `entry.url`.
 */
import { canonicalBytes, isJsonObject, type JsonObject } from './payload.canonical';
import { reject, type SignatureRejected } from './signature.codes';

const DIGEST_ALGORITHMS: Readonly<Record<string, string>> = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };

function toHex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Checks `alg:lowerhex` against `bytes`; a rejection names what is wrong. */
export async function checkDigest(digest: unknown, bytes: Uint8Array, pointer: string): Promise<SignatureRejected | undefined> {
  const match = typeof digest === 'string' ? /^([a-z0-9-]+):([0-9a-f]+)$/.exec(digest) : null;
  const algorithm = match ? DIGEST_ALGORITHMS[match[1] ?? ''] : undefined;
  if (!match || algorithm === undefined) return reject('DIGEST_UNSUPPORTED', pointer, 'A digest must be "sha256:", "sha384:" or "sha512:" followed by lowercase hex; weaker algorithms are refused.');
  const actual = toHex(await crypto.subtle.digest(algorithm, new Uint8Array(bytes)));
  if (actual !== match[2]) return reject('SUBJECT_MISMATCH', pointer, 'The digest does not match the artifact\'s bytes: the artifact changed after it was signed.');
  return undefined;
}

/**
 * The bytes an entry's digest covers: for `data`, the UTF-8 JCS form; for `url`, the exact bytes fetched,
 * which only the caller has (`artifactBytes`).
 */
function artifactBytesOf(entry: JsonObject, artifactBytes: Uint8Array | undefined): Uint8Array | undefined {
  if (entry['data'] !== undefined && entry['data'] !== null) {
    const canonical = canonicalBytes(entry['data']);
    return 'verified' in canonical ? undefined : canonical.bytes;
  }
  return artifactBytes;
}

/** Checks the manifest's `subject` against `entry`; `pointer` is the manifest's. */
export async function checkSubjectBinding(manifest: JsonObject, entry: unknown, artifactBytes: Uint8Array | undefined, pointer: string): Promise<SignatureRejected | undefined> {
  const subject = manifest['subject'];
  const at = `${pointer}/subject`;
  if (!isJsonObject(subject)) return reject('SUBJECT_MISMATCH', at, 'A signed trust manifest needs a "subject" naming the entry it speaks about.');
  if (!isJsonObject(entry)) return reject('DOCUMENT_INVALID', '', 'The catalog entry the manifest belongs to must be given as an object.');
  for (const member of ['identifier', 'type'] as const) {
    if (typeof subject[member] !== 'string' || subject[member] !== entry[member]) {
      return reject('SUBJECT_MISMATCH', `${at}/${member}`, `"subject.${member}" must equal the entry's "${member}" exactly.`);
    }
  }
  if (subject['version'] !== entry['version']) return reject('SUBJECT_MISMATCH', `${at}/version`, '"subject.version" must be absent when the entry has no version, and equal to it otherwise.');
  if (subject['digest'] === undefined && subject['url'] === undefined) return reject('SUBJECT_MISMATCH', at, 'The subject must bind the artifact by "digest" or "url" (or both).');
  if (subject['digest'] !== entry['digest']) return reject('SUBJECT_MISMATCH', `${at}/digest`, '"subject.digest" must be absent when the entry has no digest, and equal to it otherwise.');
  if (subject['digest'] !== undefined) {
    const bytes = artifactBytesOf(entry, artifactBytes);
    if (bytes === undefined) return reject('SUBJECT_DIGEST_UNCHECKED', `${at}/digest`, 'The subject is bound by digest, but the artifact\'s fetched bytes were not available to hash.');
    const problem = await checkDigest(subject['digest'], bytes, `${at}/digest`);
    if (problem) return problem;
  }
  if (subject['url'] !== undefined) {
    const url = subject['url'];
    if (typeof url !== 'string' || !url.startsWith('https://')) return reject('SUBJECT_MISMATCH', `${at}/url`, '"subject.url" must be an https: URL.');
    if (url !== entry['url']) return reject('SUBJECT_MISMATCH', `${at}/url`, '"subject.url" must equal the entry\'s "url" exactly.');
  }
  return undefined;
}
