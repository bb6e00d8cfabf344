/**
 * Trust manifests of a final AI Catalog entry (CARDS.md §2.3 "Trust manifest", "Subject"): one contributor
 * per manifest, a manifest with substance (a signature, a trust schema, non-empty attestations, provenance
 * or extensions), and a subject bound to its entry. Signature verification itself is not done here.
 */
import { childPointer } from './document.issue';
import { checkDigest, checkExtensions, checkSignatureMember } from './catalog-values.rule';
import { clip, FieldReader, isHttpsUrl, type JsonObject } from './document-fields.reader';

/** What a subject must agree with: the entry's own identifying members, as written. */
export interface EntryIdentity {
  identifier: string | undefined;
  type: string | undefined;
  version: string | undefined;
  url: string | undefined;
  digest: string | undefined;
}

export function checkTrustManifest(manifest: JsonObject, at: string, entry: EntryIdentity, fields: FieldReader): void {
  fields.uri(manifest, 'contributor', at, true);
  const signed = checkSignatureMember(manifest, at, fields.issues);
  const subject = fields.member(manifest, 'subject', at, false);
  if (subject) checkSubject(subject, childPointer(at, 'subject'), entry, fields);
  else if (signed && manifest['subject'] === undefined) {
    fields.issues.error(childPointer(at, 'subject'), 'SUBJECT_REQUIRED', 'A signed trust manifest must name its "subject" (identifier, type, and digest or url).');
  }

  const trustSchema = fields.member(manifest, 'trustSchema', at, false);
  if (trustSchema) {
    const schemaAt = childPointer(at, 'trustSchema');
    fields.string(trustSchema, 'identifier', schemaAt, true);
    fields.string(trustSchema, 'version', schemaAt, true);
    fields.uri(trustSchema, 'governanceUri', schemaAt, false);
    fields.stringArray(trustSchema, 'verificationMethods', schemaAt, false);
  }
  const attestations = fields.array(manifest, 'attestations', at, false);
  attestations?.forEach((item, index) => checkAttestation(item, childPointer(childPointer(at, 'attestations'), index), fields));
  const provenance = fields.array(manifest, 'provenance', at, false);
  provenance?.forEach((item, index) => checkProvenance(item, childPointer(childPointer(at, 'provenance'), index), fields));
  const extensions = checkExtensions(manifest, at, fields);

  const hasSubstance =
    signed || manifest['trustSchema'] !== undefined || (attestations?.length ?? 0) > 0 || (provenance?.length ?? 0) > 0 || Object.keys(extensions ?? {}).length > 0;
  if (!hasSubstance) {
    fields.issues.error(
      at,
      'TRUST_MANIFEST_EMPTY',
      'A trust manifest must carry a signature, a trust schema, attestations, provenance or extensions; omit empty manifests.',
    );
  }
}

function checkSubject(subject: JsonObject, at: string, entry: EntryIdentity, fields: FieldReader): void {
  const identifier = fields.string(subject, 'identifier', at, true);
  if (identifier !== undefined && entry.identifier !== undefined && identifier !== entry.identifier) {
    fields.issues.error(childPointer(at, 'identifier'), 'SUBJECT_MISMATCH', `"subject.identifier" (${clip(identifier)}) must equal the entry's identifier (${clip(entry.identifier)}).`);
  }
  const type = fields.string(subject, 'type', at, true);
  if (type !== undefined && entry.type !== undefined && type !== entry.type) {
    fields.issues.error(childPointer(at, 'type'), 'SUBJECT_MISMATCH', `"subject.type" (${clip(type)}) must equal the entry's type (${clip(entry.type)}).`);
  }
  const version = fields.string(subject, 'version', at, false);
  if (version !== entry.version && (subject['version'] === undefined || version !== undefined)) {
    fields.issues.error(
      childPointer(at, 'version'),
      'SUBJECT_MISMATCH',
      entry.version === undefined ? '"subject.version" must be absent when the entry has no version.' : `"subject.version" must equal the entry's version (${clip(entry.version)}).`,
    );
  }
  const digest = checkDigest(subject, 'digest', at, fields);
  if (digest !== undefined && entry.digest !== undefined && digest !== entry.digest) {
    fields.issues.error(childPointer(at, 'digest'), 'SUBJECT_MISMATCH', '"subject.digest" must equal the entry\'s digest.');
  }
  const url = fields.string(subject, 'url', at, false);
  if (url !== undefined) {
    if (!isHttpsUrl(url)) fields.issues.error(childPointer(at, 'url'), 'URL_NOT_HTTPS', '"subject.url" must be an https: URL.');
    else if (url !== entry.url) fields.issues.error(childPointer(at, 'url'), 'SUBJECT_MISMATCH', '"subject.url" must equal the entry\'s url.');
  }
  if (subject['digest'] === undefined && subject['url'] === undefined) {
    fields.issues.error(at, 'SUBJECT_BINDING_MISSING', 'A subject must bind the artifact by "digest" or "url" (or both).');
  }
}

function checkAttestation(item: unknown, at: string, fields: FieldReader): void {
  const attestation = fields.object(item, at, 'An attestation');
  if (!attestation) return;
  fields.string(attestation, 'type', at, true, true);
  const uri = fields.uri(attestation, 'uri', at, true);
  if (uri !== undefined && !isHttpsUrl(uri) && !uri.toLowerCase().startsWith('data:')) {
    fields.issues.error(childPointer(at, 'uri'), 'URL_NOT_HTTPS', '"uri" of an attestation must be an https: or data: URI.');
  }
  checkDigest(attestation, 'digest', at, fields);
  const size = attestation['size'];
  if (size !== undefined && !(typeof size === 'number' && Number.isSafeInteger(size) && size >= 0)) {
    fields.issues.error(childPointer(at, 'size'), 'FIELD_TYPE', '"size" must be a non-negative integer (bytes).');
  }
  fields.string(attestation, 'description', at, false);
}

function checkProvenance(item: unknown, at: string, fields: FieldReader): void {
  const link = fields.object(item, at, 'A provenance link');
  if (!link) return;
  fields.string(link, 'relation', at, true, true);
  fields.string(link, 'sourceId', at, true, true);
  fields.string(link, 'sourceDigest', at, false);
  fields.uri(link, 'registryUri', at, false);
  fields.uri(link, 'statementUri', at, false);
  fields.string(link, 'signatureRef', at, false);
}
