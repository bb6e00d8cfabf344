/**
 * Test support: fast-check arbitraries generated from the protocol's JSON Schema documents, and a
 * walker listing rule-breaking mutations of a value known to be valid.
 *
 * Only the subset of JSON Schema the relay documents use is understood: `$ref` to `#/…` pointers,
 * `anyOf`, `const`, `enum`, `type` (string, integer, number, boolean, null, array, object) with
 * `minLength`/`maxLength`/`pattern`, `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`,
 * `items`/`minItems`/`maxItems`, `properties`/`required`/`additionalProperties`/`propertyNames`.
 * Annotations (`format`, `readOnly`, `default`, `title`, `x-*`, …) are ignored. Any other keyword
 * that constrains a value makes the generator throw, so a document growing a new keyword cannot make
 * these tests silently generate invalid values.
 */
import fc from 'fast-check';

/** A schema node, read loosely. */
export interface SchemaNode {
  $ref?: string;
  anyOf?: SchemaNode[];
  const?: unknown;
  enum?: unknown[];
  type?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: SchemaNode;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: boolean | SchemaNode;
  propertyNames?: SchemaNode;
  [keyword: string]: unknown;
}

const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  '$defs',
  'title',
  'description',
  'readOnly',
  'writeOnly',
  'default',
  'examples',
  'format',
  'deprecated',
]);

const UNDERSTOOD = new Set([
  '$ref',
  'anyOf',
  'const',
  'enum',
  'type',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
]);

// ---------------------------------------------------------------------------------------------
// JSON pointers and schema navigation
// ---------------------------------------------------------------------------------------------

const escapeToken = (token: string | number): string => String(token).replace(/~/g, '~0').replace(/\//g, '~1');
const unescapeToken = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');

/** Appends a reference token to a JSON pointer (instance pointers: `""` is the root). */
export const joinPointer = (pointer: string, token: string | number): string => `${pointer}/${escapeToken(token)}`;

/** Splits an instance pointer into its unescaped tokens. */
export const pointerTokens = (pointer: string): string[] => (pointer === '' ? [] : pointer.slice(1).split('/').map(unescapeToken));

/** The node a schema pointer (`#`, `#/$defs/x`, …) designates in `document`. */
export function schemaNodeAt(document: SchemaNode, pointer: string): SchemaNode {
  if (!pointer.startsWith('#')) throw new Error(`only document-local pointers are supported: ${pointer}`);
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/').filter(Boolean)) {
    if (node === null || typeof node !== 'object') throw new Error(`no schema at ${pointer}`);
    node = (node as Record<string, unknown>)[unescapeToken(raw)];
  }
  if (node === null || typeof node !== 'object') throw new Error(`no schema at ${pointer}`);
  return node as SchemaNode;
}

/** Follows `$ref` chains; returns the final node and its pointer. */
export function dereference(document: SchemaNode, pointer: string): { node: SchemaNode; pointer: string } {
  let current = pointer;
  let node = schemaNodeAt(document, current);
  for (let hops = 0; typeof node.$ref === 'string'; hops += 1) {
    if (hops > 32) throw new Error(`$ref cycle at ${pointer}`);
    const siblings = Object.keys(node).filter((key) => key !== '$ref' && !ANNOTATIONS.has(key));
    if (siblings.length > 0) throw new Error(`$ref with constraining siblings at ${current}: ${siblings.join(', ')}`);
    current = node.$ref;
    node = schemaNodeAt(document, current);
  }
  return { node, pointer: current };
}

function checkKeywords(node: SchemaNode, pointer: string): void {
  for (const key of Object.keys(node)) {
    if (UNDERSTOOD.has(key) || ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    throw new Error(`schema-arbitrary: unsupported keyword \`${key}\` at ${pointer}`);
  }
}

const JSON_TYPES = ['string', 'number', 'boolean', 'null', 'array', 'object'] as const;

/** Per-document caches of facts derived from the (immutable) schema documents. */
function memo<T>(cache: WeakMap<SchemaNode, Map<string, T>>, document: SchemaNode, pointer: string, compute: () => T): T {
  let table = cache.get(document);
  if (!table) {
    table = new Map();
    cache.set(document, table);
  }
  if (!table.has(pointer)) table.set(pointer, compute());
  return table.get(pointer) as T;
}
const acceptsAnyJsonCache = new WeakMap<SchemaNode, Map<string, boolean>>();
const discriminatorCache = new WeakMap<SchemaNode, Map<string, string[]>>();

/**
 * True for a node that accepts every JSON value (`{}`, or an `anyOf` covering all six JSON types with
 * unconstrained members, as the `sharedSchema*` definitions do). Nothing inside such a node can be
 * mutated into something invalid, so the mutation walker stops there.
 */
export function acceptsAnyJson(document: SchemaNode, pointer: string): boolean {
  return memo(acceptsAnyJsonCache, document, pointer, () => computeAcceptsAnyJson(document, pointer));
}

function computeAcceptsAnyJson(document: SchemaNode, pointer: string): boolean {
  const { node, pointer: at } = dereference(document, pointer);
  const constraining = Object.keys(node).filter((key) => UNDERSTOOD.has(key));
  if (constraining.length === 0) return true;
  if (!node.anyOf || constraining.length !== 1) return false;
  const covered = new Set<string>();
  node.anyOf.forEach((_, index) => {
    const member = dereference(document, `${at}/anyOf/${index}`).node;
    const keys = Object.keys(member).filter((key) => UNDERSTOOD.has(key));
    const type = member.type === 'integer' ? undefined : member.type;
    if (!type) return;
    const open =
      keys.every((key) => ['type', 'items', 'additionalProperties', 'propertyNames'].includes(key)) &&
      (type !== 'array' || !member.items || isSelfOrAny(document, member.items, at)) &&
      (type !== 'object' || (member.additionalProperties !== false && (member.additionalProperties === undefined || member.additionalProperties === true || isSelfOrAny(document, member.additionalProperties, at))));
    if (open) covered.add(type);
  });
  return JSON_TYPES.every((type) => covered.has(type));
}

function isSelfOrAny(document: SchemaNode, node: SchemaNode, selfPointer: string): boolean {
  if (node.$ref === selfPointer) return true;
  return Object.keys(node).filter((key) => UNDERSTOOD.has(key)).length === 0;
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

export interface SchemaArbitraryOptions {
  /** How often a `$ref` already being expanded may be entered again before recursion is cut. Default 2. */
  maxRecursion?: number;
  /** Extra items above `minItems` an array may get (never above `maxItems`). Default 3. */
  maxExtraItems?: number;
  /** Extra characters above `minLength` an unpatterned string may get. Default 8. */
  maxExtraChars?: number;
  /** Entries of a record (`additionalProperties` schema). Default 3. */
  maxRecordKeys?: number;
  /** Replace the generator of a node: return an arbitrary, or undefined to keep the default. */
  override?: (node: SchemaNode, pointer: string) => fc.Arbitrary<unknown> | undefined;
}

/** Code points only (JSON Schema lengths count code points): mostly printable ASCII, sometimes any scalar value. */
const codePoint: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCodePoint(code)) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 0, max: 0x10ffff })
      .filter((code) => code < 0xd800 || code > 0xdfff)
      .map((code) => String.fromCodePoint(code)),
  },
);

/** Length of a string in code points, as JSON Schema counts it. */
export const codePointLength = (text: string): number => [...text].length;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

interface Bounds {
  min: number;
  max: number;
  minExcluded: boolean;
  maxExcluded: boolean;
}

function numericBounds(node: SchemaNode): Bounds {
  let min = -Number.MAX_VALUE;
  let max = Number.MAX_VALUE;
  let minExcluded = false;
  let maxExcluded = false;
  if (typeof node.minimum === 'number') min = node.minimum;
  if (typeof node.exclusiveMinimum === 'number' && node.exclusiveMinimum >= min) {
    min = node.exclusiveMinimum;
    minExcluded = true;
  }
  if (typeof node.maximum === 'number') max = node.maximum;
  if (typeof node.exclusiveMaximum === 'number' && node.exclusiveMaximum <= max) {
    max = node.exclusiveMaximum;
    maxExcluded = true;
  }
  return { min, max, minExcluded, maxExcluded };
}

function integerRange(node: SchemaNode): [number, number] {
  const bounds = numericBounds(node);
  const low = Math.max(-MAX_SAFE, bounds.minExcluded ? Math.floor(bounds.min) + 1 : Math.ceil(bounds.min));
  const high = Math.min(MAX_SAFE, bounds.maxExcluded ? Math.ceil(bounds.max) - 1 : Math.floor(bounds.max));
  if (low > high) throw new Error('empty integer range');
  return [low, high];
}

function integerArbitrary(node: SchemaNode): fc.Arbitrary<number> {
  const [low, high] = integerRange(node);
  const smallLow = Math.max(low, -1000);
  const smallHigh = Math.min(high, 1000);
  const options: fc.Arbitrary<number>[] = [fc.constantFrom(low, high)];
  if (smallLow <= smallHigh) options.push(fc.integer({ min: smallLow, max: smallHigh }));
  options.push(fc.bigInt({ min: BigInt(low), max: BigInt(high) }).map(Number));
  return fc.oneof(...options);
}

function numberArbitrary(node: SchemaNode): fc.Arbitrary<number> {
  const bounds = numericBounds(node);
  const doubles = fc.double({
    min: bounds.min,
    max: bounds.max,
    minExcluded: bounds.minExcluded,
    maxExcluded: bounds.maxExcluded,
    noNaN: true,
    noDefaultInfinity: true,
  });
  // Friendlier integers too, where the bounds leave room for some.
  const low = Math.max(-1000, bounds.minExcluded ? Math.floor(bounds.min) + 1 : Math.ceil(bounds.min));
  const high = Math.min(1000, bounds.maxExcluded ? Math.ceil(bounds.max) - 1 : Math.floor(bounds.max));
  return low <= high ? fc.oneof(doubles, fc.integer({ min: low, max: high })) : doubles;
}

/** Building a `stringMatching` arbitrary parses the pattern, which is slow for the date-time one: build each once. */
const patternCache = new Map<string, fc.Arbitrary<string>>();

function stringArbitrary(node: SchemaNode, options: Required<Omit<SchemaArbitraryOptions, 'override'>>): fc.Arbitrary<string> {
  const cacheKey = JSON.stringify([node.pattern, node.minLength, node.maxLength, options.maxExtraChars]);
  let cached = patternCache.get(cacheKey);
  if (!cached) {
    cached = buildStringArbitrary(node, options);
    patternCache.set(cacheKey, cached);
  }
  return cached;
}

function buildStringArbitrary(node: SchemaNode, options: Required<Omit<SchemaArbitraryOptions, 'override'>>): fc.Arbitrary<string> {
  const minLength = node.minLength ?? 0;
  const maxLength = node.maxLength;
  if (typeof node.pattern === 'string') {
    const regex = new RegExp(node.pattern, 'u');
    const cap = Math.max(minLength + options.maxExtraChars, 64);
    return fc
      .stringMatching(regex, { maxLength: maxLength === undefined ? cap : Math.min(maxLength, cap) })
      .filter((text) => {
        const length = codePointLength(text);
        return length >= minLength && (maxLength === undefined || length <= maxLength) && regex.test(text);
      });
  }
  const upper = Math.min(maxLength ?? Number.POSITIVE_INFINITY, minLength + options.maxExtraChars);
  return fc.string({ unit: codePoint, minLength, maxLength: upper });
}

const clone = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

/**
 * An arbitrary of values valid against the schema node at `pointer` (default: the document root).
 * Recursive definitions are expanded `maxRecursion` times, then only their non-recursive forms
 * (scalars, empty arrays and records) are generated.
 */
export function schemaArbitrary(document: SchemaNode, pointer = '#', options: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const settings = {
    maxRecursion: options.maxRecursion ?? 2,
    maxExtraItems: options.maxExtraItems ?? 3,
    maxExtraChars: options.maxExtraChars ?? 8,
    maxRecordKeys: options.maxRecordKeys ?? 3,
  };

  const build = (at: string, refCounts: ReadonlyMap<string, number>, exhausted: boolean): fc.Arbitrary<unknown> => {
    const node = schemaNodeAt(document, at);
    checkKeywords(node, at);
    const overridden = options.override?.(node, at);
    if (overridden) return overridden;

    if (typeof node.$ref === 'string') {
      const target = node.$ref;
      dereference(document, at); // validates the $ref has no constraining siblings
      const seen = refCounts.get(target) ?? 0;
      const counts = new Map(refCounts).set(target, seen + 1);
      return build(target, counts, exhausted || seen >= settings.maxRecursion);
    }
    if ('const' in node) return fc.constant(node.const).map(clone);
    if (Array.isArray(node.enum)) return fc.constantFrom(...node.enum).map(clone);
    if (Array.isArray(node.anyOf)) {
      let members = node.anyOf.map((_, index) => `${at}/anyOf/${index}`);
      if (exhausted) {
        const terminal = members.filter((member) => isTerminal(member));
        if (terminal.length > 0) members = terminal;
      }
      return fc.oneof(...members.map((member) => build(member, refCounts, exhausted)));
    }
    switch (node.type) {
      case 'string':
        return stringArbitrary(node, settings);
      case 'integer':
        return integerArbitrary(node);
      case 'number':
        return numberArbitrary(node);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const minItems = node.minItems ?? 0;
        if (exhausted && minItems === 0) return fc.constant([]).map(() => []);
        const item = node.items ? build(`${at}/items`, refCounts, exhausted) : fc.jsonValue({ maxDepth: 1 });
        const maxLength = Math.min(node.maxItems ?? Number.POSITIVE_INFINITY, minItems + settings.maxExtraItems);
        return fc.array(item, { minLength: minItems, maxLength });
      }
      case 'object':
        return objectArbitrary(node, at, refCounts, exhausted);
      case undefined: {
        const constraining = Object.keys(node).filter((key) => UNDERSTOOD.has(key));
        if (constraining.length > 0) throw new Error(`schema-arbitrary: untyped node with ${constraining.join(', ')} at ${at}`);
        return fc.jsonValue({ maxDepth: 2 });
      }
      default:
        throw new Error(`schema-arbitrary: unsupported type ${JSON.stringify(node.type)} at ${at}`);
    }
  };

  /** A member that can be generated without entering a `$ref` or producing nested values. */
  const isTerminal = (at: string): boolean => {
    const node = schemaNodeAt(document, at);
    if (node.$ref) return false;
    if (node.type === 'array') return (node.minItems ?? 0) === 0;
    if (node.type === 'object') return (node.required ?? []).length === 0 && Object.keys(node.properties ?? {}).length === 0;
    return node.anyOf === undefined;
  };

  const objectArbitrary = (node: SchemaNode, at: string, refCounts: ReadonlyMap<string, number>, exhausted: boolean): fc.Arbitrary<unknown> => {
    const properties = node.properties ?? {};
    const required = node.required ?? [];
    if (node.propertyNames) {
      const names = dereference(document, `${at}/propertyNames`).node;
      const constraining = Object.keys(names).filter((key) => UNDERSTOOD.has(key));
      if (!(constraining.length === 0 || (constraining.length === 1 && names.type === 'string'))) {
        throw new Error(`schema-arbitrary: unsupported propertyNames at ${at}`);
      }
    }
    const additional = node.additionalProperties;
    for (const key of required) {
      if (!(key in properties) && additional === false) throw new Error(`schema-arbitrary: unsatisfiable: \`${key}\` is required but not allowed at ${at}`);
    }
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const key of Object.keys(properties)) model[key] = build(`${at}/properties/${escapeToken(key)}`, refCounts, exhausted);
    const requiredKeys = required.filter((key) => key in properties);
    const declared = fc.record(model, { requiredKeys, noNullPrototype: true });
    const undeclaredRequired = required.filter((key) => !(key in properties));
    let extras: fc.Arbitrary<Record<string, unknown>> = fc.constant({}).map(() => ({}));
    if (additional !== undefined && additional !== false && additional !== true) {
      if (!exhausted) {
        const valueArb = build(`${at}/additionalProperties`, refCounts, exhausted);
        extras = fc.dictionary(
          fc.string({ maxLength: 6 }).filter((key) => !(key in properties)),
          valueArb,
          { maxKeys: settings.maxRecordKeys, noNullPrototype: true },
        );
      }
    }
    const forced =
      undeclaredRequired.length === 0
        ? fc.constant({}).map(() => ({}))
        : fc.tuple(...undeclaredRequired.map(() => fc.jsonValue({ maxDepth: 1 }))).map((values) =>
            Object.fromEntries(undeclaredRequired.map((key, index) => [key, values[index]])),
          );
    return fc.tuple(extras, forced, declared).map(([extra, must, own]) => Object.assign(Object.assign(Object.assign({}, extra), must), own));
  };

  return build(pointer, new Map(), false);
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

export type MutationKind =
  | 'unknown-property'
  | 'delete-required'
  | 'const-value'
  | 'enum-value'
  | 'uuid-format'
  | 'pattern-mismatch'
  | 'integer-fraction'
  | 'integer-below-minimum'
  | 'integer-above-maximum'
  | 'string-to-number'
  | 'exceed-max-length'
  | 'exceed-max-items';

export const MUTATION_KINDS: readonly MutationKind[] = [
  'unknown-property',
  'delete-required',
  'const-value',
  'enum-value',
  'uuid-format',
  'pattern-mismatch',
  'integer-fraction',
  'integer-below-minimum',
  'integer-above-maximum',
  'string-to-number',
  'exceed-max-length',
  'exceed-max-items',
];

export interface Mutation {
  kind: MutationKind;
  /**
   * JSON pointer of what the mutation touches: the added or deleted property, or the replaced value.
   * Relative to the value passed to `mutationsOf`.
   */
  path: string;
  /** The whole mutated value (a fresh copy; the input is never modified). */
  value: unknown;
  /** True when the touched property is a discriminator of a union its object is a member of. */
  discriminator: boolean;
  /** True when the replaced string also has a `pattern` (exceeding `maxLength` may break both). */
  patterned: boolean;
  /** True when the replaced value's node pins it with `const` or `enum` (a wrong type may be reported as a wrong value). */
  pinned: boolean;
  /** The schema node whose rule the mutation breaks. */
  schemaPointer: string;
}

export interface MutationContext {
  document: SchemaNode;
  /**
   * Whether `value` satisfies the schema node at `pointer` of `document`: used to find the union
   * members a value matched, and to drop a mutation another member of a union would still accept.
   */
  matches: (pointer: string, value: unknown) => boolean;
}

export const UNKNOWN_PROPERTY = '__leak';
export const NOT_A_UUID = 'not-a-uuid';
const UUID_SHAPE = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}';
const PATTERN_BREAKERS = ['not-a-uuid', ' ', 'x y', '-', ''];

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const hasOwn = (record: object, key: string): boolean => Object.prototype.hasOwnProperty.call(record, key);

/** Values a union member pins `key` to (via `const`/`enum`), or undefined if it does not pin it. */
function pinnedValues(document: SchemaNode, pointer: string, key: string): unknown[] | undefined {
  const { node, pointer: at } = dereference(document, pointer);
  if (node.anyOf) {
    const all = node.anyOf.map((_, index) => pinnedValues(document, `${at}/anyOf/${index}`, key));
    return all.some((values) => values === undefined) ? undefined : all.flat();
  }
  const property = node.properties?.[key];
  if (!property) return undefined;
  const target = dereference(document, `${at}/properties/${escapeToken(key)}`).node;
  if ('const' in target) return [target.const];
  if (Array.isArray(target.enum)) return target.enum;
  return undefined;
}

/** Keys every member of the union at `pointer` pins, with not all members pinning the same values. */
export function unionDiscriminators(document: SchemaNode, pointer: string): string[] {
  return memo(discriminatorCache, document, pointer, () => computeDiscriminators(document, pointer));
}

function computeDiscriminators(document: SchemaNode, pointer: string): string[] {
  const { node, pointer: at } = dereference(document, pointer);
  const members = (node.anyOf ?? []).map((_, index) => `${at}/anyOf/${index}`);
  const keys = new Set<string>();
  const collect = (member: string): void => {
    const inner = dereference(document, member);
    if (inner.node.anyOf) inner.node.anyOf.forEach((_, index) => collect(`${inner.pointer}/anyOf/${index}`));
    else Object.keys(inner.node.properties ?? {}).forEach((key) => keys.add(key));
  };
  members.forEach(collect);
  return [...keys].filter((key) => {
    const sets = members.map((member) => pinnedValues(document, member, key));
    if (sets.some((values) => values === undefined)) return false;
    return new Set(sets.map((values) => JSON.stringify([...(values ?? [])].map((v) => JSON.stringify(v)).sort()))).size > 1;
  });
}

function setAt(root: unknown, path: string, replacement: unknown): unknown {
  const copy = clone(root);
  const tokens = pointerTokens(path);
  if (tokens.length === 0) return clone(replacement);
  let parent: unknown = copy;
  for (const token of tokens.slice(0, -1)) parent = (parent as Record<string, unknown>)[token];
  const last = tokens[tokens.length - 1] as string;
  if (Array.isArray(parent)) parent[Number(last)] = clone(replacement);
  else Object.defineProperty(parent, last, { value: clone(replacement), enumerable: true, writable: true, configurable: true });
  return copy;
}

function deleteAt(root: unknown, path: string): unknown {
  const copy = clone(root);
  const tokens = pointerTokens(path);
  let parent: unknown = copy;
  for (const token of tokens.slice(0, -1)) parent = (parent as Record<string, unknown>)[token];
  const last = tokens[tokens.length - 1] as string;
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete (parent as Record<string, unknown>)[last];
  return copy;
}

/** The value at an instance pointer. */
export function valueAt(root: unknown, path: string): unknown {
  let current = root;
  for (const token of pointerTokens(path)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

/**
 * Rule-breaking mutations of `value`, which must be valid against the node at `pointer`. Each
 * mutation breaks the rule of the node it touches; inside a union, a mutation is kept only if no
 * member of the union accepts the mutated value there. Nothing inside a node that accepts any JSON
 * value is mutated.
 */
export function mutationsOf(value: unknown, pointer: string, context: MutationContext): Mutation[] {
  const { document, matches } = context;
  const found = new Map<string, Mutation>();
  const add = (mutation: Mutation): void => {
    const key = `${mutation.kind} ${mutation.path}`;
    if (!found.has(key)) found.set(key, mutation);
  };

  /** `unionKeys`: discriminators of the unions `here` is directly a member of; `isDiscriminator`: the key leading here is one. */
  const walk = (here: unknown, path: string, at: string, unionKeys: ReadonlySet<string>, isDiscriminator: boolean): Mutation[] => {
    if (acceptsAnyJson(document, at)) return [];
    const { node, pointer: schemaPointer } = dereference(document, at);
    const out: Mutation[] = [];
    const pinned = 'const' in node || Array.isArray(node.enum);
    const replace = (kind: MutationKind, replacement: unknown, patterned = false): void => {
      out.push({ kind, path, value: replacement, discriminator: isDiscriminator, patterned, pinned, schemaPointer });
    };

    if (Array.isArray(node.anyOf)) {
      const members = node.anyOf.map((_, index) => `${schemaPointer}/anyOf/${index}`);
      const matched = members.filter((member) => matches(member, here));
      if (matched.length === 0) throw new Error(`mutationsOf: value at ${path || '/'} matches no member of ${schemaPointer}`);
      const keys = new Set([...unionKeys, ...unionDiscriminators(document, schemaPointer)]);
      for (const member of matched) {
        for (const mutation of walk(here, path, member, keys, isDiscriminator)) {
          // `mutation.value` here holds the mutated sub-value at `path`; keep it only if the union rejects it.
          if (!matches(schemaPointer, mutation.value)) out.push(mutation);
        }
      }
      return out;
    }

    if ('const' in node) {
      const pinned = node.const;
      if (typeof pinned === 'string') replace('const-value', `${pinned}__x`);
      else if (typeof pinned === 'boolean') replace('const-value', !pinned);
      else if (typeof pinned === 'number') replace('const-value', pinned + 1);
    } else if (Array.isArray(node.enum) && typeof here === 'string') {
      let candidate = `${here}__x`;
      while (node.enum.includes(candidate)) candidate += 'x';
      replace('enum-value', candidate);
    }

    if (node.type === 'string' && typeof here === 'string') {
      replace('string-to-number', 42);
      if (typeof node.pattern === 'string') {
        const regex = new RegExp(node.pattern, 'u');
        const fits = (text: string): boolean =>
          codePointLength(text) >= (node.minLength ?? 0) && codePointLength(text) <= (node.maxLength ?? Number.POSITIVE_INFINITY);
        if (node.pattern.includes(UUID_SHAPE) && !regex.test(NOT_A_UUID) && fits(NOT_A_UUID)) replace('uuid-format', NOT_A_UUID);
        else {
          const breaker = PATTERN_BREAKERS.find((text) => !regex.test(text) && fits(text));
          if (breaker !== undefined) replace('pattern-mismatch', breaker);
        }
      }
      if (typeof node.maxLength === 'number') {
        const length = codePointLength(here);
        replace('exceed-max-length', here + 'x'.repeat(node.maxLength + 1 - length), typeof node.pattern === 'string');
      }
    }

    if (node.type === 'integer' && typeof here === 'number') {
      const bounded = [node.minimum, node.maximum, node.exclusiveMinimum, node.exclusiveMaximum].some((bound) => typeof bound === 'number');
      if (bounded) {
        const [low] = integerRange(node);
        replace('integer-fraction', Math.abs(here) < 2 ** 40 ? here + 0.5 : low + 0.5);
        if (typeof node.exclusiveMinimum === 'number') replace('integer-below-minimum', node.exclusiveMinimum);
        else if (typeof node.minimum === 'number') replace('integer-below-minimum', node.minimum - 1);
        if (typeof node.maximum === 'number' && node.maximum + 1 > node.maximum) replace('integer-above-maximum', node.maximum + 1);
      }
    }

    if (node.type === 'array' && Array.isArray(here)) {
      if (node.items) {
        here.forEach((item, index) => {
          for (const inner of walk(item, joinPointer(path, index), `${schemaPointer}/items`, new Set(), false)) {
            const copy = [...here];
            copy[index] = inner.value;
            out.push({ ...inner, value: copy });
          }
        });
      }
      if (typeof node.maxItems === 'number' && here.length > 0 && here.length <= node.maxItems) {
        const longer = [...here];
        while (longer.length <= node.maxItems) longer.push(clone(here[longer.length % here.length]));
        replace('exceed-max-items', longer);
      }
    }

    if (node.type === 'object' && isRecord(here)) {
      const properties = node.properties ?? {};
      const rebuild = (entries: Array<[string, unknown]>): Record<string, unknown> => Object.fromEntries(entries);
      if (node.additionalProperties === false && !hasOwn(properties, UNKNOWN_PROPERTY)) {
        out.push({
          kind: 'unknown-property',
          path: joinPointer(path, UNKNOWN_PROPERTY),
          value: rebuild([...Object.entries(here), [UNKNOWN_PROPERTY, 'leaked']]),
          discriminator: false,
          patterned: false,
          pinned: false,
          schemaPointer,
        });
      }
      for (const key of node.required ?? []) {
        if (!hasOwn(here, key)) continue;
        out.push({
          kind: 'delete-required',
          path: joinPointer(path, key),
          value: rebuild(Object.entries(here).filter(([name]) => name !== key)),
          discriminator: unionKeys.has(key),
          patterned: false,
          pinned: false,
          schemaPointer,
        });
      }
      for (const [key, child] of Object.entries(here)) {
        let childPointer: string | undefined;
        if (hasOwn(properties, key)) childPointer = `${schemaPointer}/properties/${escapeToken(key)}`;
        else if (isRecord(node.additionalProperties)) childPointer = `${schemaPointer}/additionalProperties`;
        if (!childPointer) continue;
        for (const inner of walk(child, joinPointer(path, key), childPointer, new Set(), unionKeys.has(key))) {
          out.push({ ...inner, value: rebuild(Object.entries(here).map(([name, v]) => [name, name === key ? inner.value : v])) });
        }
      }
    }
    return out;
  };

  // `walk` returns mutations whose `value` is the mutated sub-value at the walked node; at the top that
  // is the whole value. Deep copies keep the input untouched.
  for (const mutation of walk(value, '', pointer, new Set(), false)) add({ ...mutation, value: clone(mutation.value) });
  return [...found.values()];
}

/** Exposed for tests that build their own mutations. */
export const mutate = { setAt, deleteAt };
