/**
 * Property-based tests of the validators against the schema documents themselves.
 *
 * Values are generated from the documents' definitions (test/support/schema-arbitrary.ts), so every
 * generated frame, message, descriptor, params and result must validate. Mutations that break one
 * rule must be rejected, with the issue the explainer is meant to give. Ajv's JSON Schema 2020-12
 * engine, compiling the whole documents at test time, is the independent oracle: the library
 * dispatches on `type` to per-member validators compiled with Ajv's draft-07 engine, and must agree
 * with the document's root `anyOf` on every value.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import fc from 'fast-check';

import {
  canonicalJson,
  validateBrowserSessionDescriptor,
  validateControlMessage,
  validateMethodParams,
  validateMethodResult,
  validateWireFrame,
  WIRE_VERSIONS,
  type FrameIssue,
  type FrameIssueCode,
  type Verdict,
  type WireVersion,
} from '../src';
import browserSession10 from '../schemas/browser-session-1.0.schema.json';
import control10 from '../schemas/control-1.0.schema.json';
import wire10 from '../schemas/wire-1.0.schema.json';
import wire11 from '../schemas/wire-1.1.schema.json';
import wire12 from '../schemas/wire-1.2.schema.json';
import {
  dereference,
  joinPointer,
  MUTATION_KINDS,
  mutate,
  mutationsOf,
  schemaArbitrary,
  valueAt,
  type Mutation,
  type MutationKind,
  type SchemaArbitraryOptions,
  type SchemaNode,
} from './support/schema-arbitrary';

const RUNS = 300;
const MUTATION_RUNS = 300;

// ---------------------------------------------------------------------------------------------
// Documents and the Ajv oracle
// ---------------------------------------------------------------------------------------------

type DocumentKey = `wire-${WireVersion}` | 'control-1.0' | 'browser-session-1.0';

const DOCUMENTS: Record<DocumentKey, SchemaNode> = {
  'wire-1.0': wire10 as unknown as SchemaNode,
  'wire-1.1': wire11 as unknown as SchemaNode,
  'wire-1.2': wire12 as unknown as SchemaNode,
  'control-1.0': control10 as unknown as SchemaNode,
  'browser-session-1.0': browserSession10 as unknown as SchemaNode,
};

const wireKey = (version: WireVersion): DocumentKey => `wire-${version}`;

// The documents declare JSON Schema 2020-12; formats are annotations (the patterns decide, §14).
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
for (const document of Object.values(DOCUMENTS)) ajv.addSchema(document);

const oracleCache = new Map<string, ValidateFunction>();
function oracle(key: DocumentKey, pointer = '#'): ValidateFunction {
  const id = DOCUMENTS[key].$id as string;
  const ref = pointer === '#' ? id : `${id}${pointer}`;
  let validate = oracleCache.get(ref);
  if (!validate) {
    validate = ajv.getSchema(ref);
    if (!validate) throw new Error(`Ajv cannot resolve ${ref}`);
    oracleCache.set(ref, validate);
  }
  return validate;
}
const ajvAccepts = (key: DocumentKey, value: unknown, pointer = '#'): boolean => oracle(key, pointer)(value) === true;

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const WSS_URL_PATTERN = '^wss:\\/\\/\\S+$';

/** `wss://` URLs that also parse with `new URL` (the descriptor check after the schema, §13). */
const wssUrl = fc
  .tuple(
    fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
    fc.constantFrom('example', 'relay.example', 'example.com'),
    fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/), { maxLength: 3 }),
    fc.option(fc.stringMatching(/^[a-z]{1,4}=[A-Za-z0-9%]{0,6}$/), { nil: undefined }),
  )
  .map(([label, domain, port, segments, query]) => `wss://${label}.${domain}${port ? `:${port}` : ''}/${segments.join('/')}${query ? `?${query}` : ''}`);

const GENERATION: SchemaArbitraryOptions = {
  override: (node) => (node.pattern === WSS_URL_PATTERN ? wssUrl : undefined),
};

const arbitraryCache = new Map<string, fc.Arbitrary<unknown>>();
function arbitrary(key: DocumentKey, pointer = '#'): fc.Arbitrary<unknown> {
  const cacheKey = `${key} ${pointer}`;
  let arb = arbitraryCache.get(cacheKey);
  if (!arb) {
    arb = schemaArbitrary(DOCUMENTS[key], pointer, GENERATION);
    arbitraryCache.set(cacheKey, arb);
  }
  return arb;
}

/** The `type` each member of a document's root union pins (a member may itself be a union). */
function messageTypes(key: DocumentKey): Array<{ type: string; pointer: string }> {
  const document = DOCUMENTS[key];
  return (document.anyOf ?? []).map((_, index) => {
    const pointer = `#/anyOf/${index}`;
    const pins = new Set<unknown>();
    const collect = (at: string): void => {
      const { node, pointer: resolved } = dereference(document, at);
      if (node.anyOf) node.anyOf.forEach((__, inner) => collect(`${resolved}/anyOf/${inner}`));
      else pins.add(node.properties?.['type']?.const);
    };
    collect(pointer);
    const [type] = [...pins];
    if (pins.size !== 1 || typeof type !== 'string') throw new Error(`${key} ${pointer} does not pin one type`);
    return { type, pointer };
  });
}

function methodSchemas(version: WireVersion): Array<{ method: string; params: string; result: string }> {
  const table = DOCUMENTS[wireKey(version)]['x-roll-request-method-schemas'] as Record<string, { params: { $ref: string }; result: { $ref: string } }>;
  return Object.entries(table).map(([method, refs]) => ({ method, params: refs.params.$ref, result: refs.result.$ref }));
}

const frameArbitrary = (version: WireVersion): fc.Arbitrary<unknown> => arbitrary(wireKey(version));

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function mustAccept(verdict: Verdict<unknown>, value: unknown): void {
  if (!verdict.ok) throw new Error(`rejected ${JSON.stringify(value)}: ${JSON.stringify(verdict.issues)}`);
}

const isPrefix = (ancestor: string, path: string): boolean => path === ancestor || path.startsWith(`${ancestor}/`);

/** The issue families a mutation may produce; `dispatched` when the touched value is the dispatch key `/type`. */
function expectedCodes(mutation: Mutation, dispatched: boolean): FrameIssueCode[] {
  switch (mutation.kind) {
    case 'unknown-property':
      return ['FIELD_NOT_ALLOWED'];
    case 'delete-required':
      return mutation.discriminator && !dispatched ? ['FIELD_REQUIRED', 'FIELD_VALUE'] : ['FIELD_REQUIRED'];
    case 'const-value':
    case 'enum-value':
      return dispatched ? ['FRAME_TYPE_UNKNOWN'] : ['FIELD_VALUE'];
    case 'uuid-format':
    case 'pattern-mismatch':
      return ['FIELD_FORMAT'];
    case 'integer-fraction':
      return ['FIELD_TYPE'];
    case 'integer-below-minimum':
    case 'integer-above-maximum':
    case 'exceed-max-items':
      return ['FIELD_RANGE'];
    case 'exceed-max-length':
      return mutation.patterned ? ['FIELD_RANGE', 'FIELD_FORMAT'] : ['FIELD_RANGE'];
    case 'string-to-number':
      // A number where a union discriminator or a `const`/`enum` string belongs: the compiled
      // validators report the pinned value (`Must be "normal"`) rather than the type; both are fair.
      return (mutation.discriminator || mutation.pinned) && !dispatched ? ['FIELD_TYPE', 'FIELD_VALUE'] : ['FIELD_TYPE'];
  }
}

const seenKinds = new Map<MutationKind, number>();

interface MutationTarget {
  key: DocumentKey;
  /** Schema node the value was generated from (the oracle checks the whole document for frames). */
  pointer: string;
  /** The library call under test. */
  validate: (value: unknown) => Verdict<unknown>;
  /** Prefix the library puts before issue paths (`/params`, `/result`). */
  basePath: string;
  /** True when the library dispatches on `/type` before the schema (frames and Control messages). */
  dispatches: boolean;
}

/**
 * Every mutation must be rejected by Ajv and by the library, and the library must name the mutated
 * location with an issue of the mutation's family.
 */
function checkMutations(target: MutationTarget, value: unknown): void {
  const mutations = mutationsOf(value, target.pointer, { document: DOCUMENTS[target.key], matches: (pointer, v) => ajvAccepts(target.key, v, pointer) });
  for (const mutation of mutations) {
    // The walker promises a broken rule; Ajv confirms it independently.
    if (ajvAccepts(target.key, mutation.value, target.pointer)) {
      throw new Error(`Ajv accepts mutation ${mutation.kind} at ${mutation.path}: ${JSON.stringify(mutation.value)}`);
    }
    seenKinds.set(mutation.kind, (seenKinds.get(mutation.kind) ?? 0) + 1);
    const verdict = target.validate(mutation.value);
    if (verdict.ok) throw new Error(`library accepts mutation ${mutation.kind} at ${mutation.path}: ${JSON.stringify(mutation.value)}`);
    const [issue] = verdict.issues as [FrameIssue, ...FrameIssue[]];
    const expectedPath = target.basePath + mutation.path;
    const codes = expectedCodes(mutation, target.dispatches && mutation.path === '/type');
    if (issue.path !== expectedPath || !codes.includes(issue.code)) {
      throw new Error(
        `mutation ${mutation.kind} at ${expectedPath} (expected ${codes.join('|')}) reported as ${issue.code} at ${issue.path || '""'}` +
          ` (${isPrefix(issue.path, expectedPath) || isPrefix(expectedPath, issue.path) ? 'prefix-related' : 'unrelated'}): ${issue.message}\n` +
          `value: ${JSON.stringify(mutation.value)}`,
      );
    }
  }
}

/** Every JSON pointer inside a value (the root excluded). */
function allPaths(value: unknown, path = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  return entries.flatMap(([token, child]) => {
    const here = joinPointer(path, token);
    return [here, ...allPaths(child, here)];
  });
}

/** Copies of a JSON value with every object's keys, at every depth, in a shuffled order. */
function reorderedArbitrary(value: unknown): fc.Arbitrary<unknown> {
  if (Array.isArray(value)) return value.length === 0 ? fc.constant([]) : fc.tuple(...value.map(reorderedArbitrary));
  if (value === null || typeof value !== 'object') return fc.constant(value);
  const keys = Object.keys(value);
  if (keys.length === 0) return fc.constant({});
  const children = keys.map((key) => reorderedArbitrary((value as Record<string, unknown>)[key]));
  return fc
    .tuple(fc.shuffledSubarray(keys, { minLength: keys.length, maxLength: keys.length }), fc.tuple(...children))
    .map(([order, values]) => Object.fromEntries(order.map((key) => [key, values[keys.indexOf(key)]])));
}

const withReordering = (source: fc.Arbitrary<unknown>): fc.Arbitrary<[unknown, unknown]> =>
  source.chain((value) => fc.tuple(fc.constant(value), reorderedArbitrary(value)));

// ---------------------------------------------------------------------------------------------
// Generated values are valid
// ---------------------------------------------------------------------------------------------

describe('values generated from the schema documents validate', () => {
  describe.each(WIRE_VERSIONS.map((version) => [version]))('Wire %s frames', (version) => {
    it.each(messageTypes(wireKey(version)).map(({ type, pointer }) => [type, pointer]))('%s', (_type, pointer) => {
      fc.assert(
        fc.property(arbitrary(wireKey(version), pointer), (frame) => {
          mustAccept(validateWireFrame(version, frame), frame);
          expect(ajvAccepts(wireKey(version), frame)).toBe(true);
        }),
        { numRuns: RUNS },
      );
    });
  });

  describe('Control 1.0 messages', () => {
    it.each(messageTypes('control-1.0').map(({ type, pointer }) => [type, pointer]))('%s', (_type, pointer) => {
      fc.assert(
        fc.property(arbitrary('control-1.0', pointer), (message) => {
          mustAccept(validateControlMessage(message), message);
          expect(ajvAccepts('control-1.0', message)).toBe(true);
        }),
        { numRuns: RUNS },
      );
    });
  });

  it('browser session descriptors', () => {
    fc.assert(
      fc.property(arbitrary('browser-session-1.0'), (descriptor) => {
        mustAccept(validateBrowserSessionDescriptor(descriptor), descriptor);
        expect(ajvAccepts('browser-session-1.0', descriptor)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  describe.each(WIRE_VERSIONS.map((version) => [version]))('Wire %s method params and results', (version) => {
    it.each(methodSchemas(version).map(({ method, params, result }) => [method, params, result]))('%s', (method, params, result) => {
      fc.assert(
        fc.property(arbitrary(wireKey(version), params), arbitrary(wireKey(version), result), (paramsValue, resultValue) => {
          mustAccept(validateMethodParams(version, method, paramsValue), paramsValue);
          mustAccept(validateMethodResult(version, method, resultValue), resultValue);
          expect(ajvAccepts(wireKey(version), paramsValue, params)).toBe(true);
          expect(ajvAccepts(wireKey(version), resultValue, result)).toBe(true);
        }),
        { numRuns: 200 },
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Differential: dispatch on `type` equals the document's root anyOf
// ---------------------------------------------------------------------------------------------

/** `validateWireFrame` of every version answers as Ajv does on the whole document. */
function agree(value: unknown): void {
  for (const version of WIRE_VERSIONS) {
    const library = validateWireFrame(version, value).ok;
    const reference = ajvAccepts(wireKey(version), value);
    if (library !== reference) throw new Error(`Wire ${version}: library ${library}, Ajv ${reference} for ${JSON.stringify(value)}`);
  }
}

describe('validateWireFrame agrees with Ajv on the whole document', () => {

  const allTypes = [...new Set(WIRE_VERSIONS.flatMap((version) => messageTypes(wireKey(version)).map(({ type }) => type)))];
  const anyVersionFrame = fc.constantFrom(...WIRE_VERSIONS).chain(frameArbitrary);
  const smallJson = fc.jsonValue({ maxDepth: 2 });
  const oddValues = fc.constantFrom<unknown>('not-a-uuid', '', -1, 0.5, 2 ** 53, null, true, {}, [], 'leaked', '1.2', 'thread.snapshot');

  it('on arbitrary JSON values', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 3 }), agree), { numRuns: 300 });
  });

  it('on objects with a known type and random fields', () => {
    const fieldNames = fc.constantFrom('type', 'workspaceId', 'requestId', 'method', 'params', 'result', 'error', 'event', 'relaySequence', 'projection', '__leak');
    fc.assert(
      fc.property(fc.constantFrom(...allTypes), fc.dictionary(fieldNames, fc.oneof(smallJson, oddValues), { maxKeys: 6 }), (type, fields) =>
        agree({ ...fields, type }),
      ),
      { numRuns: 300 },
    );
  });

  it('on frames of any version with one field swapped, deleted or added', () => {
    // Positions are drawn as fractions, so no arbitrary is built per run (building them is what costs).
    const fraction = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
    const replacement = fc.oneof(
      smallJson.map((json) => ({ json })),
      oddValues.map((json) => ({ json })),
      fraction.map((donorAt) => ({ donorAt })),
    );
    const edited = fc
      .tuple(anyVersionFrame, anyVersionFrame, fraction, fc.constantFrom('replace', 'delete', 'add'), replacement)
      .map(([frame, donor, where, operation, pick]): [unknown, string, string, unknown] => {
        const paths = allPaths(frame);
        const donorPaths = allPaths(donor);
        let swapped: unknown = 'json' in pick ? pick.json : donor;
        if ('donorAt' in pick && donorPaths.length > 0) swapped = valueAt(donor, donorPaths[Math.floor(pick.donorAt * donorPaths.length)] as string);
        return [frame, paths[Math.floor(where * paths.length)] as string, operation, swapped];
      })
      .map(([frame, path, operation, replacement]) => {
        if (operation === 'delete') return mutate.deleteAt(frame, path);
        if (operation === 'add') {
          const parent = valueAt(frame, path);
          if (parent !== null && typeof parent === 'object' && !Array.isArray(parent)) return mutate.setAt(frame, joinPointer(path, '__leak'), replacement);
        }
        return mutate.setAt(frame, path, replacement);
      });
    fc.assert(fc.property(edited, agree), { numRuns: 400 });
  });
});

/** Pointers of the `runtime.event` frame, of its inner event union and of each of that union's (possibly nested) members, with their `type`. */
function eventUnion(key: DocumentKey): { frame: string; union: string; members: Array<{ type: string; pointer: string }> } {
  const frame = messageTypes(key).find(({ type }) => type === 'runtime.event');
  if (!frame) throw new Error(`${key} has no runtime.event frame`);
  const union = `${frame.pointer}/properties/event/properties/event`;
  const members: Array<{ type: string; pointer: string }> = [];
  const collect = (at: string): void => {
    const { node, pointer } = dereference(DOCUMENTS[key], at);
    if (node.anyOf) node.anyOf.forEach((_, index) => collect(`${pointer}/anyOf/${index}`));
    else members.push({ type: node.properties?.['type']?.const as string, pointer });
  };
  collect(union);
  return { frame: frame.pointer, union, members };
}

describe('the inner event union, compiled with dispatch on the event type, agrees with Ajv on the whole document', () => {
  // The compiled validators try only the event members that name the event's `type`; the oracle
  // evaluates the document's `anyOf` as written, member by member.
  const eventFrame = fc.constantFrom(...WIRE_VERSIONS).chain((version) => arbitrary(wireKey(version), eventUnion(wireKey(version)).frame));
  const withEvent = (frame: unknown, event: unknown): unknown => mutate.setAt(frame, '/event/event', event);
  const eventTypes = [...new Set(WIRE_VERSIONS.flatMap((version) => eventUnion(wireKey(version)).members.map(({ type }) => type)))];
  /** An event of any version, member by member, so that every member (1.0's `tool.output`, 1.2's second `tool.completed`) comes up. */
  const anyEvent = fc.constantFrom(...WIRE_VERSIONS.flatMap((version) => eventUnion(wireKey(version)).members.map((member) => ({ version, ...member })))).chain(
    ({ version, pointer }) => arbitrary(wireKey(version), pointer),
  );

  it('on events of every member of every version, in frames of any version', () => {
    fc.assert(fc.property(eventFrame, anyEvent, (frame, event) => agree(withEvent(frame, event))), { numRuns: 400 });
  });

  it('on events whose `type` names another member', () => {
    fc.assert(
      fc.property(eventFrame, anyEvent, fc.constantFrom(...eventTypes), (frame, event, type) => agree(withEvent(frame, { ...(event as object), type }))),
      { numRuns: 400 },
    );
  });

  it('on objects with a known, unknown, missing or non-string `type` and random fields', () => {
    const fieldNames = fc.constantFrom('type', 'streamId', 'delta', 'text', 'toolCallId', 'agentName', 'toolName', 'approval', 'resolution', 'stage', 'display', '__leak');
    const type = fc.oneof(fc.constantFrom(...eventTypes), fc.constantFrom<unknown>(undefined, 'tool.output.x', '', 7, null, ['turn.started'], { type: 'turn.started' }));
    const fields = fc.dictionary(fieldNames, fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom<unknown>('00000000-0000-0000-0000-000000000000', 'call-1', 'x')), { maxKeys: 5 });
    fc.assert(
      fc.property(eventFrame, type, fields, (frame, tag, rest) => agree(withEvent(frame, tag === undefined ? rest : { ...rest, type: tag }))),
      { numRuns: 400 },
    );
  });

  it('on values that are not objects', () => {
    fc.assert(fc.property(eventFrame, fc.jsonValue({ maxDepth: 2 }), (frame, event) => agree(withEvent(frame, event))), { numRuns: 200 });
  });
});

// ---------------------------------------------------------------------------------------------
// Mutations break exactly one rule and are reported where they happened
// ---------------------------------------------------------------------------------------------

describe('every rule-breaking mutation is rejected and located', () => {
  describe.each(WIRE_VERSIONS.map((version) => [version]))('Wire %s', (version) => {
    it('frames', () => {
      const target: MutationTarget = {
        key: wireKey(version),
        pointer: '#',
        validate: (value) => validateWireFrame(version, value),
        basePath: '',
        dispatches: true,
      };
      fc.assert(
        fc.property(frameArbitrary(version), (frame) => checkMutations(target, frame)),
        { numRuns: MUTATION_RUNS },
      );
    });

    it.each(['params', 'result'] as const)('method %s', (part) => {
      const methods = methodSchemas(version);
      const cases = fc.constantFrom(...methods).chain((entry) => fc.tuple(fc.constant(entry), arbitrary(wireKey(version), entry[part])));
      fc.assert(
        fc.property(cases, ([entry, value]) =>
          checkMutations(
            {
              key: wireKey(version),
              pointer: entry[part],
              validate: (v) => (part === 'params' ? validateMethodParams(version, entry.method, v) : validateMethodResult(version, entry.method, v)),
              basePath: `/${part}`,
              dispatches: false,
            },
            value,
          ),
        ),
        { numRuns: MUTATION_RUNS },
      );
    });
  });

  it('Control 1.0 messages', () => {
    const target: MutationTarget = { key: 'control-1.0', pointer: '#', validate: validateControlMessage, basePath: '', dispatches: true };
    fc.assert(
      fc.property(arbitrary('control-1.0'), (message) => checkMutations(target, message)),
      { numRuns: MUTATION_RUNS },
    );
  });

  it('browser session descriptors', () => {
    const target: MutationTarget = { key: 'browser-session-1.0', pointer: '#', validate: validateBrowserSessionDescriptor, basePath: '', dispatches: false };
    fc.assert(
      fc.property(arbitrary('browser-session-1.0'), (descriptor) => checkMutations(target, descriptor)),
      { numRuns: MUTATION_RUNS },
    );
  });

  it('exercised every kind of mutation', () => {
    const missing = MUTATION_KINDS.filter((kind) => !seenKinds.has(kind));
    expect(missing).toEqual([]);
  });

  describe('of two union members that fit equally far, the explainer follows the one that declares more of the value', () => {
    const NIL = '00000000-0000-0000-0000-000000000000';
    const frame = (protocolVersion: string, event: Record<string, unknown>) => ({
      type: 'runtime.event',
      workspaceId: NIL,
      relaySequence: 0,
      event: { protocolVersion, runtimeInstanceId: NIL, sequence: 0, timestamp: '2024-01-01T00:00Z', threadId: NIL, event },
    });
    const cases = [
      {
        name: 'Wire 1.2 tool.completed with appOutput',
        version: '1.2' as const,
        valid: frame('1.1', { type: 'tool.completed', toolCallId: 'c', agentName: 'a', toolName: 't', appOutput: { status: 'denied' } }),
        leakAt: ['event', 'event'],
        expected: '/event/event/__leak',
      },
      {
        name: 'Wire 1.0 approval.resolved rejected with a reason',
        version: '1.0' as const,
        valid: frame('1.0', { type: 'approval.resolved', approvalId: NIL, resolution: { status: 'resolved', decision: 'reject', reason: 'r' } }),
        leakAt: ['event', 'event', 'resolution'],
        expected: '/event/event/resolution/__leak',
      },
    ];
    const leaked = (value: unknown, at: string[]): unknown => mutate.setAt(value, joinPointer(at.map((token) => `/${token}`).join(''), '__leak'), 1);

    it.each(cases)('$name: the frame is valid without the unknown property, invalid with it', ({ version, valid, leakAt }) => {
      expect(validateWireFrame(version, valid).ok).toBe(true);
      expect(ajvAccepts(wireKey(version), valid)).toBe(true);
      expect(ajvAccepts(wireKey(version), leaked(valid, leakAt))).toBe(false);
      expect(validateWireFrame(version, leaked(valid, leakAt)).ok).toBe(false);
    });

    it.each(cases)('$name: the issue names the unknown property', ({ version, valid, leakAt, expected }) => {
      const verdict = validateWireFrame(version, leaked(valid, leakAt));
      expect(verdict.ok ? undefined : verdict.issues[0]).toMatchObject({ code: 'FIELD_NOT_ALLOWED', path: expected });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Canonical JSON (§5)
// ---------------------------------------------------------------------------------------------

describe('canonicalJson', () => {
  const jsonOrFrame = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(...WIRE_VERSIONS).chain(frameArbitrary));

  it('does not depend on key order, at any depth', () => {
    fc.assert(
      fc.property(withReordering(jsonOrFrame), ([value, reordered]) => {
        expect(canonicalJson(reordered)).toBe(canonicalJson(value));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps array order', () => {
    const pair = fc.tuple(jsonOrFrame, jsonOrFrame).filter(([a, b]) => canonicalJson(a) !== canonicalJson(b));
    fc.assert(
      fc.property(pair, fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }), ([a, b], rest) => {
        expect(canonicalJson([a, b, ...rest])).not.toBe(canonicalJson([b, a, ...rest]));
        expect(canonicalJson({ list: [a, b] })).not.toBe(canonicalJson({ list: [b, a] }));
      }),
      { numRuns: 300 },
    );
  });

  it('parses back to the same value, is idempotent and has no whitespace outside strings', () => {
    fc.assert(
      fc.property(jsonOrFrame, (value) => {
        const text = canonicalJson(value);
        const parsed: unknown = JSON.parse(text);
        expect(parsed).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(parsed)).toBe(text);
        expect(text.replace(/"(?:[^"\\]|\\.)*"/gu, '""')).not.toMatch(/\s/u);
      }),
      { numRuns: 300 },
    );
  });

  it('writes each object\'s smallest key (by UTF-16 code units) first, at any depth', () => {
    fc.assert(
      fc.property(jsonOrFrame, (value) => {
        for (const path of ['', ...allPaths(value)]) {
          const node = valueAt(value, path);
          if (node === null || typeof node !== 'object' || Array.isArray(node)) continue;
          const keys = Object.keys(node);
          if (keys.length === 0) {
            expect(canonicalJson(node)).toBe('{}');
            continue;
          }
          const smallest = keys.reduce((a, b) => (b < a ? b : a));
          const rest = Object.fromEntries(Object.entries(node).filter(([key]) => key !== smallest));
          const tail = keys.length === 1 ? '}' : `,${canonicalJson(rest).slice(1)}`;
          expect(canonicalJson(node)).toBe(`{${JSON.stringify(smallest)}:${canonicalJson((node as Record<string, unknown>)[smallest])}${tail}`);
        }
      }),
      { numRuns: 200 },
    );
  });
});