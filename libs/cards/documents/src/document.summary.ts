/**
 * What a registry indexes from a valid document (CARDS.md §4.1 "Index", §5 "Search and filters"), one flat
 * shape for every kind: identifier, version or revision, name, description, tags, skills, tools, protocols,
 * publisher and maturity. Per kind:
 * - ai-card: identifier = `id`; a revision is (`id`, `updatedAt`) so `updatedAt` is set and `version` is not;
 *   skills and tools come from the services' `protocolSpecific`; protocols are the service types.
 * - a2a: no identifier (the registry assigns one); version = the card's `version`; publisher = `provider`.
 * - mcp-server: identifier = `name`; name = `title`, else `name`.
 * - ai-catalog: identifier = the host's identifier (final) or id (seed); entries via `summarizeCatalogEntries`.
 * Only valid results are summarised: the shape of their members is then known.
 */
import { isObject, type JsonObject } from './document-fields.reader';
import type { CatalogForm, DocumentKind } from './document-kind.detector';
import type { ValidationResult } from './document.validator';
import { seedCatalogArrayName } from './seed-catalog.validator';

export interface DocumentSummary {
  kind: DocumentKind;
  form?: CatalogForm;
  identifier: string | undefined;
  version?: string;
  updatedAt?: string;
  name: string;
  description: string;
  tags: string[];
  /** A2A skill ids and names, deduplicated. */
  skills: string[];
  /** MCP tool names found in the document. */
  tools: string[];
  /** 'a2a', 'mcp', or an AI Card's other service types. */
  protocols: string[];
  publisher?: { identifier: string; name: string };
  maturity?: string;
  /** Catalogs only: one summary per entry. */
  entries?: CatalogEntrySummary[];
}

export interface CatalogEntrySummary {
  identifier: string;
  /** The entry's media type (final form); `undefined` in a seed catalog, whose entries are all AI Cards. */
  type: string | undefined;
  version?: string;
  updatedAt?: string;
  /** `displayName`, else the identifier's last `:` or `/` segment (CARDS.md §2.3 display fallback). */
  name: string;
  description: string;
  tags: string[];
  protocols: string[];
  publisher?: { identifier: string; name: string };
  /** Where the artifact is served; absent for inline `data`. */
  url?: string;
  /** Set for inline nested catalogs: their own entries. */
  entries?: CatalogEntrySummary[];
}

export function summarizeDocument(result: ValidationResult): DocumentSummary | undefined {
  if (!result.valid || result.kind === undefined || !isObject(result.value)) return undefined;
  const document = result.value;
  switch (result.kind) {
    case 'ai-card':
      return summarizeAiCard(document);
    case 'a2a':
      return summarizeA2a(document);
    case 'mcp-server':
      return {
        kind: 'mcp-server',
        identifier: text(document['name']),
        version: text(document['version']),
        name: text(document['title']) ?? text(document['name']) ?? '',
        description: text(document['description']) ?? '',
        tags: [],
        skills: [],
        tools: [],
        protocols: ['mcp'],
      };
    case 'ai-catalog':
      return summarizeCatalog(document, result.form ?? 'final');
  }
}

/** One summary per catalog entry (final `entries` or seed `aiCards`/draft array), inline nested catalogs included. */
export function summarizeCatalogEntries(catalog: unknown): CatalogEntrySummary[] {
  if (!isObject(catalog)) return [];
  if (Array.isArray(catalog['entries'])) return catalog['entries'].filter(isObject).map(summarizeFinalEntry);
  const seedArray = seedCatalogArrayName(catalog);
  const items = seedArray ? catalog[seedArray] : undefined;
  if (!Array.isArray(items)) return [];
  return items.filter(isObject).map((entry) => ({
    identifier: text(entry['id']) ?? '',
    type: undefined,
    ...optional('updatedAt', text(entry['updatedAt'])),
    name: text(entry['name']) ?? '',
    description: text(entry['description']) ?? '',
    tags: strings(entry['tags']),
    protocols: [],
    ...optional('url', text(entry['cardUrl'])),
  }));
}

function summarizeAiCard(card: JsonObject): DocumentSummary {
  const services = isObject(card['services']) ? Object.values(card['services']).filter(isObject) : [];
  const skills: string[] = [];
  const tools: string[] = [];
  for (const service of services) {
    const content = isObject(service['protocolSpecific']) ? service['protocolSpecific'] : {};
    skills.push(...skillNames(content['skills']));
    if (Array.isArray(content['tools'])) tools.push(...content['tools'].filter(isObject).flatMap((tool) => strings([tool['name']])));
  }
  const publisher = isObject(card['publisher']) ? card['publisher'] : {};
  return {
    kind: 'ai-card',
    identifier: text(card['id']),
    ...optional('updatedAt', text(card['updatedAt'])),
    name: text(card['name']) ?? '',
    description: text(card['description']) ?? '',
    tags: strings(card['tags']),
    skills: unique(skills),
    tools: unique(tools),
    protocols: unique(services.flatMap((service) => strings([service['type']]))),
    publisher: { identifier: text(publisher['id']) ?? '', name: text(publisher['name']) ?? '' },
    ...optional('maturity', text(card['maturity'])),
  };
}

function summarizeA2a(card: JsonObject): DocumentSummary {
  const skills = Array.isArray(card['skills']) ? card['skills'].filter(isObject) : [];
  const provider = isObject(card['provider']) ? card['provider'] : undefined;
  return {
    kind: 'a2a',
    identifier: undefined,
    ...optional('version', text(card['version'])),
    name: text(card['name']) ?? '',
    description: text(card['description']) ?? '',
    tags: unique(skills.flatMap((skill) => strings(skill['tags']))),
    skills: skillNames(skills),
    tools: [],
    protocols: ['a2a'],
    ...(provider ? { publisher: { identifier: text(provider['url']) ?? '', name: text(provider['organization']) ?? '' } } : {}),
  };
}

function summarizeCatalog(catalog: JsonObject, form: CatalogForm): DocumentSummary {
  const host = isObject(catalog['host']) ? catalog['host'] : {};
  const entries = summarizeCatalogEntries(catalog);
  return {
    kind: 'ai-catalog',
    form,
    identifier: text(form === 'seed' ? host['id'] : host['identifier']),
    name: text(form === 'seed' ? host['name'] : host['displayName']) ?? '',
    description: '',
    tags: unique(entries.flatMap((entry) => entry.tags)),
    skills: [],
    tools: [],
    protocols: unique(entries.flatMap((entry) => entry.protocols)),
    entries,
  };
}

function summarizeFinalEntry(entry: JsonObject): CatalogEntrySummary {
  const identifier = text(entry['identifier']) ?? '';
  const type = text(entry['type']);
  const publisher = isObject(entry['publisher']) ? entry['publisher'] : undefined;
  const nested = type === 'application/ai-catalog+json' && isObject(entry['data']) ? summarizeCatalogEntries(entry['data']) : undefined;
  return {
    identifier,
    type,
    ...optional('version', text(entry['version'])),
    ...optional('updatedAt', text(entry['updatedAt'])),
    name: text(entry['displayName']) ?? lastSegment(identifier),
    description: text(entry['description']) ?? '',
    tags: strings(entry['tags']),
    protocols: nested ? unique(nested.flatMap((child) => child.protocols)) : protocolsOfType(type),
    ...(publisher ? { publisher: { identifier: text(publisher['identifier']) ?? '', name: text(publisher['displayName']) ?? '' } } : {}),
    ...optional('url', text(entry['url'])),
    ...(nested ? { entries: nested } : {}),
  };
}

/** The protocol a media type names; exact-match filters need one alias per protocol (CARDS.md §4.2 "Server Card"). */
function protocolsOfType(type: string | undefined): string[] {
  if (type === undefined) return [];
  if (type.startsWith('application/a2a-') || type === 'application/agent-card+json') return ['a2a'];
  if (type.startsWith('application/mcp-')) return ['mcp'];
  if (type.startsWith('application/agent-skills+')) return ['skills'];
  if (type.startsWith('application/agent-plugins+')) return ['plugins'];
  return [];
}

function skillNames(skills: unknown): string[] {
  if (!Array.isArray(skills)) return [];
  return unique(skills.filter(isObject).flatMap((skill) => strings([skill['id'], skill['name']])));
}

function lastSegment(identifier: string): string {
  const parts = identifier.split(/[:/]/).filter((part) => part.length > 0);
  return parts[parts.length - 1] ?? identifier;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
