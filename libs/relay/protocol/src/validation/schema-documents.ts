/**
 * The schema documents the validators were compiled from, for explaining failures. Wire 1.2 is the
 * user's document; the others are generated from the library's definitions.
 */
import browserSession10 from '../../schemas/browser-session-1.0.schema.json';
import control10 from '../../schemas/control-1.0.schema.json';
import runtimeTimeline from '../../schemas/runtime-timeline.schema.json';
import wire10 from '../../schemas/wire-1.0.schema.json';
import wire11 from '../../schemas/wire-1.1.schema.json';
import wire12 from '../../schemas/wire-1.2.schema.json';

/** A schema node, read loosely: the documents are data here, not types. */
export interface JsonSchemaNode {
  $ref?: string;
  anyOf?: JsonSchemaNode[];
  type?: string;
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchemaNode>;
  [keyword: string]: unknown;
}

const asNode = (document: unknown): JsonSchemaNode => document as JsonSchemaNode;

export const SCHEMA_DOCUMENTS = {
  'wire-1.0': asNode(wire10),
  'wire-1.1': asNode(wire11),
  'wire-1.2': asNode(wire12),
  'control-1.0': asNode(control10),
  'browser-session-1.0': asNode(browserSession10),
  'runtime-timeline': asNode(runtimeTimeline),
} as const;

export type SchemaDocumentKey = keyof typeof SCHEMA_DOCUMENTS;

/** The node a `#/…` pointer designates in a document. */
export function schemaAt(key: SchemaDocumentKey, pointer: string): JsonSchemaNode {
  let node: unknown = SCHEMA_DOCUMENTS[key];
  for (const token of pointer.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    node = (node as Record<string, unknown>)[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  if (!node || typeof node !== 'object') throw new Error(`no schema at ${key}${pointer}`);
  return node as JsonSchemaNode;
}
