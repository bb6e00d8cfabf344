/**
 * `trustmesh shield analyze [--json] FILE...|-`: one Shield consultation per file, without a running service.
 *
 * Each FILE (`-`: stdin, once) holds `{"case": <case input>, "consult": <consult input>}` (SHIELD.md §3, §4;
 * other keys ignored). The command starts a private shield analyzer (`embedded-shield.ts`: the app's own
 * process on a temporary embedded database, deleted afterwards), and for each file opens a fresh case from
 * `case` and consults once with `consult`. It starts the analyzer only if some file got past the local checks.
 *
 * `--json` prints one JSON array, per file `{"file", "ok": true, "consultation"}` (the shield_consultation
 * record) or `{"file", "ok": false, "errors": [{"code", "path", "message"}]}`, where `path` is a JSON pointer
 * into the file (`/case/title`). Without it, a short summary per file: disposition, risk tier and confidence,
 * the manipulation signals, the claims by status and the first next step; or each error.
 *
 * Codes: the service's own (`SHIELD_FIELD_REQUIRED`, `SHIELD_FIELD_TOO_LONG`, …, as it refuses the `case` or
 * `consult` part), and the file's: `SHIELD_FILE_UNREADABLE`, `SHIELD_FILE_TOO_LARGE` (over 4 MiB),
 * `SHIELD_FILE_NOT_JSON` (not one strict JSON value in UTF-8: duplicate keys refused as the service does),
 * `SHIELD_FIELD_TYPE` (not an object), `SHIELD_FIELD_REQUIRED` (`/case` or `/consult` missing), and
 * `SHIELD_UNAVAILABLE` (the analyzer could not start or stopped answering; the reason goes to stderr).
 *
 * Exit status: 0 every file ok, 1 any not ok (or interrupted), 2 a usage error.
 */
import { parseArgs } from 'node:util';

import { parseStrictJson } from '@trustmesh/shared-strict-json';

import { readBoundedInput } from './bounded-input';
import { EXIT, UsageError, type CommandIo } from './command-io';
import { EMBEDDED_MAX_BODY_BYTES, EmbeddedShieldError, startEmbeddedShield, type EmbeddedShield } from './embedded-shield';
import { ShieldUnreachable, type ShieldAnswer, type ShieldIssue } from './shield-rest.client';

type Env = Readonly<Record<string, string | undefined>>;

const MAX_FILE_BYTES = EMBEDDED_MAX_BODY_BYTES;
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

type AnalyzeResult = { file: string; ok: true; consultation: unknown } | { file: string; ok: false; errors: ShieldIssue[] };

interface Pending {
  file: string;
  caseInput: unknown;
  consultInput: unknown;
}

export async function runShieldAnalyze(args: readonly string[], io: CommandIo, env: Env = process.env): Promise<number> {
  const options = parseAnalyzeArgs(args);
  const results = new Map<number, AnalyzeResult>();
  const pending = new Map<number, Pending>();
  for (const [index, file] of options.files.entries()) {
    const read = await readAnalyzeFile(file, io);
    if ('errors' in read) results.set(index, { file, ok: false, errors: read.errors });
    else pending.set(index, { file, ...read });
  }

  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  let shield: EmbeddedShield | null = null;
  try {
    if (pending.size > 0) {
      try {
        shield = await startEmbeddedShield(env, () => interrupted);
      } catch (error) {
        if (!(error instanceof EmbeddedShieldError)) throw error;
        if (!interrupted) io.stderr(`trustmesh: shield analyze: ${error.message}\n`);
        for (const [index, { file }] of pending) results.set(index, unavailable(file, error.message));
      }
    }
    for (const [index, input] of pending) {
      if (interrupted) break;
      if (shield) results.set(index, await analyzeOne(shield, input));
    }
  } finally {
    await shield?.stop();
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
  if (interrupted) {
    io.stderr('trustmesh: shield analyze: interrupted\n');
    return EXIT.failed;
  }

  const ordered = options.files.map((file, index) => results.get(index) ?? unavailable(file, 'not analysed'));
  if (options.json) io.stdout(`${JSON.stringify(ordered, null, 2)}\n`);
  else for (const result of ordered) io.stdout(humanSummary(result));
  return ordered.every((result) => result.ok) ? EXIT.ok : EXIT.failed;
}

function parseAnalyzeArgs(args: readonly string[]): { json: boolean; files: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: { json: { type: 'boolean', default: false } } });
  } catch (error) {
    throw new UsageError(`shield analyze: ${error instanceof Error ? error.message : String(error)}`);
  }
  const files = parsed.positionals;
  if (files.length === 0) throw new UsageError('shield analyze: give at least one FILE (or - for stdin)');
  if (files.filter((file) => file === '-').length > 1) throw new UsageError('shield analyze: stdin (-) can be read only once');
  return { json: parsed.values.json === true, files };
}

/** The file's `case` and `consult`, or why it cannot be analysed (checked here, before any analyzer runs). */
async function readAnalyzeFile(file: string, io: CommandIo): Promise<{ caseInput: unknown; consultInput: unknown } | { errors: ShieldIssue[] }> {
  const refuse = (code: string, path: string, message: string) => ({ errors: [{ code, path, message }] });
  const name = file === '-' ? 'stdin' : file;
  const input = await readBoundedInput(file, MAX_FILE_BYTES, io);
  if ('unreadable' in input) return refuse('SHIELD_FILE_UNREADABLE', '', input.unreadable);
  if (input.tooLarge) return refuse('SHIELD_FILE_TOO_LARGE', '', `${name} is larger than ${MAX_FILE_BYTES} bytes`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(input.bytes);
  } catch {
    return refuse('SHIELD_FILE_NOT_JSON', '', `${name} is not UTF-8 text`);
  }
  const parsed = parseStrictJson(text, { loneSurrogates: 'refuse' });
  if (!parsed.ok) return refuse('SHIELD_FILE_NOT_JSON', parsed.issue.pointer, `${name} is not one JSON value (${parsed.issue.code})`);
  const document = parsed.value;
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return refuse('SHIELD_FIELD_TYPE', '', 'The file must hold an object {"case": <case input>, "consult": <consult input>}');
  }
  const { case: caseInput, consult: consultInput } = document as Record<string, unknown>;
  const errors: ShieldIssue[] = [];
  if (caseInput === undefined) errors.push({ code: 'SHIELD_FIELD_REQUIRED', path: '/case', message: 'case is required: the case input to open a case from' });
  if (consultInput === undefined) errors.push({ code: 'SHIELD_FIELD_REQUIRED', path: '/consult', message: 'consult is required: the consult input to consult once with' });
  return errors.length > 0 ? { errors } : { caseInput, consultInput };
}

/** Opens a case from `case`, consults once with `consult`; refusals point into the file. */
async function analyzeOne(shield: EmbeddedShield, { file, caseInput, consultInput }: Pending): Promise<AnalyzeResult> {
  try {
    const opened = await shield.client.openCase(caseInput);
    if (!opened.ok) return refused(file, '/case', opened);
    const caseId = (opened.value as { caseId?: unknown }).caseId;
    if (typeof caseId !== 'string') return unavailable(file, 'the shield opened a case without an id');
    const consulted = await shield.client.consult(caseId, consultInput);
    if (!consulted.ok) return refused(file, '/consult', consulted);
    return { file, ok: true, consultation: (consulted.value as { consultation?: unknown }).consultation };
  } catch (error) {
    if (error instanceof ShieldUnreachable) return unavailable(file, shield.running ? error.message : 'the shield analyzer stopped');
    throw error;
  }
}

function refused(file: string, part: '/case' | '/consult', answer: Extract<ShieldAnswer, { ok: false }>): AnalyzeResult {
  return { file, ok: false, errors: answer.issues.map((issue) => ({ code: issue.code, path: `${part}${issue.path}`, message: issue.message })) };
}

function unavailable(file: string, reason: string): AnalyzeResult {
  return { file, ok: false, errors: [{ code: 'SHIELD_UNAVAILABLE', path: '', message: `Not analysed: ${reason}` }] };
}

interface ConsultationView {
  analysis?: {
    disposition?: string;
    riskTier?: string;
    confidence?: number;
    manipulationSignals?: Array<{ tactic?: string; confidence?: number }>;
    claims?: Array<{ status?: string }>;
    nextSteps?: string[];
  };
}

/**
 * A few lines per file for a person: `ok    FILE: <disposition>, risk <tier>, confidence <c>`, then the
 * signals (tactic and confidence), the claims counted by status and the first next step; or one line per error.
 */
function humanSummary(result: AnalyzeResult): string {
  const name = result.file === '-' ? '<stdin>' : result.file;
  if (!result.ok) return `error  ${name}\n${result.errors.map((error) => `       ${error.code} at ${error.path === '' ? '/' : error.path}: ${error.message}\n`).join('')}`;
  const analysis = (result.consultation as ConsultationView | undefined)?.analysis ?? {};
  const signals = (analysis.manipulationSignals ?? []).map((signal) => `${signal.tactic} (${(signal.confidence ?? 0).toFixed(2)})`);
  const byStatus = new Map<string, number>();
  for (const claim of analysis.claims ?? []) byStatus.set(String(claim.status), (byStatus.get(String(claim.status)) ?? 0) + 1);
  const claims = [...byStatus].map(([status, count]) => `${count} ${status}`);
  const lines = [
    `ok     ${name}: ${analysis.disposition}, risk ${analysis.riskTier}, confidence ${(analysis.confidence ?? 0).toFixed(2)}`,
    `       signals: ${signals.length > 0 ? signals.join(', ') : 'none'}`,
    `       claims: ${claims.length > 0 ? claims.join(', ') : 'none'}`,
    ...(analysis.nextSteps?.[0] ? [`       first step: ${analysis.nextSteps[0]}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}
