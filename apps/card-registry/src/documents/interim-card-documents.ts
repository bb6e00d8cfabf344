/**
 * A stand-in for `@trustmesh/cards-documents` (being built concurrently) with the same contract: strict
 * JSON (CARDS.md §3.7), the kind of the document (AI Card v1 §1, A2A AgentCard §4.1, MCP server.json
 * §4.2), the fields the registry needs to key and show a revision, and the rules the registry itself
 * relies on (a non-empty `services`, strict RFC 3339 `updatedAt`, `services` keys equal to their `type`).
 * It is deliberately small: the full schema checks come with the library, which replaces this file.
 */
import { parseStrictJson } from '@trustmesh/shared-strict-json';

import type { CardSummary } from '../domain/registry-namespace.aggregate';
import type { CardDocuments, DocumentIssue, DocumentValidation } from './card-documents.port';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const SPEC_VERSION = /^1\.(0|[1-9]\d*)$/;
const MCP_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const MATURITIES = new Set(['preview', 'stable', 'deprecated']);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

class Checker {
  readonly errors: DocumentIssue[] = [];
  readonly warnings: DocumentIssue[] = [];
  error(path: string, code: string, message: string): void {
    this.errors.push({ path, code, severity: 'error', message });
  }
  warn(path: string, code: string, message: string): void {
    this.warnings.push({ path, code, severity: 'warning', message });
  }
  requireString(doc: Json, key: string, base = ''): string | undefined {
    const value = doc[key];
    if (typeof value === 'string' && value.length > 0) return value;
    this.error(`${base}/${key}`, value === undefined ? 'FIELD_REQUIRED' : 'FIELD_TYPE', `${key} is required and must be a non-empty string`);
    return undefined;
  }
}

function detectKind(doc: Json): string {
  if ('specVersion' in doc && 'services' in doc) return 'ai-card';
  if (typeof doc['name'] === 'string' && MCP_NAME.test(doc['name']) && ('packages' in doc || 'remotes' in doc || String(doc['$schema'] ?? '').includes('modelcontextprotocol'))) return 'mcp';
  if ('skills' in doc || 'protocolVersion' in doc || 'supportedInterfaces' in doc || 'capabilities' in doc) return 'a2a';
  return 'unknown';
}

function checkAiCard(doc: Json, check: Checker): void {
  for (const key of ['$schema', 'id', 'name', 'description']) check.requireString(doc, key);
  const specVersion = check.requireString(doc, 'specVersion');
  if (specVersion !== undefined && !SPEC_VERSION.test(specVersion)) check.error('/specVersion', 'SPEC_VERSION_UNSUPPORTED', 'specVersion must be "1.x" (Major.Minor, major 1)');
  const times: Record<string, number> = {};
  for (const key of ['createdAt', 'updatedAt']) {
    const value = check.requireString(doc, key);
    if (value === undefined) continue;
    if (!RFC3339.test(value) || Number.isNaN(Date.parse(value))) check.error(`/${key}`, 'DATE_TIME_INVALID', `${key} must be an RFC 3339 date-time with an offset`);
    else times[key] = Date.parse(value);
  }
  if (times['createdAt'] !== undefined && times['updatedAt'] !== undefined && times['updatedAt'] < times['createdAt']) check.error('/updatedAt', 'UPDATED_BEFORE_CREATED', 'updatedAt must not be earlier than createdAt');
  const publisher = doc['publisher'];
  if (!isObject(publisher)) check.error('/publisher', 'FIELD_REQUIRED', 'publisher is required: {id, name}');
  else for (const key of ['id', 'name']) check.requireString(publisher, key, '/publisher');
  const maturity = doc['maturity'];
  if (maturity !== undefined && (typeof maturity !== 'string' || !MATURITIES.has(maturity))) check.error('/maturity', 'MATURITY_INVALID', 'maturity must be preview, stable or deprecated');
  const services = doc['services'];
  if (!isObject(services)) check.error('/services', 'FIELD_REQUIRED', 'services is required: a map of service type to service');
  else if (Object.keys(services).length === 0) check.error('/services', 'SERVICES_EMPTY', 'services must name at least one service');
  else {
    for (const [key, service] of Object.entries(services)) {
      const path = `/services/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!isObject(service)) check.error(path, 'FIELD_TYPE', 'each service must be an object');
      else if (service['type'] !== key) check.error(`${path}/type`, 'SERVICE_KEY_MISMATCH', 'each services key must equal its service type exactly');
    }
  }
  if (doc['signature'] === undefined) check.warn('/signature', 'SIGNATURE_ABSENT', 'The card is unsigned; consumers cannot verify who published it');
}

function checkA2a(doc: Json, check: Checker): void {
  for (const key of ['name', 'description', 'version']) check.requireString(doc, key);
  if (doc['url'] === undefined && doc['supportedInterfaces'] === undefined) check.error('/url', 'FIELD_REQUIRED', 'url (v0.3) or supportedInterfaces (v1.0) is required');
}

function checkMcp(doc: Json, check: Checker): void {
  const name = check.requireString(doc, 'name');
  if (name !== undefined && !MCP_NAME.test(name)) check.error('/name', 'MCP_NAME_INVALID', 'name must be a reverse-DNS namespace/name');
  check.requireString(doc, 'description');
  check.requireString(doc, 'version');
}

export const interimCardDocuments: CardDocuments = {
  validate(input, options): DocumentValidation {
    const check = new Checker();
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      check.error('', 'DOCUMENT_NOT_UTF8', 'The document must be UTF-8 text');
      return { kind: options.kind ?? 'unknown', valid: false, errors: check.errors, warnings: [] };
    }
    const parsed = parseStrictJson(text, { loneSurrogates: 'refuse' });
    if (!parsed.ok) {
      check.error(parsed.issue.pointer ?? '', 'DOCUMENT_NOT_JSON', `The document must be one JSON value without duplicate keys or lone surrogates (${parsed.issue.code})`);
      return { kind: options.kind ?? 'unknown', valid: false, errors: check.errors, warnings: [] };
    }
    const doc = parsed.value;
    if (!isObject(doc)) {
      check.error('', 'DOCUMENT_NOT_OBJECT', 'The document must be a JSON object');
      return { kind: options.kind ?? 'unknown', valid: false, errors: check.errors, warnings: [] };
    }
    const kind = options.kind ?? detectKind(doc);
    if (kind === 'ai-card') checkAiCard(doc, check);
    else if (kind === 'a2a') checkA2a(doc, check);
    else if (kind === 'mcp') checkMcp(doc, check);
    else check.error('', 'DOCUMENT_KIND_UNKNOWN', 'The document is not an AI Card, an A2A AgentCard or an MCP server.json; name its kind with ?kind=');
    return { kind, valid: check.errors.length === 0, errors: check.errors, warnings: check.warnings, value: doc };
  },

  summarize(result): CardSummary {
    const doc = isObject(result.value) ? result.value : {};
    const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const base = { kind: result.kind, name: str(doc['name']) ?? '', description: str(doc['description']) ?? '', tags: strings(doc['tags']) };
    if (result.kind === 'ai-card') {
      const services = isObject(doc['services']) ? Object.keys(doc['services']) : [];
      const publisher = isObject(doc['publisher']) ? str(doc['publisher']['id']) : undefined;
      const optional = { identifier: str(doc['id']), updatedAt: str(doc['updatedAt']), publisher, maturity: str(doc['maturity']) };
      return { ...base, skills: [], tools: [], protocols: services, ...definedOnly(optional) };
    }
    if (result.kind === 'a2a') {
      const skills = Array.isArray(doc['skills']) ? doc['skills'].filter(isObject).map((skill) => str(skill['name']) ?? str(skill['id']) ?? '') : [];
      const provider = isObject(doc['provider']) ? str(doc['provider']['organization']) : undefined;
      return { ...base, skills, tools: [], protocols: ['a2a'], ...definedOnly({ version: str(doc['version']), publisher: provider }) };
    }
    return { ...base, skills: [], tools: [], protocols: ['mcp'], ...definedOnly({ identifier: str(doc['name']), version: str(doc['version']) }) };
  },
};

function definedOnly<T extends Record<string, string | undefined>>(values: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: string };
}
