/**
 * The seed AI Catalog (`definitions/ai-catalog-v1.cddl`, rule AICatalog; CARDS.md §2.1), served at
 * `/.well-known/ai-catalog.json`: `$schema`, `host{name, id?, documentationUrl?, logoUrl?}` and `aiCards[]`
 * entries `{id, name, description, tags?, cardUrl, updatedAt}`. Maps are closed, as in the seed CDDL.
 * The drafts' array names (`agents`, `services`, `records`) and their `specVersion` are accepted only with
 * the explicit `compatibility` option, as warnings; without it they are CATALOG_DRAFT_FORM errors.
 */
import { childPointer, type IssueList } from './document.issue';
import { FieldReader, type JsonObject } from './document-fields.reader';

export const SEED_CATALOG_ARRAY = 'aiCards';
export const DRAFT_CATALOG_ARRAYS = ['agents', 'services', 'records'] as const;
const ROOT_MEMBERS = ['$schema', 'host', SEED_CATALOG_ARRAY];
const HOST_MEMBERS = ['name', 'id', 'documentationUrl', 'logoUrl'];
const ENTRY_MEMBERS = ['id', 'name', 'description', 'tags', 'cardUrl', 'updatedAt'];

/** The member holding the card list: `aiCards`, or (drafts) the first of `agents`/`services`/`records` that is an array. */
export function seedCatalogArrayName(catalog: JsonObject): string | undefined {
  if (catalog[SEED_CATALOG_ARRAY] !== undefined) return SEED_CATALOG_ARRAY;
  return DRAFT_CATALOG_ARRAYS.find((name) => Array.isArray(catalog[name]));
}

export function validateSeedCatalog(catalog: JsonObject, issues: IssueList, compatibility: boolean): void {
  const fields = new FieldReader(issues);
  const arrayName = seedCatalogArrayName(catalog) ?? SEED_CATALOG_ARRAY;
  const drafted = arrayName !== SEED_CATALOG_ARRAY;

  for (const key of Object.keys(catalog)) {
    if (ROOT_MEMBERS.includes(key)) continue;
    if (key === arrayName || key === 'specVersion') {
      issues.report(
        compatibility,
        childPointer('', key),
        'CATALOG_DRAFT_FORM',
        compatibility
          ? `"${key}" comes from a draft catalog; accepted in compatibility mode (the seed catalog uses "aiCards" and has no specVersion).`
          : `"${key}" comes from a draft catalog; the seed catalog uses "aiCards" and has no specVersion (drafts are accepted only in compatibility mode).`,
      );
    } else {
      issues.error(childPointer('', key), 'FIELD_UNKNOWN', `"${key}" is not a member of a seed AI Catalog.`);
    }
  }
  if (compatibility && catalog['specVersion'] !== undefined) fields.string(catalog, 'specVersion', '', false, true);

  fields.uri(catalog, '$schema', '', !drafted || !compatibility);
  const host = fields.member(catalog, 'host', '', true);
  if (host) {
    fields.closed(host, '/host', HOST_MEMBERS, false, 'host');
    fields.string(host, 'name', '/host', true);
    fields.uri(host, 'id', '/host', false);
    fields.uri(host, 'documentationUrl', '/host', false);
    fields.uri(host, 'logoUrl', '/host', false);
  }
  const arrayAt = childPointer('', arrayName);
  fields.array(catalog, arrayName, '', true)?.forEach((item, index) => {
    const at = childPointer(arrayAt, index);
    const entry = fields.object(item, at, 'An AI Card entry');
    if (!entry) return;
    fields.closed(entry, at, ENTRY_MEMBERS, false, 'an AI Card entry');
    fields.uri(entry, 'id', at, true);
    fields.string(entry, 'name', at, true);
    fields.string(entry, 'description', at, true);
    fields.stringArray(entry, 'tags', at, false);
    fields.uri(entry, 'cardUrl', at, true);
    // The drafts' examples omit updatedAt; compatibility mode lets that pass with a warning.
    if (compatibility && drafted && entry['updatedAt'] === undefined) {
      issues.warn(childPointer(at, 'updatedAt'), 'CATALOG_DRAFT_FORM', '"updatedAt" is missing (draft catalog); crawlers cannot skip unchanged cards.');
    } else {
      fields.timestamp(entry, 'updatedAt', at, true);
    }
  });
}
