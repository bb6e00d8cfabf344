/**
 * `trustmesh cards <publish|get|status|search|crawl>`: a running card registry's REST API from the command
 * line (apps/card-registry/README.md).
 *
 *   cards publish FILE|- [--kind K] [--identifier ID] [--dry-run]   publisher credential
 *   cards get IDENTIFIER [--revision R]                            anyone (renames followed)
 *   cards status IDENTIFIER STATUS [--revision R] [--message M]    publisher credential
 *   cards search [QUERY] [--kind K]... [--tag T]... [--protocol P]... [--publisher-domain D]...
 *                [--status S]... [--verified true|false] [--limit N] [--cursor C]          anyone
 *   cards crawl SOURCE_ID                                          operator credential
 *
 * The registry is `--registry URL`, else TRUSTMESH_REGISTRY_URL, else http://127.0.0.1:8490 (its default).
 * The credential comes from TRUSTMESH_REGISTRY_TOKEN or `--token-file FILE`, never from an argument (it
 * would show in process listings and shell history). `--json` prints the registry's answer as JSON (a
 * refusal's problem document included); otherwise a line per result, and a refusal's code, pointer and
 * message per issue on stderr. `get --revision` prints the revision's exact bytes.
 *
 * Exit status (as `cards validate`): 0 done, 1 refused, not found or unreachable, 2 a usage error or an
 * unreadable input.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { readBoundedInput } from './bounded-input';
import { EXIT, UsageError, type CommandIo } from './command-io';
import { refusalOf, RegistryRestClient, RegistryUnreachable, type RegistryAnswer } from './registry-rest.client';

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_REGISTRY_URL = 'http://127.0.0.1:8490';
export const REGISTRY_COMMANDS = ['publish', 'get', 'status', 'search', 'crawl'] as const;
export type RegistryCommand = (typeof REGISTRY_COMMANDS)[number];

/** A little above the registry's largest card (640 KiB): the registry itself answers 413 beyond its bound. */
const MAX_DOCUMENT_BYTES = 1024 * 1024;
const MAX_TOKEN_FILE_BYTES = 4096;
const MAX_FLAG_LENGTH = 2048;
const MAX_REDIRECTS = 5;

export const isRegistryCommand = (command: string | undefined): command is RegistryCommand => (REGISTRY_COMMANDS as readonly string[]).includes(command ?? '');

const MULTIPLE = ['kind', 'tag', 'protocol', 'publisher-domain', 'status'] as const;
const OPTIONS = {
  registry: { type: 'string' },
  'token-file': { type: 'string' },
  json: { type: 'boolean', default: false },
  kind: { type: 'string', multiple: true },
  identifier: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  revision: { type: 'string' },
  message: { type: 'string' },
  tag: { type: 'string', multiple: true },
  protocol: { type: 'string', multiple: true },
  'publisher-domain': { type: 'string', multiple: true },
  status: { type: 'string', multiple: true },
  verified: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
} as const;

/** Which flags each command takes besides --registry, --token-file and --json. */
const FLAGS: Record<RegistryCommand, readonly string[]> = {
  publish: ['kind', 'identifier', 'dry-run'],
  get: ['revision'],
  status: ['revision', 'message'],
  search: ['kind', 'tag', 'protocol', 'publisher-domain', 'status', 'verified', 'limit', 'cursor'],
  crawl: [],
};
const POSITIONALS: Record<RegistryCommand, [number, number, string]> = {
  publish: [1, 1, 'FILE|-'],
  get: [1, 1, 'IDENTIFIER'],
  status: [2, 2, 'IDENTIFIER STATUS'],
  search: [0, 1, '[QUERY]'],
  crawl: [1, 1, 'SOURCE_ID'],
};

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true } ? string[] : (typeof OPTIONS)[K] extends { type: 'boolean' } ? boolean : string };

interface Invocation {
  label: string;
  values: Values;
  positionals: string[];
  client: RegistryRestClient;
  json: boolean;
  io: CommandIo;
}

export async function runCardsRegistry(command: RegistryCommand, args: readonly string[], io: CommandIo, env: Env = process.env): Promise<number> {
  const label = `cards ${command}`;
  const { values, positionals } = parse(label, command, args);
  const url = values.registry ?? env['TRUSTMESH_REGISTRY_URL'] ?? DEFAULT_REGISTRY_URL;
  if (!/^https?:\/\/[^\s]+$/i.test(url)) throw new UsageError(`${label}: --registry (or TRUSTMESH_REGISTRY_URL) must be an http(s) URL`);
  const invocation: Invocation = { label, values, positionals, client: new RegistryRestClient(url), json: values.json === true, io };
  try {
    switch (command) {
      case 'publish':
        return await publish(invocation, await token(label, values, env, 'a publisher credential (tmrp_…)'));
      case 'get':
        return await get(invocation);
      case 'status':
        return await status(invocation, await token(label, values, env, 'a publisher credential (tmrp_…)'));
      case 'search':
        return await search(invocation);
      case 'crawl':
        return await crawl(invocation, await token(label, values, env, 'an operator credential'));
    }
  } catch (error) {
    if (!(error instanceof RegistryUnreachable)) throw error;
    io.stderr(`trustmesh: ${label}: ${error.message}\n`);
    return EXIT.failed;
  }
}

function parse(label: string, command: RegistryCommand, args: readonly string[]): { values: Values; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(`${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const values = parsed.values as Values;
  for (const [flag, value] of Object.entries(values)) {
    // parseArgs fills the boolean defaults in: only a flag actually given counts.
    if (['registry', 'token-file', 'json'].includes(flag) || value === false) continue;
    if (!FLAGS[command].includes(flag)) throw new UsageError(`${label}: --${flag} does not apply here`);
    const list = Array.isArray(value) ? value : [value];
    if (!(MULTIPLE as readonly string[]).includes(flag) && Array.isArray(value)) throw new UsageError(`${label}: --${flag} may be given once`);
    if (list.some((item) => typeof item === 'string' && item.length > MAX_FLAG_LENGTH)) throw new UsageError(`${label}: --${flag} is longer than ${MAX_FLAG_LENGTH} characters`);
  }
  if (command === 'publish' && (values.kind?.length ?? 0) > 1) throw new UsageError(`${label}: --kind may be given once`);
  const [min, max, shape] = POSITIONALS[command];
  if (parsed.positionals.length < min || parsed.positionals.length > max) throw new UsageError(`${label}: expects ${shape}`);
  return { values, positionals: parsed.positionals };
}

/** The credential from --token-file, else TRUSTMESH_REGISTRY_TOKEN; a usage error when there is none. */
async function token(label: string, values: Values, env: Env, what: string): Promise<string> {
  let text: string | undefined;
  const file = values['token-file'];
  if (file !== undefined) {
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch {
      throw new UsageError(`${label}: --token-file: cannot read ${file}`);
    }
    if (bytes.length > MAX_TOKEN_FILE_BYTES) throw new UsageError(`${label}: --token-file: the file is over ${MAX_TOKEN_FILE_BYTES} bytes`);
    text = bytes.toString('utf8').trim();
  } else text = env['TRUSTMESH_REGISTRY_TOKEN']?.trim();
  if (!text) throw new UsageError(`${label}: needs ${what}: set TRUSTMESH_REGISTRY_TOKEN or pass --token-file FILE`);
  if (!/^[\x21-\x7e]{1,512}$/.test(text)) throw new UsageError(`${label}: the credential must be 1-512 printable ASCII characters without spaces`);
  return text;
}

/** Prints a refusal (JSON or lines on stderr) and returns exit 1. */
function refused(invocation: Invocation, answer: RegistryAnswer): number {
  const { label, io } = invocation;
  if (invocation.json && answer.json !== undefined) {
    io.stdout(`${JSON.stringify(answer.json, null, 2)}\n`);
    return EXIT.failed;
  }
  const { code, detail, issues } = refusalOf(answer);
  const retry = answer.headers['retry-after'] ? ` (retry after ${String(answer.headers['retry-after'])} s)` : '';
  io.stderr(`trustmesh: ${label}: refused (HTTP ${answer.status} ${code}): ${detail}${retry}\n${issues.map((issue) => `  ${issue.severity ?? 'error'} ${issue.code} at ${issue.path === '' ? '/' : issue.path}: ${issue.message}\n`).join('')}`);
  return EXIT.failed;
}

const ok = (answer: RegistryAnswer) => answer.status >= 200 && answer.status < 300;
const printJson = (io: CommandIo, value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);
const cardPath = (identifier: string, rest = '') => `v1/cards/${encodeURIComponent(identifier)}${rest}`;

async function publish(invocation: Invocation, credential: string): Promise<number> {
  const { values, positionals, io, label } = invocation;
  const file = positionals[0] ?? '-';
  const input = await readBoundedInput(file, MAX_DOCUMENT_BYTES, io);
  if ('unreadable' in input) {
    io.stderr(`trustmesh: ${label}: ${input.unreadable}\n`);
    return EXIT.usage;
  }
  if (input.tooLarge) {
    io.stderr(`trustmesh: ${label}: the document is over ${MAX_DOCUMENT_BYTES} bytes\n`);
    return EXIT.usage;
  }
  const query = new URLSearchParams();
  if (values['dry-run']) query.set('dryRun', 'true');
  if (values.kind?.[0] !== undefined) query.set('kind', values.kind[0]);
  if (values.identifier !== undefined) query.set('identifier', values.identifier);
  const answer = await invocation.client.call('POST', `v1/cards${query.size > 0 ? `?${query}` : ''}`, { token: credential, body: input.bytes });
  if (!ok(answer)) return refused(invocation, answer);
  const body = answer.json as { identifier: string; revision: string; digest: string; status: string; created: boolean; dryRun: boolean; warnings?: { path: string; code: string; message: string }[] };
  if (invocation.json) printJson(io, body);
  else {
    const outcome = body.dryRun ? 'valid (dry run, nothing stored)' : body.created ? 'published' : 'unchanged (these bytes were already published)';
    io.stdout(`${outcome}: ${body.identifier} revision ${body.revision} ${body.digest} [${body.status}]\n`);
    for (const warning of body.warnings ?? []) io.stdout(`  warning ${warning.code} at ${warning.path === '' ? '/' : warning.path}: ${warning.message}\n`);
  }
  return EXIT.ok;
}

async function get(invocation: Invocation): Promise<number> {
  const { values, io } = invocation;
  let identifier = invocation.positionals[0] ?? '';
  const asked = identifier;
  let answer = await invocation.client.call('GET', cardPath(identifier));
  for (let hop = 0; answer.status === 308 && hop < MAX_REDIRECTS; hop += 1) {
    const renamedTo = (answer.json as { renamedTo?: unknown } | undefined)?.renamedTo;
    if (typeof renamedTo !== 'string') break;
    identifier = renamedTo;
    answer = await invocation.client.call('GET', cardPath(identifier));
  }
  if (values.revision !== undefined && (answer.status === 200 || answer.status === 404 || answer.status === 410)) {
    // A named revision is served by the identifier the card answers to now, even when no latest is visible.
    answer = await invocation.client.call('GET', cardPath(identifier, `/revisions/${encodeURIComponent(values.revision)}`));
    if (!ok(answer)) return refused(invocation, answer);
    io.stdout(answer.bytes.toString('utf8'));
    if (!answer.bytes.toString('utf8').endsWith('\n')) io.stdout('\n');
    return EXIT.ok;
  }
  if (!ok(answer)) return refused(invocation, answer);
  const body = answer.json as { identifier: string; kind: string; latest: { revision: string; digest: string; status: string; summary?: { name?: string; description?: string } } };
  if (invocation.json) printJson(io, { ...body, ...(identifier !== asked ? { renamedFrom: asked } : {}) });
  else {
    if (identifier !== asked) io.stdout(`${asked} was renamed to ${identifier}\n`);
    io.stdout(`${body.identifier} (${body.kind}) latest revision ${body.latest.revision} [${body.latest.status}] ${body.latest.digest}\n`);
    if (body.latest.summary?.name) io.stdout(`  ${body.latest.summary.name}${body.latest.summary.description ? `: ${body.latest.summary.description}` : ''}\n`);
  }
  return EXIT.ok;
}

async function status(invocation: Invocation, credential: string): Promise<number> {
  const { values, positionals, io } = invocation;
  const [identifier = '', newStatus = ''] = positionals;
  const body = { status: newStatus, ...(values.revision !== undefined ? { revision: values.revision } : {}), ...(values.message !== undefined ? { message: values.message } : {}) };
  const answer = await invocation.client.call('POST', cardPath(identifier, '/status'), { token: credential, body: Buffer.from(JSON.stringify(body), 'utf8') });
  if (!ok(answer)) return refused(invocation, answer);
  const result = answer.json as { identifier: string; revision: string | null; status: string; changed: boolean };
  if (invocation.json) printJson(io, result);
  else io.stdout(`${result.changed ? 'changed' : 'unchanged'}: ${result.identifier} ${result.revision === null ? 'every revision' : `revision ${result.revision}`} is ${result.status}\n`);
  return EXIT.ok;
}

async function search(invocation: Invocation): Promise<number> {
  const { values, positionals, io } = invocation;
  const query = new URLSearchParams();
  if (positionals[0] !== undefined) query.set('q', positionals[0]);
  const lists: Array<[keyof Values, string]> = [
    ['kind', 'kind'],
    ['tag', 'tag'],
    ['protocol', 'protocol'],
    ['publisher-domain', 'publisherDomain'],
    ['status', 'status'],
  ];
  for (const [flag, name] of lists) for (const value of (values[flag] as string[] | undefined) ?? []) query.append(name, value);
  for (const [flag, name] of [['verified', 'verified'], ['limit', 'limit'], ['cursor', 'cursor']] as const) if (values[flag] !== undefined) query.set(name, values[flag]);
  const answer = await invocation.client.call('GET', `v1/search${query.size > 0 ? `?${query}` : ''}`);
  if (!ok(answer)) return refused(invocation, answer);
  const body = answer.json as { items?: Array<{ identifier: string; revision?: string | null; name?: string; status?: string }>; nextCursor?: string | null };
  if (invocation.json) printJson(io, body);
  else {
    for (const hit of body.items ?? []) io.stdout(`${hit.identifier}  ${hit.revision ?? ''}  ${hit.status ?? ''}  ${hit.name ?? ''}\n`);
    io.stdout(`${(body.items ?? []).length} hit(s)${body.nextCursor ? `; more with --cursor ${body.nextCursor}` : ''}\n`);
  }
  return EXIT.ok;
}

async function crawl(invocation: Invocation, credential: string): Promise<number> {
  const sourceId = invocation.positionals[0] ?? '';
  const answer = await invocation.client.call('POST', `v1/operator/sources/${encodeURIComponent(sourceId)}/crawl`, { token: credential, body: Buffer.from('{}') });
  if (!ok(answer)) return refused(invocation, answer);
  if (invocation.json) printJson(invocation.io, answer.json ?? {});
  else invocation.io.stdout(`crawl of ${sourceId} ${answer.status === 202 ? 'started' : 'done'}${answer.json !== undefined ? `: ${JSON.stringify(answer.json)}` : ''}\n`);
  return EXIT.ok;
}
