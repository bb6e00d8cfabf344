/**
 * `trustmesh shield <open|consult|guide|close|get|list|token issue>`: the Shield analyzer's REST API
 * (SHIELD.md §13) from the command line, against a running service.
 *
 *   shield open FILE|-                  case input (§3)     → the case record
 *   shield consult CASE_ID FILE|-       consult input (§4)  → { caseRecord, consultation }
 *   shield guide CASE_ID FILE|-         guidance input (§6) → the case record (operators only)
 *   shield close CASE_ID FILE|-         close input (§7)    → the outcome record
 *   shield get CASE_ID                                      → { case, consultations, outcomes }
 *   shield list                                             → the caller's cases, newest first
 *   shield token issue AGENT_ID [--name NAME] [--days 1-30] → an agent token, shown once
 *
 * The service is `--url` or `SHIELD_URL` (default http://127.0.0.1:8480, the shield's own default). The bearer
 * credential (an operator credential or an agent token) comes from `SHIELD_CREDENTIAL` only: an argument would
 * show in process listings and shell history. Inputs are bounded (4 MiB, the service's largest body) and must be
 * one strict JSON value; the record is printed as JSON on stdout. A refusal prints the service's message and each
 * issue (code, JSON pointer into the input, message) on stderr.
 *
 * Exit status: 0 printed, 1 refused or unreachable, 2 a usage error or an unreadable input.
 */
import { parseArgs } from 'node:util';

import { parseStrictJson } from '@trustmesh/shared-strict-json';

import { readBoundedInput } from './bounded-input';
import { EXIT, UsageError, type CommandIo } from './command-io';
import { ShieldRestClient, ShieldUnreachable, type ShieldAnswer } from './shield-rest.client';

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_SHIELD_URL = 'http://127.0.0.1:8480';
const MAX_INPUT_BYTES = 4 * 1024 * 1024;
const MAX_FLAG_LENGTH = 2048;

/** Each command: its positionals (the last `input` one is FILE|-) and the call it makes. */
const COMMANDS = {
  open: { positionals: ['FILE|-'], call: (client: ShieldRestClient, [input]: unknown[]) => client.openCase(input) },
  consult: { positionals: ['CASE_ID', 'FILE|-'], call: (client: ShieldRestClient, [id, input]: unknown[]) => client.consult(String(id), input) },
  guide: { positionals: ['CASE_ID', 'FILE|-'], call: (client: ShieldRestClient, [id, input]: unknown[]) => client.addGuidance(String(id), input) },
  close: { positionals: ['CASE_ID', 'FILE|-'], call: (client: ShieldRestClient, [id, input]: unknown[]) => client.closeCase(String(id), input) },
  get: { positionals: ['CASE_ID'], call: (client: ShieldRestClient, [id]: unknown[]) => client.getCase(String(id)) },
  list: { positionals: [], call: (client: ShieldRestClient) => client.listCases() },
} as const;

export type ShieldCasesCommand = keyof typeof COMMANDS | 'token';

export function isShieldCasesCommand(command: string | undefined): command is ShieldCasesCommand {
  return command === 'token' || (command !== undefined && Object.hasOwn(COMMANDS, command));
}

export async function runShieldCases(command: ShieldCasesCommand, args: readonly string[], io: CommandIo, env: Env = process.env): Promise<number> {
  const label = command === 'token' ? 'shield token issue' : `shield ${command}`;
  if (command === 'token' && args[0] !== 'issue') throw new UsageError('shield token: the only subcommand is issue (shield token issue AGENT_ID [--name NAME] [--days 1-30])');
  const parsed = parse(label, command === 'token' ? args.slice(1) : args, command === 'token');
  const url = shieldUrl(label, parsed.url ?? env['SHIELD_URL'] ?? DEFAULT_SHIELD_URL);
  const credential = env['SHIELD_CREDENTIAL']?.trim();
  if (!credential) throw new UsageError(`${label}: set SHIELD_CREDENTIAL to an operator credential or agent token (\`npm start\` prints a development one)`);
  if (!/^[\x21-\x7e]{1,512}$/.test(credential)) throw new UsageError(`${label}: SHIELD_CREDENTIAL must be 1-512 printable ASCII characters without spaces`);

  let call: (client: ShieldRestClient) => Promise<ShieldAnswer>;
  if (command === 'token') {
    const [agentId, ...extra] = parsed.positionals;
    if (!agentId || extra.length > 0) throw new UsageError(`${label}: give exactly one AGENT_ID`);
    const body = { ...(parsed.name !== undefined ? { name: parsed.name } : {}), ...(parsed.days !== undefined ? { expiresInDays: parsed.days } : {}) };
    call = (client) => client.issueAgentToken(agentId, body);
  } else {
    const spec = COMMANDS[command];
    if (parsed.name !== undefined || parsed.days !== undefined) throw new UsageError(`${label}: --name and --days belong to shield token issue`);
    if (parsed.positionals.length !== spec.positionals.length) throw new UsageError(`${label}: expects ${spec.positionals.length === 0 ? 'no arguments' : spec.positionals.join(' ')}`);
    const values: unknown[] = [...parsed.positionals];
    if (spec.positionals.at(-1) === 'FILE|-') {
      const file = parsed.positionals.at(-1) ?? '-';
      const input = await readJsonInput(file, io);
      if ('problem' in input) {
        io.stderr(`trustmesh: ${label}: ${input.problem}\n`);
        return input.exit;
      }
      values[values.length - 1] = input.value;
    }
    call = (client) => spec.call(client, values);
  }

  try {
    const answer = await call(new ShieldRestClient(url, credential));
    if (answer.ok) {
      io.stdout(`${JSON.stringify(answer.value, null, 2)}\n`);
      return EXIT.ok;
    }
    io.stderr(`trustmesh: ${label}: refused (HTTP ${answer.status}): ${answer.error}\n${answer.issues.map((issue) => `  ${issue.code} at ${issue.path === '' ? '/' : issue.path}: ${issue.message}\n`).join('')}`);
    return EXIT.failed;
  } catch (error) {
    if (!(error instanceof ShieldUnreachable)) throw error;
    io.stderr(`trustmesh: ${label}: ${error.message}\n`);
    return EXIT.failed;
  }
}

interface ParsedFlags {
  url?: string;
  name?: string;
  days?: number;
  positionals: string[];
}

function parse(label: string, args: readonly string[], token: boolean): ParsedFlags {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { url: { type: 'string' }, ...(token ? { name: { type: 'string' }, days: { type: 'string' } } : {}) },
    });
  } catch (error) {
    throw new UsageError(`${label}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const values = parsed.values as { url?: string; name?: string; days?: string };
  for (const [flag, value] of Object.entries(values)) {
    if (typeof value === 'string' && value.length > MAX_FLAG_LENGTH) throw new UsageError(`${label}: --${flag} is longer than ${MAX_FLAG_LENGTH} characters`);
  }
  let days: number | undefined;
  if (values.days !== undefined) {
    if (!/^\d{1,3}$/.test(values.days)) throw new UsageError(`${label}: --days must be a whole number of days (1-30)`);
    days = Number(values.days);
  }
  return {
    ...(values.url !== undefined ? { url: values.url } : {}),
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(days !== undefined ? { days } : {}),
    positionals: parsed.positionals,
  };
}

/** An http(s) base URL without user information (a password in a URL would reach process listings). */
function shieldUrl(label: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${label}: the shield URL (--url or SHIELD_URL) must be an http:// or https:// URL such as ${DEFAULT_SHIELD_URL}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${label}: the shield URL must start with http:// or https://`);
  if (url.username || url.password) throw new UsageError(`${label}: the shield URL must not carry credentials; set SHIELD_CREDENTIAL instead`);
  return url.href;
}

async function readJsonInput(file: string, io: CommandIo): Promise<{ value: unknown } | { problem: string; exit: number }> {
  const name = file === '-' ? 'stdin' : file;
  const input = await readBoundedInput(file, MAX_INPUT_BYTES, io);
  if ('unreadable' in input) return { problem: `SHIELD_FILE_UNREADABLE: ${input.unreadable}`, exit: EXIT.usage };
  if (input.tooLarge) return { problem: `SHIELD_FILE_TOO_LARGE: ${name} is larger than ${MAX_INPUT_BYTES} bytes`, exit: EXIT.failed };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(input.bytes);
  } catch {
    return { problem: `SHIELD_FILE_NOT_JSON: ${name} is not UTF-8 text`, exit: EXIT.failed };
  }
  const parsed = parseStrictJson(text, { loneSurrogates: 'refuse' });
  if (!parsed.ok) return { problem: `SHIELD_FILE_NOT_JSON at ${parsed.issue.pointer || '/'}: ${name} is not one JSON value (${parsed.issue.code})`, exit: EXIT.failed };
  return { value: parsed.value };
}
