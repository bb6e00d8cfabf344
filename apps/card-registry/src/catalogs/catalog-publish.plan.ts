/**
 * What publishing one AI Catalog stores (CARDS.md §2.1 seed, §2.3 final model and nesting): the catalog,
 * already valid, flattened into one planned item per entry, nested inline catalogs followed recursively
 * (the validator bounds them at 4 levels), each item under its own identifier and namespace with a
 * pointer to the nested-catalog entry holding it (`parent`). Pure: no I/O.
 *
 * Our choices (README.md "AI Catalogs"):
 * - an entry with inline `data` becomes a card revision whose stored bytes are the UTF-8 JCS form of
 *   `data` (§2.3 `digest`: "with data, hash the UTF-8 JCS form"), so the stored digest is the one the
 *   entry names. Data of a native kind (A2A by its type; AI Card or MCP server.json given as
 *   application/json) is validated as that kind; a nested catalog is stored as kind `ai-catalog`; any
 *   other inline artifact (skills, plugins, unknown types) is stored opaque as kind `artifact`, served
 *   with the entry's type;
 * - an entry with `url` (and every seed `aiCards` entry) is a reference: type, url, digest and version are
 *   recorded with the catalog publish, never fetched here, and never made a card revision (its identifier
 *   names an artifact published or crawled on its own, of its own kind);
 * - a revision's key is the entry's `version`, else the native document's key (AI Card `updatedAt`, A2A
 *   and MCP `version`), else the entry's `updatedAt`, else the content digest (an unversioned entry is
 *   unique by identifier in its catalog, §2.3).
 */
import { createHash } from 'node:crypto';

import { detectDocumentKind, summarizeCatalogEntries } from '@trustmesh/cards-documents';
import { canonicalJson } from '@trustmesh/shared-canonical-json';

import { MAX_IDENTIFIER_LENGTH, namespaceOf } from '../domain/card-identifier';
import type { CardStatus } from '@trustmesh/cards-registry-events';
import type { CardSummary } from '../domain/registry-namespace.aggregate';
import { PUBLISHABLE_KINDS, type CardDocuments } from '../documents/card-documents.port';
import type { ProblemIssue } from '../service/registry-service.result';

export const AI_CATALOG_TYPE = 'application/ai-catalog+json';
/** Most entries one publish stores, nested ones included: every entry is an event of one append. */
export const MAX_CATALOG_ENTRIES = 256;
const MAX_REVISION_LENGTH = 255;
const A2A_TYPE = 'application/a2a-agent-card+json';

export interface PlannedRevision {
  reference: false;
  pointer: string;
  identifier: string;
  namespace: string;
  parent?: string;
  kind: string;
  contentType: string;
  content: Buffer;
  digest: string;
  revision: string;
  updatedAtMs?: number;
  summary: CardSummary;
  status: CardStatus;
  /** The parsed document whose own signature is verified (native kinds and nested catalogs). */
  document: unknown;
  /** The entry object (its trust manifests are verified against it). */
  entry: Record<string, unknown>;
}

export interface PlannedReference {
  reference: true;
  pointer: string;
  identifier: string;
  namespace: string;
  parent?: string;
  type?: string;
  url: string;
  digest?: string;
  version?: string;
  updatedAt?: string;
  entry: Record<string, unknown>;
}

export type PlannedEntry = PlannedRevision | PlannedReference;

export type CatalogPlan = { ok: true; entries: PlannedEntry[] } | { ok: false; code: string; detail: string; issues: ProblemIssue[] };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const issue = (path: string, code: string, message: string): ProblemIssue => ({ path, code, severity: 'error', message });
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** Flattens a valid seed or final catalog (`form`) into planned entries, or every reason it cannot be stored. */
export function planCatalog(catalog: Record<string, unknown>, form: string, documents: CardDocuments): CatalogPlan {
  const issues: ProblemIssue[] = [];
  const entries: PlannedEntry[] = [];
  if (form === 'seed') planSeed(catalog, entries, issues);
  else planFinal(catalog, '', undefined, documents, entries, issues);
  if (entries.length > MAX_CATALOG_ENTRIES) {
    return { ok: false, code: 'CATALOG_TOO_MANY_ENTRIES', detail: `The catalog holds ${entries.length} entries, nested ones included`, issues: [issue('', 'CATALOG_TOO_MANY_ENTRIES', `One publish stores at most ${MAX_CATALOG_ENTRIES} entries; split the catalog`)] };
  }
  checkRepeats(entries, issues);
  if (issues.length > 0) return { ok: false, code: 'CATALOG_NOT_PUBLISHABLE', detail: `The catalog has ${issues.length} entry problem(s)`, issues };
  return { ok: true, entries };
}

function namespaceFor(identifier: string, at: string, issues: ProblemIssue[]): string | undefined {
  if (identifier.length > MAX_IDENTIFIER_LENGTH) {
    issues.push(issue(at, 'IDENTIFIER_TOO_LONG', `Identifiers are at most ${MAX_IDENTIFIER_LENGTH} characters`));
    return undefined;
  }
  const namespace = namespaceOf(identifier);
  if (namespace === null) issues.push(issue(at, 'IDENTIFIER_NAMESPACE_UNKNOWN', 'This identifier names no domain; use urn:air:{domain}:…, did:web:{domain}, https://{domain}/… or a reverse-DNS MCP name'));
  return namespace ?? undefined;
}

function planSeed(catalog: Record<string, unknown>, entries: PlannedEntry[], issues: ProblemIssue[]): void {
  const name = ['aiCards', 'agents', 'services', 'records'].find((key) => Array.isArray(catalog[key])) ?? 'aiCards';
  const items = catalog[name] as unknown[];
  items.forEach((item, index) => {
    if (!isObject(item)) return;
    const pointer = `/${name}/${index}`;
    const identifier = text(item['id']) ?? '';
    const namespace = namespaceFor(identifier, `${pointer}/id`, issues);
    const url = text(item['cardUrl']);
    if (namespace === undefined || url === undefined) return;
    const updatedAt = text(item['updatedAt']);
    entries.push({ reference: true, pointer, identifier, namespace, url, ...(updatedAt !== undefined ? { updatedAt } : {}), entry: item });
  });
}

function planFinal(catalog: Record<string, unknown>, base: string, parent: string | undefined, documents: CardDocuments, entries: PlannedEntry[], issues: ProblemIssue[]): void {
  const items = Array.isArray(catalog['entries']) ? catalog['entries'] : [];
  items.forEach((item, index) => {
    if (!isObject(item)) return;
    const pointer = `${base}/entries/${index}`;
    const identifier = text(item['identifier']) ?? '';
    const namespace = namespaceFor(identifier, `${pointer}/identifier`, issues);
    if (namespace === undefined) return;
    const type = text(item['type']) ?? '';
    const data = item['data'];
    const common = { pointer, identifier, namespace, ...(parent !== undefined ? { parent } : {}) };
    if (data === undefined || data === null) {
      const url = text(item['url']) ?? '';
      const digest = text(item['digest']);
      const version = text(item['version']);
      const updatedAt = text(item['updatedAt']);
      entries.push({ reference: true, ...common, type, url, ...(digest !== undefined ? { digest } : {}), ...(version !== undefined ? { version } : {}), ...(updatedAt !== undefined ? { updatedAt } : {}), entry: item });
      return;
    }
    const planned = planInline(item, data, type, common, documents, issues);
    if (!planned) return;
    entries.push(planned);
    if (type === AI_CATALOG_TYPE && isObject(data)) planFinal(data, `${pointer}/data`, identifier, documents, entries, issues);
  });
}

function planInline(
  entry: Record<string, unknown>,
  data: unknown,
  type: string,
  common: { pointer: string; identifier: string; namespace: string; parent?: string },
  documents: CardDocuments,
  issues: ProblemIssue[],
): PlannedRevision | undefined {
  const { pointer, identifier } = common;
  const content = Buffer.from(canonicalJson(data), 'utf8');
  const digest = sha256(content);
  const named = text(entry['digest']);
  if (named !== undefined && !digestMatches(named, content)) {
    issues.push(issue(`${pointer}/digest`, 'ENTRY_DIGEST_MISMATCH', `The entry's digest is not the digest of the UTF-8 JCS form of its data (${digest})`));
    return undefined;
  }
  const entrySummary = summarizeCatalogEntries({ entries: [entry] })[0];
  const entryVersion = text(entry['version']);
  const entryUpdatedAt = text(entry['updatedAt']);

  const native = nativeKind(type, data);
  let kind: string;
  let contentType: string;
  let summary: CardSummary;
  let nativeKey: string | undefined;
  let updatedAtMs: number | undefined;
  let status: CardStatus = 'active';
  if (native !== undefined) {
    const validation = documents.validate(content, { kind: native });
    if (!validation.valid) {
      for (const found of [...validation.errors, ...validation.warnings]) issues.push({ path: `${pointer}/data${found.path}`, code: found.code, severity: found.severity, message: found.message });
      if (validation.errors.length > 0) return undefined;
    }
    const nativeSummary = documents.summarize(validation);
    kind = native;
    contentType = PUBLISHABLE_KINDS[native] ?? 'application/json';
    nativeKey = native === 'ai-card' ? nativeSummary.updatedAt : nativeSummary.version;
    if (native === 'a2a' || native === 'mcp-server') {
      if (entryVersion !== undefined && nativeKey !== undefined && entryVersion !== nativeKey) {
        issues.push(issue(`${pointer}/version`, 'ENTRY_VERSION_MISMATCH', `The entry's version (${entryVersion}) differs from its document's version (${nativeKey})`));
        return undefined;
      }
    }
    if (native === 'ai-card' && entryVersion === undefined && nativeKey !== undefined) updatedAtMs = Date.parse(nativeKey);
    if (nativeSummary.maturity === 'deprecated') status = 'deprecated';
    summary = {
      ...nativeSummary,
      identifier,
      ...(entrySummary?.name !== undefined && text(entry['displayName']) !== undefined ? { name: entrySummary.name } : {}),
      ...(text(entry['description']) !== undefined ? { description: text(entry['description']) as string } : {}),
    };
  } else {
    kind = type === AI_CATALOG_TYPE ? 'ai-catalog' : 'artifact';
    contentType = type;
    summary = {
      kind,
      identifier,
      ...(entryVersion !== undefined ? { version: entryVersion } : {}),
      ...(entryUpdatedAt !== undefined ? { updatedAt: entryUpdatedAt } : {}),
      name: entrySummary?.name ?? identifier,
      description: entrySummary?.description ?? '',
      tags: entrySummary?.tags ?? [],
      skills: [],
      tools: [],
      protocols: entrySummary?.protocols ?? [],
      ...(entrySummary?.publisher ? { publisher: entrySummary.publisher } : {}),
    };
  }
  const revision = entryVersion ?? nativeKey ?? entryUpdatedAt ?? digest;
  if (revision.length === 0 || revision.length > MAX_REVISION_LENGTH) {
    issues.push(issue(`${pointer}/version`, 'REVISION_INVALID', `The entry's revision key must be 1-${MAX_REVISION_LENGTH} characters`));
    return undefined;
  }
  return { reference: false, ...common, kind, contentType, content, digest, revision, ...(updatedAtMs !== undefined && !Number.isNaN(updatedAtMs) ? { updatedAtMs } : {}), summary, status, document: data, entry };
}

/** The native kind inline data is validated as: A2A by its media type; AI Card or MCP server.json by shape under application/json. */
function nativeKind(type: string, data: unknown): string | undefined {
  if (type === A2A_TYPE) return 'a2a';
  if (type !== 'application/json' || !isObject(data)) return undefined;
  const detected = detectDocumentKind(data)?.kind;
  return detected === 'ai-card' || detected === 'mcp-server' ? detected : undefined;
}

/** `alg:lowerhex` over `bytes`; SHA-256 and stronger (the validator refused weaker ones). */
function digestMatches(named: string, bytes: Uint8Array): boolean {
  const [alg, hex] = named.split(':', 2);
  const algorithm = { sha256: 'sha256', 'sha-256': 'sha256', sha384: 'sha384', 'sha-384': 'sha384', sha512: 'sha512', 'sha-512': 'sha512' }[alg ?? ''];
  if (algorithm === undefined || hex === undefined) return false;
  return createHash(algorithm).update(bytes).digest('hex') === hex;
}

/**
 * A repeated identifier names the same artifact (§2.3 Nesting): across nesting levels the same identifier
 * and revision must carry the same bytes (a later one is then stored once), and keep one kind.
 */
function checkRepeats(entries: PlannedEntry[], issues: ProblemIssue[]): void {
  const seen = new Map<string, PlannedRevision>();
  const kinds = new Map<string, string>();
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index];
    if (!entry || entry.reference) continue;
    const kind = kinds.get(entry.identifier);
    if (kind !== undefined && kind !== entry.kind) issues.push(issue(entry.pointer, 'CATALOG_ENTRY_CONFLICT', `${entry.identifier} appears as ${kind} and as ${entry.kind}; one identifier holds one kind`));
    kinds.set(entry.identifier, entry.kind);
    const key = `${entry.identifier}\u0000${entry.revision}`;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, entry);
    } else if (first.digest !== entry.digest) {
      issues.push(issue(entry.pointer, 'CATALOG_ENTRY_CONFLICT', `${entry.identifier} (${entry.revision}) appears at ${first.pointer} with other content`));
    }
  }
}
