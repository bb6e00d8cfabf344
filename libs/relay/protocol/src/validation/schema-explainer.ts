/**
 * Turns a compiled validator's failure into one precise issue.
 *
 * The fast validators stop at the first failure, but inside an `anyOf` they try every member and
 * report each member's failure. Reporting all of them would bury the real problem ("`input` is not
 * allowed in a `tool.started` event") under a dozen irrelevant ones ("`type` must be
 * `turn.started`"). So, at each union, the explainer picks the member the value meant to be, by the
 * discriminating constants (`type`, `method`, `status`, `decision`) or else by JSON type, and follows
 * that member's failure. This runs only for frames already found invalid, never on the hot path.
 */
import type { JsonSchemaNode } from './schema-documents';
import type { CompiledValidationError } from './compiled-validator';
import { issue, pointerGet, pointerJoin, type FrameIssue } from './frame-issue';

export function explainFailure(
  root: JsonSchemaNode,
  document: JsonSchemaNode,
  value: unknown,
  errors: readonly CompiledValidationError[],
  basePath = '',
): FrameIssue {
  let current = errors[errors.length - 1];
  let scope = errors;
  while (current && current.keyword === 'anyOf') {
    const union = resolve(root, document, current.schemaPath.replace(/\/anyOf$/, ''));
    const members = union?.anyOf;
    const instance = pointerGet(value, current.instancePath);
    const prefix = `${current.schemaPath}/`;
    const memberErrors = scope.filter((error) => error.schemaPath.startsWith(prefix));
    const { chosen, among } = members ? intendedMembers(members, instance) : { chosen: [], among: [] };
    if (members && chosen.length === 0) {
      return noMember(among.map((index) => members[index] ?? {}), instance, basePath + current.instancePath);
    }
    // Each member's own failure is the last error it reported (a nested union reports its `anyOf`
    // after its members). If several members still fit, follow the one that got furthest.
    const terminals = new Map<number, CompiledValidationError>();
    const memberOf = (error: CompiledValidationError) => Number(error.schemaPath.slice(prefix.length).split('/')[0]);
    for (const error of memberErrors) {
      const index = memberOf(error);
      if (!members || chosen.includes(index)) terminals.set(index, error);
    }
    let next: CompiledValidationError | undefined;
    for (const terminal of terminals.values()) {
      if (!next || rank(terminal) > rank(next)) next = terminal;
    }
    if (!next) break;
    const memberPrefix = `${prefix}${memberOf(next)}/`;
    scope = memberErrors.filter((error) => error.schemaPath.startsWith(memberPrefix));
    current = next;
  }
  if (!current) return issue('FIELD_VALUE', basePath, 'The value does not match the schema.');
  return leafIssue(current, basePath);
}

/** The schema node at an Ajv `schemaPath`, starting from the validator's root node. */
function resolve(root: JsonSchemaNode, document: JsonSchemaNode, schemaPath: string): JsonSchemaNode | undefined {
  let node: unknown = root;
  for (const raw of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    const token = decodeURIComponent(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
    node = followRef(document, node as JsonSchemaNode);
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node === undefined ? undefined : followRef(document, node as JsonSchemaNode);
}

function followRef(document: JsonSchemaNode, node: JsonSchemaNode): JsonSchemaNode {
  let current = node;
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 8; hops += 1) {
    const target = pointerGet(document, current.$ref.replace(/^#/, '')) as JsonSchemaNode | undefined;
    if (!target) break;
    current = target;
  }
  return current;
}

/** Values a member (or nested union) allows for `key`, or `undefined` if it does not pin `key`. */
function allowedValues(member: JsonSchemaNode, key: string): unknown[] | undefined {
  if (member.anyOf) {
    const all = member.anyOf.map((inner) => allowedValues(inner, key));
    if (all.some((values) => values === undefined)) return undefined;
    return all.flat();
  }
  const property = member.properties?.[key];
  if (!property) return undefined;
  if ('const' in property) return [property.const];
  if (property.enum) return property.enum;
  return undefined;
}

function discriminators(members: readonly JsonSchemaNode[]): string[] {
  const keys = new Set<string>();
  for (const member of members) for (const inner of member.anyOf ?? [member]) for (const key of Object.keys(inner.properties ?? {})) keys.add(key);
  return [...keys].filter((key) => {
    const sets: string[] = [];
    for (const member of members) {
      const values = allowedValues(member, key);
      if (values === undefined) return false;
      sets.push(JSON.stringify([...values].sort()));
    }
    return new Set(sets).size > 1;
  });
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function memberTypes(member: JsonSchemaNode): string[] {
  if (member.anyOf) return member.anyOf.flatMap(memberTypes);
  const type = member.type === 'integer' ? 'number' : member.type;
  return type ? [type] : [];
}

/**
 * How far a member got: deeper failures first; at equal depth a concrete failure beats a nested
 * union's (whose members were all worse than the sibling that failed concretely there).
 */
function rank(error: CompiledValidationError): number {
  return error.instancePath.length * 2 + (error.keyword === 'anyOf' ? 0 : 1);
}

/**
 * The members `instance` meant to be (`chosen`); when none fits, `among` is the set of members the
 * narrowing had reached, so the report names the discriminator that failed there.
 */
function intendedMembers(members: readonly JsonSchemaNode[], instance: unknown): { chosen: number[]; among: number[] } {
  const isObject = instance !== null && typeof instance === 'object' && !Array.isArray(instance);
  let indexes = members.map((_, index) => index);
  if (!isObject) {
    const type = jsonType(instance);
    return { chosen: indexes.filter((index) => memberTypes(members[index] ?? {}).includes(type)), among: indexes };
  }
  // Narrow by discriminators until none is left among the remaining members: `status` picks the two
  // `resolved` members, then `decision`, pinned by just those two, picks one.
  const record = instance as Record<string, unknown>;
  for (;;) {
    const keys = discriminators(indexes.map((index) => members[index] ?? {}));
    if (keys.length === 0) return { chosen: indexes, among: indexes };
    const narrowed = indexes.filter((index) =>
      keys.every((key) => (allowedValues(members[index] ?? {}, key) ?? []).some((allowed) => allowed === record[key])),
    );
    if (narrowed.length === 0) return { chosen: [], among: indexes };
    if (narrowed.length === indexes.length) return { chosen: indexes, among: indexes };
    indexes = narrowed;
  }
}

function noMember(members: readonly JsonSchemaNode[], instance: unknown, path: string): FrameIssue {
  const keys = discriminators(members);
  if (keys.length > 0 && instance !== null && typeof instance === 'object' && !Array.isArray(instance)) {
    const record = instance as Record<string, unknown>;
    // Report the first discriminator the value gets wrong, listing what would be accepted.
    for (const key of keys) {
      const allowed = [...new Set(members.flatMap((member) => allowedValues(member, key) ?? []))];
      if (allowed.includes(record[key])) continue;
      const list = allowed.map((value) => JSON.stringify(value)).join(', ');
      return record[key] === undefined
        ? issue('FIELD_REQUIRED', pointerJoin(path, key), `\`${key}\` is required here (one of ${list}).`)
        : issue('FIELD_VALUE', pointerJoin(path, key), `\`${key}\` must be one of ${list}.`);
    }
    return issue('FIELD_VALUE', path, `The combination of ${keys.map((key) => `\`${key}\``).join(' and ')} is not allowed.`);
  }
  const types = [...new Set(members.flatMap(memberTypes))];
  return issue('FIELD_TYPE', path, `Must be ${describeTypes(types)}, not ${jsonType(instance)}.`);
}

function describeTypes(types: readonly string[]): string {
  const named = types.map((type) => (type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`));
  return named.length <= 1 ? (named[0] ?? 'a valid value') : `${named.slice(0, -1).join(', ')} or ${named[named.length - 1]}`;
}

const KNOWN_PATTERNS: Record<string, string> = {
  '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000)$':
    'a UUID (version 1–8, variant 8/9/a/b) or the nil UUID',
  '^\\d+$': 'a string of decimal digits',
  '^wss:\\/\\/\\S+$': 'a lowercase wss:// URL without whitespace',
};

function leafIssue(error: CompiledValidationError, basePath: string): FrameIssue {
  const path = basePath + error.instancePath;
  const params = error.params;
  switch (error.keyword) {
    case 'required':
      return issue('FIELD_REQUIRED', pointerJoin(path, String(params['missingProperty'])), `\`${String(params['missingProperty'])}\` is required.`);
    case 'additionalProperties': {
      const name = String(params['additionalProperty']);
      return issue('FIELD_NOT_ALLOWED', pointerJoin(path, name), `\`${name}\` is not allowed here; frames are closed objects.`);
    }
    case 'type':
      return issue('FIELD_TYPE', path, `Must be ${describeTypes([String(params['type'])])}.`);
    case 'const':
      return issue('FIELD_VALUE', path, `Must be ${JSON.stringify(params['allowedValue'])}.`);
    case 'enum':
      return issue('FIELD_VALUE', path, `Must be one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`);
    case 'pattern': {
      const pattern = String(params['pattern']);
      const described = KNOWN_PATTERNS[pattern] ?? (pattern.includes('02-29') ? 'an RFC 3339 date-time with an offset' : `text matching ${pattern}`);
      return issue('FIELD_FORMAT', path, `Must be ${described}.`);
    }
    case 'minLength':
      return issue('FIELD_RANGE', path, `Must be at least ${String(params['limit'])} characters long.`);
    case 'maxLength':
      return issue('FIELD_RANGE', path, `Must be at most ${String(params['limit'])} characters long.`);
    case 'minItems':
      return issue('FIELD_RANGE', path, `Must have at least ${String(params['limit'])} items.`);
    case 'maxItems':
      return issue('FIELD_RANGE', path, `Must have at most ${String(params['limit'])} items.`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return issue('FIELD_RANGE', path, `Must be ${String(params['comparison'])} ${String(params['limit'])}.`);
    case 'propertyNames':
      return issue('FIELD_TYPE', path, 'Property names must be strings.');
    default:
      return issue('FIELD_VALUE', path, `Fails the \`${error.keyword}\` rule of the schema.`);
  }
}
