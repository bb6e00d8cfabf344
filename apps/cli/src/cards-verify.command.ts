/**
 * `trustmesh cards verify`: verifies the signatures of AI Cards (v1), AI Catalogs (root signature) and A2A
 * AgentCards (CARDS.md §3), one document per FILE (`-` reads one from stdin).
 *
 * Keys come from `--resolve MAP` (a JSON object of URL -> document: DID documents, JWK Sets) or, without it,
 * from the network through `networkResolver` (SafeFetcher). The kind of document is told from its shape: a v1 card has
 * `specVersion` and `services`, a catalog has `entries`, an A2A card has `signatures` and `skills`. An A2A
 * card's keys are looked up under the did:web of its service URL's host (never from `jku`).
 * Exit 0 when every file verified, 1 when any did not, 2 on a usage error or an unreadable file.
 */
import { parseArgs } from 'node:util';

import { jsonDocumentResolver, SafeFetcher } from '@trustmesh/cards-fetcher';
import {
  mapResolver,
  verifyA2aCardSignatures,
  verifyAiCardSignature,
  verifyCatalogSignature,
  type KeyDocumentResolver,
  type SignatureResult,
} from '@trustmesh/cards-signatures';
import { parseStrictJson } from '@trustmesh/shared-strict-json';

import { readBoundedInput } from './bounded-input';
import { EXIT, UsageError, type CommandIo } from './command-io';

const MAX_DOCUMENT_BYTES = 4 * 1024 * 1024;
const MAX_KEY_DOCUMENT_BYTES = 256 * 1024;
const KEY_FETCH_TIMEOUT_MS = 10_000;
const KEY_DOCUMENT_TTL_MS = 10 * 60_000;

interface VerifyLine {
  file: string;
  verified: boolean;
  code?: string;
  signer?: string;
  kid?: string;
  alg?: string;
  /** Human output only. */
  pointer?: string;
  message?: string;
  kind?: string;
  unreadable?: boolean;
}

export async function runCardsVerify(args: readonly string[], io: CommandIo): Promise<number> {
  const options = parseVerifyArgs(args);
  const resolver = options.resolve === undefined ? networkResolver : await loadResolveMap(options.resolve, io);
  const lines: VerifyLine[] = [];
  for (const file of options.files) {
    const input = await readBoundedInput(file, MAX_DOCUMENT_BYTES, io);
    if ('unreadable' in input) {
      lines.push({ file, verified: false, code: 'FILE_UNREADABLE', message: input.unreadable, unreadable: true });
      continue;
    }
    if (input.tooLarge) {
      lines.push({ file, verified: false, code: 'DOCUMENT_TOO_LARGE', message: `The file is over ${MAX_DOCUMENT_BYTES} bytes.` });
      continue;
    }
    lines.push({ file, ...(await verifyDocument(input.bytes, resolver)) });
  }
  if (options.json) {
    io.stdout(`${JSON.stringify(lines.map(({ file, verified, code, signer, kid, alg }) => ({ file, verified, code, signer, kid, alg })))}\n`);
  } else {
    for (const line of lines) io.stdout(`${humanLine(line)}\n`);
  }
  if (lines.some((line) => line.unreadable)) return EXIT.usage;
  return lines.every((line) => line.verified) ? EXIT.ok : EXIT.failed;
}

interface VerifyOptions {
  resolve?: string;
  json: boolean;
  files: string[];
}

function parseVerifyArgs(args: readonly string[]): VerifyOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: { resolve: { type: 'string' }, json: { type: 'boolean', default: false } } });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError('give at least one FILE (or - for stdin)');
  if (positionals.filter((file) => file === '-').length > 1) throw new UsageError('stdin (-) can be read only once');
  if (values.resolve === '-' && positionals.includes('-')) throw new UsageError('stdin (-) can be read only once');
  return { ...(values.resolve !== undefined ? { resolve: values.resolve } : {}), json: values.json === true, files: positionals };
}

async function loadResolveMap(path: string, io: CommandIo): Promise<KeyDocumentResolver> {
  const input = await readBoundedInput(path, MAX_DOCUMENT_BYTES, io);
  if ('unreadable' in input) throw new UsageError(`--resolve: ${input.unreadable}`);
  if (input.tooLarge) throw new UsageError(`--resolve: the map is over ${MAX_DOCUMENT_BYTES} bytes`);
  const parsed = parseStrictJson(Buffer.from(input.bytes).toString('utf8'));
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
    throw new UsageError('--resolve: the map must be a JSON object of URL -> document (DID document or JWK Set)');
  }
  return mapResolver(parsed.value as Record<string, unknown>);
}

type Verdict = Omit<VerifyLine, 'file'>;

function fromResult(result: SignatureResult, kind: string): Verdict {
  return result.verified
    ? { verified: true, signer: result.signer, kid: result.kid, alg: result.alg, kind }
    : { verified: false, code: result.code, pointer: result.pointer, message: result.message, kind, ...(result.signer ? { signer: result.signer } : {}), ...(result.kid ? { kid: result.kid } : {}) };
}

async function verifyDocument(bytes: Uint8Array, resolver: KeyDocumentResolver): Promise<Verdict> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { verified: false, code: 'DOCUMENT_NOT_JSON', pointer: '', message: 'The file is not UTF-8 text.' };
  }
  // Signed documents must be I-JSON: what JSON.parse would silently change cannot be verified honestly.
  const parsed = parseStrictJson(text, { loneSurrogates: 'refuse', unsafeIntegers: 'refuse' });
  if (!parsed.ok) return { verified: false, code: parsed.issue.code, pointer: parsed.issue.pointer, message: parsed.issue.message };
  const document = parsed.value;
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    return { verified: false, code: 'DOCUMENT_KIND_UNKNOWN', pointer: '', message: 'The file is not a JSON object.' };
  }
  const has = (name: string) => Object.prototype.hasOwnProperty.call(document, name);
  if (has('specVersion') && has('services')) return fromResult(await verifyAiCardSignature(document, { resolver }), 'AI Card v1');
  if (has('entries')) return fromResult(await verifyCatalogSignature(document, { resolver }), 'AI Catalog');
  if (has('signatures') && has('skills')) return verifyA2a(document as Record<string, unknown>, resolver);
  return { verified: false, code: 'DOCUMENT_KIND_UNKNOWN', pointer: '', message: 'Not a v1 AI Card (specVersion + services), an AI Catalog (entries) or a signed A2A AgentCard (signatures + skills).' };
}

/** The host of an A2A card's service URL (v0.3 `url`, v1.0 first `supportedInterfaces[].url`). */
function a2aServiceHost(card: Record<string, unknown>): string | undefined {
  const interfaces = card['supportedInterfaces'];
  const first = Array.isArray(interfaces) && interfaces[0] !== null && typeof interfaces[0] === 'object' ? (interfaces[0] as Record<string, unknown>)['url'] : undefined;
  const url = typeof card['url'] === 'string' ? card['url'] : first;
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && parsed.port === '' ? parsed.hostname : undefined;
  } catch {
    return undefined;
  }
}

async function verifyA2a(card: Record<string, unknown>, resolver: KeyDocumentResolver): Promise<Verdict> {
  const host = a2aServiceHost(card);
  if (host === undefined) return { verified: false, code: 'SIGNER_UNKNOWN', pointer: '/url', message: 'The card has no https service URL whose domain could name the signer (did:web of that domain).', kind: 'A2A AgentCard' };
  const { results } = await verifyA2aCardSignatures(card, { resolver, keySource: { kind: 'did-web', signer: `did:web:${host}` } });
  const [first] = results;
  const verified = results.find((result) => result.verified) ?? first;
  if (verified === undefined) return { verified: false, code: 'SIGNATURE_ABSENT', pointer: '/signatures', message: 'The card has no signatures to verify.', kind: 'A2A AgentCard' };
  return fromResult(verified, 'A2A AgentCard');
}

function humanLine(line: VerifyLine): string {
  const name = line.file === '-' ? '<stdin>' : line.file;
  if (line.verified) return `verified  ${name}: ${line.kind ?? 'document'} signed by ${line.signer} (${line.kid}, ${line.alg})`;
  if (line.unreadable) return `error     ${name}: ${line.message ?? 'unreadable'}`;
  return `failed    ${name}: ${line.code} at ${line.pointer === undefined || line.pointer === '' ? '/' : line.pointer}: ${line.message ?? ''}`;
}

/**
 * The resolver used without --resolve: key documents through SafeFetcher (https only, every resolved address
 * classified and the socket pinned to it, redirects re-checked, size and time capped), read as strict JSON. One run
 * verifies many files, often of one signer: its did.json is fetched once per run (TTL longer than any run).
 */
export const networkResolver: KeyDocumentResolver = jsonDocumentResolver(new SafeFetcher(), {
  maxBytes: MAX_KEY_DOCUMENT_BYTES,
  timeoutMs: KEY_FETCH_TIMEOUT_MS,
  cache: { ttlMs: KEY_DOCUMENT_TTL_MS, maxEntries: 1024 },
});
