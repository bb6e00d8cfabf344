/**
 * The small JSON Schema toolkit the protocol definitions are written with: a node type for the
 * subset of JSON Schema 2020-12 the relay schemas use, builders for new nodes, and the structural
 * queries and edits that let Wire 1.1 and 1.0 be stated as differences from the document before them.
 *
 * Build-time only: nothing here ships in the library's runtime code.
 */

export interface JsonSchema {
  $schema?: string;
  $id?: string;
  $ref?: string;
  $comment?: string;
  $defs?: Record<string, JsonSchema>;
  title?: string;
  description?: string;
  readOnly?: boolean;
  type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  default?: unknown;
  [annotation: `x-${string}`]: unknown;
}

export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A closed object: every listed property required unless named in `optional`. */
export function closedObject(
  properties: Record<string, JsonSchema>,
  optional: readonly string[] = [],
): JsonSchema {
  for (const name of optional) {
    if (!(name in properties)) throw new Error(`optional property ${name} is not declared`);
  }
  return {
    readOnly: true,
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}

export const constant = (value: string | boolean): JsonSchema => ({
  type: typeof value === 'boolean' ? 'boolean' : 'string',
  const: value,
});

export const oneOfStrings = (values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values] });

export const text = (bounds: { min?: number; max?: number } = {}): JsonSchema => ({
  type: 'string',
  ...(bounds.min !== undefined ? { minLength: bounds.min } : {}),
  ...(bounds.max !== undefined ? { maxLength: bounds.max } : {}),
});

/** The `const` a union member pins its discriminator `key` to, if it pins one. */
export function discriminatorOf(node: JsonSchema, key: string): unknown {
  return node.properties?.[key]?.const;
}

/** The object members of a (possibly nested) `anyOf`, flattened in document order. */
export function unionMembers(node: JsonSchema): JsonSchema[] {
  if (!node.anyOf) return [node];
  return node.anyOf.flatMap(unionMembers);
}

/** The members of the top-level frame union whose `type` is `frameType`. */
export function frameVariants(schema: JsonSchema, frameType: string): JsonSchema[] {
  const found = unionMembers(schema).filter((member) => discriminatorOf(member, 'type') === frameType);
  if (found.length === 0) throw new Error(`schema ${schema.$id} has no ${frameType} frame`);
  return found;
}

export function frameVariant(schema: JsonSchema, frameType: string): JsonSchema {
  const [first, ...rest] = frameVariants(schema, frameType);
  if (!first || rest.length > 0) throw new Error(`expected exactly one ${frameType} frame in ${schema.$id}`);
  return first;
}

export function property(node: JsonSchema, name: string): JsonSchema {
  const found = node.properties?.[name];
  if (!found) throw new Error(`no property ${name} in ${JSON.stringify(node).slice(0, 80)}`);
  return found;
}

/** Visits every schema node (depth first, parents before children). */
export function walk(node: JsonSchema, visit: (node: JsonSchema) => void): void {
  visit(node);
  for (const child of Object.values(node.$defs ?? {})) walk(child, visit);
  for (const child of Object.values(node.properties ?? {})) walk(child, visit);
  for (const child of node.anyOf ?? []) walk(child, visit);
  if (node.items) walk(node.items, visit);
  if (typeof node.additionalProperties === 'object') walk(node.additionalProperties, visit);
}

export function removeProperty(node: JsonSchema, name: string): void {
  if (!node.properties?.[name]) throw new Error(`no property ${name} to remove`);
  delete node.properties[name];
  node.required = node.required?.filter((required) => required !== name);
}

/**
 * Rewrites every `anyOf` below the document root so that nested unions are flattened and
 * structurally identical members appear once; a union left with one member becomes that member. Removing a field that is the only
 * difference between two members therefore leaves one member, as a hand-written schema would.
 */
export function normalizeUnions(node: JsonSchema): void {
  walk(node, (current) => {
    // The document's own union groups the members of each frame type; that grouping is kept.
    if (!current.anyOf || current === node) return;
    const seen = new Set<string>();
    const members: JsonSchema[] = [];
    for (const member of current.anyOf.flatMap((child) => (isBareUnion(child) ? unionMembers(child) : [child]))) {
      const key = JSON.stringify(member);
      if (seen.has(key)) continue;
      seen.add(key);
      members.push(member);
    }
    if (members.length === 1 && Object.keys(current).length === 1) {
      delete current.anyOf;
      Object.assign(current, members[0]);
    } else {
      current.anyOf = members;
    }
  });
}

function isBareUnion(node: JsonSchema): boolean {
  return Array.isArray(node.anyOf) && Object.keys(node).every((key) => key === 'anyOf' || key === 'readOnly');
}
