/**
 * Which kind of document a parsed value is, by shape (the registry also gets documents without a usable
 * media type: CARDS.md §4.2 says server.json has none). Marks, in order:
 * - MCP server.json: a `$schema` under modelcontextprotocol.io/schemas/, or a `namespace/name` name with
 *   `version` and `packages`/`remotes`;
 * - A2A AgentCard: `supportedInterfaces` (v1.0), or two of the members only an AgentCard has at its root
 *   (`skills`, `capabilities`, `defaultInputModes`, `defaultOutputModes`, `protocolVersion`, `preferredTransport`),
 *   so a card missing one required member is still reported as an A2A card;
 * - final AI Catalog: `entries`; seed AI Catalog: `aiCards` or a draft array (`agents`/`services`/`records`);
 * - AI Card v1: a `services` object, or `specVersion` with `id`/`publisher`, or a draft card's `interfaces`/`protocols`;
 * - a final AI Catalog, last: a lone `specVersion` (a catalog missing its `entries`).
 */
import { isObject, type JsonObject } from './document-fields.reader';
import { MCP_NAME, MCP_SERVER_SCHEMA_MARK } from './mcp-server.validator';
import { seedCatalogArrayName } from './seed-catalog.validator';

const A2A_MARKS = ['skills', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'protocolVersion', 'preferredTransport'];

export type DocumentKind = 'ai-card' | 'ai-catalog' | 'a2a' | 'mcp-server';
export type CatalogForm = 'seed' | 'final';

export interface DetectedKind {
  kind: DocumentKind;
  form?: CatalogForm;
}

export function detectKind(document: JsonObject): DetectedKind | undefined {
  const schema = document['$schema'];
  if (typeof schema === 'string' && schema.includes(MCP_SERVER_SCHEMA_MARK)) return { kind: 'mcp-server' };
  if (document['supportedInterfaces'] !== undefined) return { kind: 'a2a' };
  if (A2A_MARKS.filter((key) => document[key] !== undefined).length >= 2) return { kind: 'a2a' };
  if (document['entries'] !== undefined) return { kind: 'ai-catalog', form: 'final' };
  if (seedCatalogArrayName(document) !== undefined) return { kind: 'ai-catalog', form: 'seed' };
  if (isObject(document['services'])) return { kind: 'ai-card' };
  if (document['specVersion'] !== undefined && (document['id'] !== undefined || document['publisher'] !== undefined)) return { kind: 'ai-card' };
  if (document['interfaces'] !== undefined || (isObject(document['protocols']) && document['publisher'] !== undefined)) return { kind: 'ai-card' };
  const name = document['name'];
  if (typeof name === 'string' && MCP_NAME.test(name) && document['version'] !== undefined && (document['packages'] !== undefined || document['remotes'] !== undefined)) {
    return { kind: 'mcp-server' };
  }
  if (document['specVersion'] !== undefined) return { kind: 'ai-catalog', form: 'final' };
  return undefined;
}

/** The form of a document the caller said is an AI Catalog: seed when it has the seed's marks, final otherwise. */
export function catalogForm(document: JsonObject): CatalogForm {
  if (document['entries'] !== undefined) return 'final';
  if (seedCatalogArrayName(document) !== undefined) return 'seed';
  return document['$schema'] !== undefined && document['specVersion'] === undefined ? 'seed' : 'final';
}
