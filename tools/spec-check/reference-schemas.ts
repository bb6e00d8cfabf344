/**
 * Checks the project's own definitions of Wire 1.1, Wire 1.0, Control 1.0 and the session descriptor
 * against the reference schemas that come with the specification, when they are at hand: the folder is an
 * argument (CI passes the specification's copy beside the checkout), and nothing in the repository needs it.
 * The reference files are read, never copied into the repository.
 *
 * Both sides are normalised to what they mean (annotations dropped, JSON-value references named, nested
 * unions flattened, unions and enumerations sorted) and compared; every difference is printed. The
 * differences the project intends are listed below with their reason, and only those may remain.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/spec-check/reference-schemas.ts <folder of the specification's schemas>
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PAIRS = [
  ['wire-1.1.schema.json', 'roll-relay-protocol-v1.1.schema.json'],
  ['wire-1.0.schema.json', 'roll-relay-protocol-v1.schema.json'],
  ['control-1.0.schema.json', 'roll-relay-control-v1.schema.json'],
  ['browser-session-1.0.schema.json', 'roll-relay-browser-session-v1.schema.json'],
] as const;

/** Differences on purpose, by document and path (a path covers everything below it). */
const INTENDED: Record<string, Record<string, string>> = {
  'control-1.0.schema.json': {
    '/anyOf/1/properties/relayProtocolVersion':
      'BEHAVIOUR.md §2 and §13: 1.2 sessions send relayProtocolVersion "1.2" in session.ready, so "1.1" and "1.2" are both valid',
    '/x-roll-wss-directions': 'a naming table for the direction keys; the library names directions itself',
  },
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const ANNOTATIONS = new Set(['readOnly', '$id', '$comment', 'title', 'description', '$schema', '$defs']);

function normalise(node: Json, defs: Record<string, Json>, seen: readonly string[] = []): Json {
  if (Array.isArray(node)) return node.map((child) => normalise(child, defs, seen));
  if (node === null || typeof node !== 'object') return node;
  const ref = node['$ref'];
  if (typeof ref === 'string') {
    const name = ref.replace('#/$defs/', '');
    if (/^sharedSchema\d+$/.test(name)) return 'JSON-VALUE';
    if (seen.includes(name)) return `REF:${name}`;
    return normalise(defs[name] ?? null, defs, [...seen, name]);
  }
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    if (ANNOTATIONS.has(key)) continue;
    out[key] = normalise(value, defs, seen);
  }
  if (Array.isArray(out['anyOf'])) {
    const flat = (out['anyOf'] as Json[]).flatMap((member) =>
      member && typeof member === 'object' && !Array.isArray(member) && Object.keys(member).length === 1 && Array.isArray(member['anyOf'])
        ? (member['anyOf'] as Json[])
        : [member],
    );
    out['anyOf'] = sortByText(flat);
  }
  for (const key of ['enum', 'required', 'x-roll-request-methods', 'x-roll-mutation-methods', 'x-roll-message-types']) {
    if (Array.isArray(out[key])) out[key] = sortByText(out[key] as Json[]);
  }
  return out;
}

const sortByText = (values: Json[]): Json[] => [...values].sort((a, b) => stable(a).localeCompare(stable(b)));
function stable(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${stable(value[key] ?? null)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function differences(ours: Json, theirs: Json, path = ''): string[] {
  if (stable(ours) === stable(theirs)) return [];
  const bothObjects = (value: Json) => value !== null && typeof value === 'object' && !Array.isArray(value);
  if (bothObjects(ours) && bothObjects(theirs)) {
    const a = ours as Record<string, Json>;
    const b = theirs as Record<string, Json>;
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((key) =>
      !(key in a) || !(key in b) ? [`${path}/${key}`] : differences(a[key] ?? null, b[key] ?? null, `${path}/${key}`),
    );
  }
  if (Array.isArray(ours) && Array.isArray(theirs) && ours.length === theirs.length) {
    return ours.flatMap((item, index) => differences(item, theirs[index] ?? null, `${path}/${index}`));
  }
  return [path];
}

function main(): number {
  const referenceDir = process.argv[2];
  if (!referenceDir) {
    console.error('usage: reference-schemas.ts <spec/relay folder>');
    return 2;
  }
  const ourDir = join(__dirname, '..', '..', 'libs', 'relay', 'protocol', 'schemas');
  let failures = 0;
  for (const [ours, theirs] of PAIRS) {
    const load = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { $defs?: Record<string, Json> } & Record<string, Json>;
    const a = load(join(ourDir, ours));
    const b = load(join(referenceDir, theirs));
    const found = differences(normalise(a, a.$defs ?? {}), normalise(b, b.$defs ?? {}));
    const intended = INTENDED[ours] ?? {};
    const reason = (path: string) => Object.entries(intended).find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`))?.[1];
    const unexpected = found.filter((path) => reason(path) === undefined);
    for (const path of found.filter((p) => reason(p) !== undefined)) console.log(`  ${ours} ${path}: intended (${reason(path)})`);
    for (const path of unexpected) console.log(`  ${ours} ${path}: DIFFERS from ${theirs}`);
    console.log(`${ours} vs ${theirs}: ${unexpected.length === 0 ? 'same constraints' : `${unexpected.length} unexpected difference(s)`}`);
    failures += unexpected.length;
  }
  return failures === 0 ? 0 : 1;
}

process.exitCode = main();
