/**
 * The query strings of the search, sync and catalog routes (CARDS.md §5 "Search and filters", "Incremental
 * sync", "Cursor pagination"), read whole before any work: unknown parameters, a repeated one that is not
 * repeatable, too many values, values too long and a `limit` outside 1–100 are refused with a stable code
 * and the parameter's pointer. Filters are repeatable (OR within a key, AND across keys).
 */
import { canonicalNamespace } from '../domain/card-identifier';
import { CARD_STATUSES, type CardStatus } from '@trustmesh/cards-registry-events';
import { MAX_CURSOR_LENGTH } from './search.cursor';

export interface ParameterRefusal {
  code: string;
  message: string;
  path: string;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Longest query string accepted (the rest is refused before parsing). */
export const MAX_QUERY_STRING_LENGTH = 8192;
const MAX_VALUES_PER_KEY = 20;
const MAX_VALUE_LENGTH = 253;
const MAX_TEXT_QUERY_LENGTH = 256;

/** The card kinds and what each may be asked for by (`mcp` names the MCP server kinds, §4.2). */
const KIND_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'ai-card': ['ai-card'],
  a2a: ['a2a'],
  'application/a2a-agent-card+json': ['a2a'],
  'mcp-server': ['mcp-server'],
  mcp: ['mcp-server', 'mcp-server-card'],
  'mcp-server-card': ['mcp-server-card'],
  'application/mcp-server-card+json': ['mcp-server-card'],
};

/** Protocol spellings that name the same protocol (kept equal to the SQL normalisation of the projection). */
export function normaliseProtocol(value: string): string {
  const lower = value.toLowerCase();
  if (['mcp', 'mcp-server', 'mcp-server-card', 'application/mcp-server+json', 'application/mcp-server-card+json'].includes(lower)) return 'mcp';
  if (lower === 'application/a2a-agent-card+json') return 'a2a';
  return lower;
}

export interface SearchQuery {
  q: string | null;
  kinds: string[];
  protocols: string[];
  tags: string[];
  publisherDomains: string[];
  /** Empty: the default, latest visible revisions only (active and deprecated). */
  statuses: CardStatus[];
  /** Empty or both: no filter. */
  verified: boolean[];
  limit: number;
  cursor: string | null;
}

export interface ChangesQuery {
  /** Epoch milliseconds. */
  updatedSince: number | null;
  includeDeleted: boolean;
  limit: number;
  cursor: string | null;
}

type Values = Map<string, string[]>;

function readAll(search: string, allowed: Readonly<Record<string, boolean>>): Values | ParameterRefusal {
  if (search.length > MAX_QUERY_STRING_LENGTH) return { code: 'QUERY_STRING_TOO_LONG', message: `The query string is at most ${MAX_QUERY_STRING_LENGTH} characters`, path: '' };
  const params = new URLSearchParams(search);
  const values: Values = new Map();
  for (const [name, value] of params) {
    if (!Object.hasOwn(allowed, name)) return { code: 'PARAMETER_UNKNOWN', message: `Unknown query parameter; allowed: ${Object.keys(allowed).join(', ')}`, path: '' };
    const list = values.get(name) ?? [];
    list.push(value);
    values.set(name, list);
    if (list.length > 1 && !allowed[name]) return { code: 'PARAMETER_REPEATED', message: `${name} may be given once`, path: `/${name}` };
    if (list.length > MAX_VALUES_PER_KEY) return { code: 'PARAMETER_TOO_MANY_VALUES', message: `${name} takes at most ${MAX_VALUES_PER_KEY} values`, path: `/${name}` };
    const bound = name === 'cursor' ? MAX_CURSOR_LENGTH : name === 'q' ? MAX_TEXT_QUERY_LENGTH : MAX_VALUE_LENGTH;
    if (value.length > bound) return { code: name === 'q' ? 'QUERY_TOO_LONG' : 'PARAMETER_TOO_LONG', message: `${name} is at most ${bound} characters`, path: `/${name}` };
  }
  return values;
}

function limitOf(values: Values): number | ParameterRefusal {
  const raw = values.get('limit')?.[0];
  if (raw === undefined) return DEFAULT_LIMIT;
  const limit = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) return { code: 'LIMIT_INVALID', message: `limit must be a whole number from 1 to ${MAX_LIMIT}`, path: '/limit' };
  return limit;
}

const isRefusal = (value: unknown): value is ParameterRefusal => typeof value === 'object' && value !== null && 'code' in value;

const SEARCH_PARAMETERS = { q: false, kind: true, protocol: true, tag: true, publisherDomain: true, status: true, verified: true, limit: false, cursor: false };

export function readSearchQuery(search: string): SearchQuery | ParameterRefusal {
  const values = readAll(search, SEARCH_PARAMETERS);
  if (isRefusal(values)) return values;
  const limit = limitOf(values);
  if (isRefusal(limit)) return limit;
  const kinds = new Set<string>();
  for (const kind of values.get('kind') ?? []) {
    const aliases = KIND_ALIASES[kind.toLowerCase()];
    if (!aliases) return { code: 'PARAMETER_INVALID', message: `kind must be one of ${Object.keys(KIND_ALIASES).join(', ')}`, path: '/kind' };
    aliases.forEach((alias) => kinds.add(alias));
  }
  const statuses = values.get('status') ?? [];
  for (const status of statuses) {
    if (!(CARD_STATUSES as readonly string[]).includes(status)) return { code: 'PARAMETER_INVALID', message: `status must be one of ${CARD_STATUSES.join(', ')}`, path: '/status' };
  }
  const verified: boolean[] = [];
  for (const value of values.get('verified') ?? []) {
    if (value !== 'true' && value !== 'false') return { code: 'PARAMETER_INVALID', message: 'verified must be true or false', path: '/verified' };
    verified.push(value === 'true');
  }
  const publisherDomains: string[] = [];
  for (const domain of values.get('publisherDomain') ?? []) {
    // Namespaces are stored in canonical A-label form: ask for an internationalised domain in either form.
    const canonical = canonicalNamespace(domain);
    if (canonical === null) return { code: 'PARAMETER_INVALID', message: 'publisherDomain must be a domain name such as acme.example', path: '/publisherDomain' };
    publisherDomains.push(canonical);
  }
  const q = values.get('q')?.[0]?.trim() ?? '';
  const sorted = (list: Iterable<string>) => [...new Set(list)].sort();
  return {
    q: q === '' ? null : q,
    kinds: sorted(kinds),
    protocols: sorted((values.get('protocol') ?? []).map(normaliseProtocol)),
    tags: sorted((values.get('tag') ?? []).map((tag) => tag.toLowerCase())),
    publisherDomains: sorted(publisherDomains),
    statuses: sorted(statuses) as CardStatus[],
    verified: [...new Set(verified)].sort(),
    limit,
    cursor: values.get('cursor')?.[0] ?? null,
  };
}

/** RFC 3339 date-time with a time offset (CARDS.md §3.7: syntax first, then `Date.parse`). */
const RFC3339 = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d{1,9})?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

export function readChangesQuery(search: string): ChangesQuery | ParameterRefusal {
  const values = readAll(search, { updatedSince: false, includeDeleted: false, limit: false, cursor: false });
  if (isRefusal(values)) return values;
  const limit = limitOf(values);
  if (isRefusal(limit)) return limit;
  const since = values.get('updatedSince')?.[0];
  const updatedSince = since !== undefined && RFC3339.test(since) ? Date.parse(since) : Number.NaN;
  if (since !== undefined && Number.isNaN(updatedSince)) return { code: 'PARAMETER_INVALID', message: 'updatedSince must be an RFC 3339 date-time with an offset, e.g. 2026-03-01T00:00:00Z', path: '/updatedSince' };
  const include = values.get('includeDeleted')?.[0];
  if (include !== undefined && include !== 'true' && include !== 'false') return { code: 'PARAMETER_INVALID', message: 'includeDeleted must be true or false', path: '/includeDeleted' };
  // As in the MCP registry: a mirror asking what changed must learn of deletions too.
  if (since !== undefined && include === 'false') return { code: 'PARAMETER_CONFLICT', message: 'updatedSince implies includeDeleted=true; drop includeDeleted=false', path: '/includeDeleted' };
  return { updatedSince: since !== undefined ? updatedSince : null, includeDeleted: since !== undefined || include === 'true', limit, cursor: values.get('cursor')?.[0] ?? null };
}

export { isRefusal as isParameterRefusal };
