/**
 * Reads one fetched catalog (CARDS.md §2.1 seed, §2.3 final) into what the crawler follows: the identifiers it lists,
 * the entries served by URL (cards and nested catalogs) and the entries carried inline (`data`). Rules kept here:
 * - content type: `application/ai-catalog+json`, or `application/json` when the document has `specVersion` (or seed
 *   `aiCards`); ARD documents (`/.well-known/ard.json`) are read when they hold an AI Catalog;
 * - validation through @trustmesh/cards-documents: an error inside one entry refuses that entry only (ENTRY_INVALID),
 *   any other error refuses the catalog (CATALOG_INVALID);
 * - at most `maxEntriesPerCatalog` entries are followed, but every listed identifier counts as listed, so a cap never
 *   tombstones anything;
 * - inline nested catalogs are read in place, one level deeper, within the same level bound as fetched ones.
 */
import { AI_CATALOG_MEDIA_TYPE, validateDocument, type DocumentIssue } from '@trustmesh/cards-documents';
import type { CrawlProblemCode, EntryReference } from './crawl.types';
import { isDeprecatedBy } from './record-status.rule';

const SEED_ARRAYS = ['aiCards', 'agents', 'services', 'records'] as const;

export interface InlineEntry {
  readonly identifier: string;
  readonly pointer: string;
  readonly type: string;
  readonly version?: string;
  readonly digest?: string;
  readonly data: unknown;
  readonly deprecated: boolean;
}

export interface CatalogReading {
  readonly listed: string[];
  readonly references: EntryReference[];
  readonly inline: InlineEntry[];
  /** Problems about single entries; the catalog itself was read. */
  readonly entryProblems: ReadProblem[];
}

export interface ReadProblem {
  readonly code: CrawlProblemCode;
  readonly pointer: string;
  readonly message: string;
}

export interface ReadOptions {
  readonly contentType: string | undefined;
  /** The document was found as `/.well-known/ard.json` or by `rel="ard"`. */
  readonly ard: boolean;
  /** Level of this catalog (root = 1), to bound inline nesting. */
  readonly level: number;
  readonly maxLevels: number;
  readonly maxBytes: number;
  readonly maxEntries: number;
  readonly compatibility: boolean;
}

export function readCatalog(bytes: Uint8Array, options: ReadOptions): { ok: true; reading: CatalogReading } | { ok: false; problems: ReadProblem[] } {
  const result = validateDocument(bytes, { kind: options.ard ? 'auto' : 'ai-catalog', maxBytes: options.maxBytes, compatibility: options.compatibility });
  const document = isRecord(result.value) ? result.value : undefined;
  if (document === undefined) return { ok: false, problems: result.errors.map(catalogProblem) };
  if (options.ard && result.kind !== 'ai-catalog') {
    return refuse('ARD_NOT_A_CATALOG', '', 'This ARD document does not hold an AI Catalog (specVersion and entries); nothing in it was crawled.');
  }
  const mediaType = (options.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!acceptsContentType(mediaType, document, options.ard)) {
    return refuse(
      'CATALOG_CONTENT_TYPE',
      '',
      `A catalog must be served as ${AI_CATALOG_MEDIA_TYPE} (or application/json with "specVersion"); this one came as "${mediaType || 'no content type'}".`,
    );
  }
  const arrayName = result.form === 'seed' ? SEED_ARRAYS.find((name) => Array.isArray(document[name])) : 'entries';
  const entryErrors = new Map<number, DocumentIssue[]>();
  const rootErrors: DocumentIssue[] = [];
  for (const issue of result.errors) {
    const index = arrayName === undefined ? undefined : entryIndexOf(issue.path, arrayName);
    if (index === undefined) rootErrors.push(issue);
    else entryErrors.set(index, [...(entryErrors.get(index) ?? []), issue]);
  }
  if (arrayName === undefined || rootErrors.length > 0) {
    return { ok: false, problems: (rootErrors.length > 0 ? rootErrors : result.errors).map(catalogProblem) };
  }
  const reading: CatalogReading = { listed: [], references: [], inline: [], entryProblems: [] };
  const listed = new Set<string>();
  readEntries(document[arrayName], `/${arrayName}`, result.form === 'seed', 0, entryErrors, { reading, listed }, options);
  reading.listed.push(...listed);
  return { ok: true, reading };
}

function readEntries(
  items: unknown,
  at: string,
  seed: boolean,
  inlineDepth: number,
  entryErrors: ReadonlyMap<number, DocumentIssue[]> | undefined,
  into: { reading: CatalogReading; listed: Set<string> },
  options: ReadOptions,
): void {
  const { reading, listed } = into;
  const entries = Array.isArray(items) ? items : [];
  const identifierMember = seed ? 'id' : 'identifier';
  for (const entry of entries) {
    const identifier = isRecord(entry) ? entry[identifierMember] : undefined;
    if (typeof identifier === 'string') listed.add(identifier);
  }
  if (entries.length > options.maxEntries) {
    reading.entryProblems.push({
      code: 'CATALOG_TOO_MANY_ENTRIES',
      pointer: at,
      message: `The catalog lists ${entries.length} entries; only the first ${options.maxEntries} were followed.`,
    });
  }
  entries.slice(0, options.maxEntries).forEach((entry, index) => {
    const pointer = `${at}/${index}`;
    const errors = entryErrors?.get(index);
    if (errors && errors.length > 0) {
      for (const issue of errors) reading.entryProblems.push({ code: 'ENTRY_INVALID', pointer: issue.path, message: `${issue.code}: ${issue.message}` });
      return;
    }
    if (!isRecord(entry)) return;
    const identifier = String(entry[identifierMember]);
    const version = typeof entry['version'] === 'string' ? entry['version'] : undefined;
    const digest = typeof entry['digest'] === 'string' ? entry['digest'] : undefined;
    const deprecated = isDeprecatedBy(entry);
    const url = seed ? entry['cardUrl'] : entry['url'];
    if (typeof url === 'string') {
      const type = seed ? undefined : String(entry['type']);
      reading.references.push({
        identifier,
        pointer,
        url,
        identifierMember,
        inlineDepth,
        ...(type !== undefined ? { type } : {}),
        ...(version !== undefined ? { version } : {}),
        ...(digest !== undefined ? { digest } : {}),
        ...(deprecated ? { deprecated } : {}),
      });
      return;
    }
    const type = String(entry['type']);
    reading.inline.push({ identifier, pointer, type, data: entry['data'], deprecated, ...(version !== undefined ? { version } : {}), ...(digest !== undefined ? { digest } : {}) });
    if (type !== AI_CATALOG_MEDIA_TYPE || !isRecord(entry['data'])) return;
    if (options.level + inlineDepth + 1 > options.maxLevels) {
      reading.entryProblems.push({
        code: 'CATALOG_TOO_DEEP',
        pointer: `${pointer}/data`,
        message: `This nested catalog would be level ${options.level + inlineDepth + 1}; at most ${options.maxLevels} levels are followed.`,
      });
      return;
    }
    readEntries(entry['data']['entries'], `${pointer}/data/entries`, false, inlineDepth + 1, undefined, into, options);
  });
}

function catalogProblem(issue: DocumentIssue): ReadProblem {
  return { code: 'CATALOG_INVALID', pointer: issue.path, message: `${issue.code}: ${issue.message}` };
}

function acceptsContentType(mediaType: string, document: Record<string, unknown>, ard: boolean): boolean {
  if (mediaType === AI_CATALOG_MEDIA_TYPE) return true;
  const looksLikeCatalog = document['specVersion'] !== undefined || SEED_ARRAYS.some((name) => Array.isArray(document[name]));
  if (mediaType === 'application/json') return looksLikeCatalog;
  // ARD has no media type of its own in CARDS.md; any JSON type is read when the content is a catalog.
  return ard && mediaType.endsWith('+json') && looksLikeCatalog;
}

/** The entry index an issue path points into (`/entries/3/url` → 3), if it does. */
function entryIndexOf(path: string, arrayName: string): number | undefined {
  const match = new RegExp(`^/${arrayName}/(\\d+)(?:/|$)`).exec(path);
  return match ? Number(match[1]) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(code: CrawlProblemCode, pointer: string, message: string): { ok: false; problems: ReadProblem[] } {
  return { ok: false, problems: [{ code, pointer, message }] };
}
