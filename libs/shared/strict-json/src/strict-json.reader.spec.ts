import fc from 'fast-check';

import { DEFAULT_MAX_JSON_DEPTH, parseStrictJson, parseStrictJsonOrThrow, StrictJsonError, type StrictJsonResult } from './index';

const issueOf = (result: StrictJsonResult) => (result.ok ? undefined : result.issue);
/** Writes a key with every code unit as a `\uXXXX` escape: the same key, spelled differently. */
const escapeAll = (key: string) => `"${Array.from({ length: key.length }, (_, i) => `\\u${key.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;

describe('parseStrictJson on valid JSON', () => {
  it('returns what JSON.parse returns, for any JSON value without duplicate keys', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const text = JSON.stringify(value);
        expect(parseStrictJson(text)).toEqual({ ok: true, value: JSON.parse(text) as unknown });
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on any Unicode text, escapes and whitespace included', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6, stringUnit: 'binary' }), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(parseStrictJson(text, { loneSurrogates: 'allow' })).toEqual({ ok: true, value: JSON.parse(text) as unknown });
      }),
      { numRuns: 300 },
    );
  });

  it('reports a syntax error exactly when JSON.parse throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json().map((text) => text.slice(0, -1)), fc.json().map((text) => `${text}}`)), (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        const result = parseStrictJson(text);
        if (!parses) expect(issueOf(result)).toEqual({ code: 'JSON_SYNTAX', pointer: '', message: expect.any(String) });
        else expect(issueOf(result)?.code).not.toBe('JSON_SYNTAX');
      }),
      { numRuns: 500 },
    );
  });

  it('keeps `__proto__` an ordinary key, as JSON.parse does', () => {
    const result = parseStrictJson('{"__proto__":{"polluted":true},"a":1}');
    expect(result.ok && Object.keys(result.value as object)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('duplicate keys', () => {
  it('refuses a repeated key with the pointer of its object, and names the key', () => {
    const issue = issueOf(parseStrictJson('{"type":"runtime.event","event":{"a":1,"b":[{"x":1,"x":2}]}}'));
    expect(issue).toEqual({ code: 'JSON_DUPLICATE_KEY', pointer: '/event/b/0', message: expect.stringContaining('"x"') });
  });

  it('compares keys after unescaping', () => {
    expect(issueOf(parseStrictJson('{"a":1,"\\u0061":2}'))?.code).toBe('JSON_DUPLICATE_KEY');
    expect(issueOf(parseStrictJson('{"\\u0061":1,"a":2}'))?.code).toBe('JSON_DUPLICATE_KEY');
    expect(issueOf(parseStrictJson('{"a\\/b":1,"a/b":2}'))?.pointer).toBe('');
    expect(parseStrictJson('{"a":1,"\\u0062":2,"A":3}').ok).toBe(true);
  });

  it('finds the duplicate of any key of any object, however it is escaped, at any size', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 6 }), { minLength: 1, maxLength: 40 }),
        fc.nat(),
        fc.boolean(),
        (keys, pick, escaped) => {
          const repeated = keys[pick % keys.length] ?? '';
          const members = keys.map((key, i) => `${JSON.stringify(key)}:${i}`);
          members.push(`${escaped ? escapeAll(repeated) : JSON.stringify(repeated)}:"again"`);
          const text = `{"outer":[0,{"inner":{${members.join(',')}}}]}`;
          expect(issueOf(parseStrictJson(text))).toMatchObject({ code: 'JSON_DUPLICATE_KEY', pointer: '/outer/1/inner' });
          expect(parseStrictJson(text, { duplicateKeys: 'keep-last' }).ok).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds it in plain text too (no escapes, few keys: the quick pass), wherever the object sits', () => {
    const key = fc.string({ unit: fc.constantFrom(...'abcxyz_-.:{}[],'.split('')), maxLength: 4 });
    fc.assert(
      fc.property(fc.uniqueArray(key, { minLength: 1, maxLength: 30 }), fc.nat(), fc.nat({ max: 5 }), (keys, pick, depth) => {
        const repeated = keys[pick % keys.length] ?? '';
        const members = [...keys.map((k, i) => `${JSON.stringify(k)}:[${i},{"${k}":1}]`), `${JSON.stringify(repeated)}:null`];
        const text = `${'[0,'.repeat(depth)}{${members.join(',')}}${']'.repeat(depth)}`;
        expect(issueOf(parseStrictJson(text))).toMatchObject({ code: 'JSON_DUPLICATE_KEY', pointer: '/1'.repeat(depth) });
        expect(parseStrictJson(text.replace(`${JSON.stringify(repeated)}:null`, '"unique key":null')).ok).toBe(!keys.includes('unique key'));
      }),
      { numRuns: 300 },
    );
  });

  it('finds it whatever whitespace stands between a key, its colon and its value', () => {
    const spacings = ['', ' ', '\n', '\t', '\r\n  '];
    fc.assert(
      fc.property(fc.constantFrom(...spacings), fc.constantFrom(...spacings), fc.constantFrom('1', '"v"', '{"a":1}', '[{}]', 'null'), (before, after, value) => {
        const member = (key: string) => `"${key}"${before}:${after}${value}`;
        expect(issueOf(parseStrictJson(`{${member('a')},${member('b')},${member('a')}}`))?.code).toBe('JSON_DUPLICATE_KEY');
        expect(issueOf(parseStrictJson(`{"o":{${member('a')},${member('a')}}}`))?.pointer).toBe('/o');
        expect(parseStrictJson(`{${member('a')},${member('b')},"c":{${member('a')}}}`).ok).toBe(true);
      }),
    );
  });

  it('allows the same key in different objects, siblings or nested', () => {
    expect(parseStrictJson('{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"c":{"a":1}}').ok).toBe(true);
  });

  it('escapes pointer tokens (RFC 6901)', () => {
    expect(issueOf(parseStrictJson('{"a/b~c":{"k":1,"k":2}}'))?.pointer).toBe('/a~1b~0c');
  });
});

describe('nesting depth', () => {
  it(`allows ${DEFAULT_MAX_JSON_DEPTH} levels by default and refuses one more, pointing at the first container too deep`, () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(parseStrictJson(nested(DEFAULT_MAX_JSON_DEPTH)).ok).toBe(true);
    const issue = issueOf(parseStrictJson(nested(DEFAULT_MAX_JSON_DEPTH + 1)));
    expect(issue?.code).toBe('JSON_TOO_DEEP');
    expect(issue?.pointer).toBe('/0'.repeat(DEFAULT_MAX_JSON_DEPTH));
    expect(issueOf(parseStrictJson('{"a":{"b":[1,{"c":{}}]}}', { maxDepth: 3 }))).toMatchObject({ code: 'JSON_TOO_DEEP', pointer: '/a/b/1' });
  });

  it('reads 100,000 levels without overflowing the stack', () => {
    const deep = `${'{"a":['.repeat(50_000)}${']}'.repeat(50_000)}`;
    expect(issueOf(parseStrictJson(deep))?.code).toBe('JSON_TOO_DEEP');
    expect(parseStrictJson(deep, { maxDepth: 100_000 }).ok).toBe(true);
  });

  it('counts strings holding brackets as strings', () => {
    expect(parseStrictJson(`{"a":"${'[{'.repeat(500)}\\"${'['.repeat(500)}"}`).ok).toBe(true);
  });
});

describe('lone surrogates and unsafe integers (I-JSON)', () => {
  it('are accepted by default, as JSON.parse accepts them', () => {
    expect(parseStrictJson('{"a":"\\ud800","b":9007199254740993}').ok).toBe(true);
  });

  it('refuses unpaired surrogates, raw or escaped, in keys and values', () => {
    const refuse = { loneSurrogates: 'refuse' } as const;
    expect(issueOf(parseStrictJson('{"a":["ok","\\ud800"]}', refuse))).toMatchObject({ code: 'JSON_LONE_SURROGATE', pointer: '/a/1' });
    expect(issueOf(parseStrictJson('{"a":"x\udc00"}', refuse))).toMatchObject({ code: 'JSON_LONE_SURROGATE', pointer: '/a' });
    expect(issueOf(parseStrictJson('{"\\udbff":1}', refuse))).toMatchObject({ code: 'JSON_LONE_SURROGATE', pointer: '/\udbff' });
    expect(parseStrictJson('{"😀":"\\ud83d\\ude00😀"}', refuse).ok).toBe(true);
  });

  it('refuses integer literals beyond ±(2^53 − 1) and keeps fractions and exponents', () => {
    const refuse = { unsafeIntegers: 'refuse' } as const;
    expect(parseStrictJson('[9007199254740991,-9007199254740991,1.5e300,12345678901234567890.5]', refuse).ok).toBe(true);
    expect(issueOf(parseStrictJson('{"n":[1,9007199254740992]}', refuse))).toMatchObject({ code: 'JSON_UNSAFE_INTEGER', pointer: '/n/1' });
    expect(issueOf(parseStrictJson('-9007199254740993', refuse))).toMatchObject({ code: 'JSON_UNSAFE_INTEGER', pointer: '' });
  });
});

it('parseStrictJsonOrThrow throws a StrictJsonError carrying the issue', () => {
  expect(parseStrictJsonOrThrow('{"a":1}')).toEqual({ a: 1 });
  expect(() => parseStrictJsonOrThrow('{"a":1,"a":2}')).toThrow(StrictJsonError);
  try {
    parseStrictJsonOrThrow('[');
  } catch (error) {
    expect((error as StrictJsonError).issue.code).toBe('JSON_SYNTAX');
  }
});
