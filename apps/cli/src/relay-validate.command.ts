/**
 * `trustmesh relay validate`: validates JSON frames against a protocol document.
 *
 * Each FILE holds one frame; `-` reads one from stdin. Files over the byte limit are refused from
 * their size alone, before they are read. Exit 0 when every frame is valid, 1 when any is invalid,
 * 2 on a usage error or an unreadable file.
 */
import { parseArgs } from 'node:util';

import {
  checkFrame,
  DEFAULT_MAX_FRAME_BYTES,
  frameTooLargeIssue,
  isDirection,
  readFrameText,
  STRICT_CHECKS,
  validateBrowserSessionDescriptor,
  validateControlMessage,
  type Direction,
  type Verdict,
  type WireVersion,
} from '@trustmesh/relay-protocol';

import { readBoundedInput } from './bounded-input';
import { EXIT, UsageError, type CommandIo } from './command-io';

const DOCUMENTS = ['1.0', '1.1', '1.2', 'control', 'browser-session'] as const;
type Document = (typeof DOCUMENTS)[number];

interface FileResult {
  file: string;
  valid: boolean;
  /** Frame issues, or `FILE_UNREADABLE` for a file that could not be read. */
  errors: Array<{ code: string; path: string; message: string }>;
  /** What the frame was, when valid (human output only). */
  kind?: string;
  unreadable?: boolean;
}

export async function runRelayValidate(args: readonly string[], io: CommandIo): Promise<number> {
  const options = parseValidateArgs(args);
  const results: FileResult[] = [];
  for (const file of options.files) {
    const input = await readBoundedInput(file, options.maxBytes, io);
    if ('unreadable' in input) {
      results.push({ file, valid: false, unreadable: true, errors: [{ code: 'FILE_UNREADABLE', path: '', message: input.unreadable }] });
      continue;
    }
    const verdict: Verdict<unknown> = input.tooLarge
      ? { ok: false, issues: [frameTooLargeIssue(options.maxBytes)] }
      : validateDocument(options, input.bytes);
    results.push(
      verdict.ok
        ? { file, valid: true, errors: [], kind: describe(options.document, verdict.value) }
        : { file, valid: false, errors: verdict.issues.map(({ code, path, message }) => ({ code, path, message })) },
    );
  }
  if (options.json) {
    io.stdout(`${JSON.stringify(results.map(({ file, valid, errors }) => ({ file, valid, errors })), null, 2)}\n`);
  } else {
    for (const result of results) io.stdout(`${humanLine(result, options.document)}\n`);
  }
  if (results.some((result) => result.unreadable)) return EXIT.usage;
  return results.every((result) => result.valid) ? EXIT.ok : EXIT.failed;
}

interface ValidateOptions {
  document: Document;
  direction?: Direction;
  strict: boolean;
  json: boolean;
  maxBytes: number;
  files: string[];
}

function parseValidateArgs(args: readonly string[]): ValidateOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        wire: { type: 'string' },
        direction: { type: 'string' },
        strict: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'max-bytes': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const document = values.wire;
  if (document === undefined) throw new UsageError('--wire is required');
  if (!(DOCUMENTS as readonly string[]).includes(document)) {
    throw new UsageError(`--wire must be one of ${DOCUMENTS.join(', ')} (got ${JSON.stringify(document)})`);
  }
  const direction = values.direction;
  if (direction !== undefined && !isDirection(direction)) {
    throw new UsageError(`--direction must be browser-to-relay, relay-to-browser, companion-to-relay or relay-to-companion (got ${JSON.stringify(direction)})`);
  }
  if (direction !== undefined && document === 'browser-session') throw new UsageError('--direction does not apply to a browser session descriptor');
  if (direction !== undefined && document === 'control' && direction !== 'relay-to-browser') {
    throw new UsageError('Control messages travel relay-to-browser only');
  }
  if (document === '1.0' && direction !== undefined && direction.includes('browser')) {
    throw new UsageError('Wire 1.0 is never bridged to a browser; use 1.1 or 1.2 on browser sockets');
  }
  let maxBytes = DEFAULT_MAX_FRAME_BYTES;
  if (values['max-bytes'] !== undefined) {
    maxBytes = Number(values['max-bytes']);
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new UsageError('--max-bytes must be a positive integer');
  }
  if (positionals.length === 0) throw new UsageError('give at least one FILE (or - for stdin)');
  if (positionals.filter((file) => file === '-').length > 1) throw new UsageError('stdin (-) can be read only once');
  return {
    document: document as Document,
    ...(direction !== undefined ? { direction } : {}),
    strict: values.strict === true,
    json: values.json === true,
    maxBytes,
    files: positionals,
  };
}

function validateDocument(options: ValidateOptions, bytes: Uint8Array): Verdict<unknown> {
  const parsed = readFrameText(bytes, false, options.maxBytes);
  if (!parsed.ok) return parsed;
  switch (options.document) {
    case 'control':
      return validateControlMessage(parsed.value);
    case 'browser-session':
      return validateBrowserSessionDescriptor(parsed.value);
    default:
      return checkFrame(parsed.value, {
        wire: options.document as WireVersion,
        ...(options.direction ? { direction: options.direction } : {}),
        ...(options.strict ? { checks: STRICT_CHECKS } : {}),
      });
  }
}

function describe(document: Document, value: unknown): string {
  const type = (value as { type?: unknown }).type;
  if (document === 'browser-session') return 'browser session descriptor';
  if (document === 'control') return `Control 1.0 ${String(type)}`;
  return typeof type === 'string' && ['session.ready', 'workspace.status', 'session.error'].includes(type)
    ? `Control 1.0 ${type}`
    : `Wire ${document} ${String(type)}`;
}

function humanLine(result: FileResult, document: Document): string {
  const name = result.file === '-' ? '<stdin>' : result.file;
  if (result.valid) return `valid    ${name}: ${result.kind ?? document}`;
  if (result.unreadable) return `error    ${name}: ${result.errors[0]?.message ?? 'unreadable'}`;
  const details = result.errors.map((error) => `${error.code} at ${error.path === '' ? '/' : error.path}: ${error.message}`).join('; ');
  return `invalid  ${name}: ${details}`;
}
