/**
 * The final AI Catalog (`application/ai-catalog+json`, CARDS.md §2.3): root, host, entries (url xor data,
 * `data: null` counting as absent), (identifier, version) uniqueness, digests, publishers, trust manifests,
 * extensions, and nested catalogs given inline in `data`, validated recursively up to 4 levels (the root is
 * level 1). Unknown members are ignored and kept: validation never rewrites the document.
 * Nested catalogs given by `url` are not fetched here; the crawler follows them with its own visited set.
 */
import { childPointer, type IssueList } from './document.issue';
import { checkDigest, checkExtensions, checkSignatureMember } from './catalog-values.rule';
import { clip, FieldReader, isObject, type JsonObject } from './document-fields.reader';
import { readSpecVersion } from './spec-version.rule';
import { checkTrustManifest, type EntryIdentity } from './trust-manifest.validator';

export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
/** Deepest catalog level followed: the root catalog is level 1 (CARDS.md §2.3 Nesting). */
export const MAX_CATALOG_LEVELS = 4;

const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export function validateAiCatalog(catalog: JsonObject, path: string, issues: IssueList, level = 1): void {
  const fields = new FieldReader(issues);
  readSpecVersion(catalog, path, issues, 'AI Catalog');
  const host = fields.member(catalog, 'host', path, false);
  if (host) {
    const hostAt = childPointer(path, 'host');
    fields.string(host, 'displayName', hostAt, true);
    fields.string(host, 'identifier', hostAt, false, true);
    fields.uri(host, 'documentationUrl', hostAt, false);
    fields.uri(host, 'logoUrl', hostAt, false);
  }
  checkExtensions(catalog, path, fields);
  checkSignatureMember(catalog, path, issues);
  // additionalSignatures is reserved: accepted and ignored, whatever it holds.

  const entries = fields.array(catalog, 'entries', path, true);
  if (!entries) return;
  const entriesAt = childPointer(path, 'entries');
  const identities: (EntryIdentity | undefined)[] = entries.map((item, index) => checkEntry(item, childPointer(entriesAt, index), fields, level));
  checkUniqueness(identities, entriesAt, issues);
}

function checkEntry(item: unknown, at: string, fields: FieldReader, level: number): EntryIdentity | undefined {
  const entry = fields.object(item, at, 'A catalog entry');
  if (!entry) return undefined;
  const identifier = fields.string(entry, 'identifier', at, true, true);
  if (identifier !== undefined && !URI_SCHEME.test(identifier)) {
    fields.issues.warn(
      childPointer(at, 'identifier'),
      'IDENTIFIER_OPAQUE',
      `"identifier" (${clip(identifier)}) has no URI scheme, so it is opaque; prefer urn:air:{publisher-domain}:{namespace}:{name}.`,
    );
  }
  const type = fields.string(entry, 'type', at, true, true);
  if (type !== undefined && !MEDIA_TYPE.test(type)) {
    fields.issues.error(childPointer(at, 'type'), 'FIELD_PATTERN', `"type" must be a media type such as application/a2a-agent-card+json, not "${clip(type)}".`);
  }

  const hasUrl = entry['url'] !== undefined;
  const hasData = entry['data'] !== undefined && entry['data'] !== null;
  let url: string | undefined;
  if (hasUrl && hasData) {
    fields.issues.error(at, 'ENTRY_CONTENT_BOTH', 'An entry carries its artifact by "url" or inline "data", not both.');
  } else if (!hasUrl && !hasData) {
    fields.issues.error(at, 'ENTRY_CONTENT_MISSING', 'An entry must carry its artifact by "url" or inline "data" ("data": null counts as absent).');
  }
  // https only: the registry fetches and hashes what url names (registry policy, CARDS.md §3.3 safe fetching).
  if (hasUrl) url = fields.httpsUrl(entry, 'url', at, true);

  fields.string(entry, 'displayName', at, false);
  fields.string(entry, 'description', at, false);
  fields.stringArray(entry, 'tags', at, false);
  const version = fields.string(entry, 'version', at, false, true);
  fields.timestamp(entry, 'updatedAt', at, false);
  const publisher = fields.member(entry, 'publisher', at, false);
  if (publisher) {
    const publisherAt = childPointer(at, 'publisher');
    fields.string(publisher, 'identifier', publisherAt, true, true);
    fields.string(publisher, 'displayName', publisherAt, true);
    fields.string(publisher, 'identityType', publisherAt, false);
  }
  const digest = checkDigest(entry, 'digest', at, fields);
  checkExtensions(entry, at, fields);

  const identity: EntryIdentity = { identifier, type, version, url, digest };
  fields.array(entry, 'trustManifests', at, false)?.forEach((manifest, index) => {
    const manifestAt = childPointer(childPointer(at, 'trustManifests'), index);
    const object = fields.object(manifest, manifestAt, 'A trust manifest');
    if (object) checkTrustManifest(object, manifestAt, identity, fields);
  });

  if (type === AI_CATALOG_MEDIA_TYPE && hasData && !hasUrl) checkNestedCatalog(entry['data'], childPointer(at, 'data'), fields.issues, level + 1);
  return identity;
}

function checkNestedCatalog(data: unknown, at: string, issues: IssueList, level: number): void {
  if (level > MAX_CATALOG_LEVELS) {
    issues.error(at, 'NESTED_CATALOG_TOO_DEEP', `Nested catalogs go ${level} levels deep; at most ${MAX_CATALOG_LEVELS} levels (the root included) are followed.`);
    return;
  }
  if (!isObject(data)) {
    issues.error(at, 'FIELD_TYPE', `Inline "data" of an ${AI_CATALOG_MEDIA_TYPE} entry must be an AI Catalog object.`);
    return;
  }
  validateAiCatalog(data, at, issues, level);
}

/** Identifiers may repeat only with distinct versions: (identifier, version) unique, else identifier unique. */
function checkUniqueness(identities: (EntryIdentity | undefined)[], entriesAt: string, issues: IssueList): void {
  const byIdentifier = new Map<string, { index: number; version: string | undefined }[]>();
  identities.forEach((identity, index) => {
    if (identity?.identifier === undefined) return;
    const seen = byIdentifier.get(identity.identifier) ?? [];
    seen.push({ index, version: identity.version });
    byIdentifier.set(identity.identifier, seen);
  });
  for (const [identifier, seen] of byIdentifier) {
    if (seen.length < 2) continue;
    const versions = new Set<string>();
    for (const { index, version } of seen) {
      const at = childPointer(entriesAt, index);
      if (version === undefined) {
        issues.error(
          childPointer(at, 'identifier'),
          'ENTRY_DUPLICATE_IDENTIFIER',
          `Identifier "${clip(identifier)}" appears ${seen.length} times; entries sharing an identifier must each carry a distinct "version".`,
        );
      } else if (versions.has(version)) {
        issues.error(childPointer(at, 'version'), 'ENTRY_DUPLICATE_VERSION', `Identifier "${clip(identifier)}" with version "${clip(version)}" appears more than once.`);
      } else {
        versions.add(version);
      }
    }
  }
}
