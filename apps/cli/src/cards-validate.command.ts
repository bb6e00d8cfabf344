/**
 * `trustmesh cards validate`: validates AI Cards, AI Catalogs (seed and final), A2A AgentCards and MCP
 * server.json files with @trustmesh/cards-documents (CARDS.md §5 "Validation errors": every issue at once,
 * each with a JSON pointer, a code and a severity; warnings never fail a file).
 *
 * Each FILE holds one document; `-` reads one from stdin. Files over the byte limit are refused from their
 * size alone (DOCUMENT_TOO_LARGE). An unreadable file is an entry with FILE_UNREADABLE, not a usage error:
 * the other files are still reported. Exit 0 when every file is valid, 1 when any is invalid or unreadable,
 * 2 on a usage error (unknown flag or kind, no FILE).
 */
import { parseArgs } from 'node:util';

import { DEFAULT_MAX_DOCUMENT_BYTES, validateDocument, type DocumentIssue, type DocumentKind } from '@trustmesh/cards-documents';

import { readBoundedInput } from './bounded-input';
import { EXIT, UsageError, type CommandIo } from './command-io';

const KINDS = ['auto', 'ai-card', 'ai-catalog', 'a2a', 'mcp-server'] as const;
type KindOption = (typeof KINDS)[number];

interface FileResult {
  file: string;
  kind: DocumentKind | null;
  valid: boolean;
  errors: DocumentIssue[];
  warnings: DocumentIssue[];
}

interface CardsValidateOptions {
  kind: KindOption;
  json: boolean;
  compatibility: boolean;
  maxBytes: number;
  files: string[];
}

export async function runCardsValidate(args: readonly string[], io: CommandIo): Promise<number> {
  const options = parseCardsValidateArgs(args);
  const results: FileResult[] = [];
  for (const file of options.files) results.push(await validateFile(file, options, io));
  if (options.json) {
    io.stdout(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    for (const result of results) io.stdout(humanReport(result));
  }
  return results.every((result) => result.valid) ? EXIT.ok : EXIT.failed;
}

async function validateFile(file: string, options: CardsValidateOptions, io: CommandIo): Promise<FileResult> {
  const input = await readBoundedInput(file, options.maxBytes, io);
  if ('unreadable' in input) return refused(file, 'FILE_UNREADABLE', input.unreadable);
  if (input.tooLarge) return refused(file, 'DOCUMENT_TOO_LARGE', `The document is larger than ${options.maxBytes} bytes; it was not read.`);
  const result = validateDocument(input.bytes, { kind: options.kind, maxBytes: options.maxBytes, compatibility: options.compatibility });
  return { file, kind: result.kind ?? null, valid: result.valid, errors: result.errors, warnings: result.warnings };
}

function refused(file: string, code: string, message: string): FileResult {
  return { file, kind: null, valid: false, errors: [{ path: '', code, severity: 'error', message }], warnings: [] };
}

function parseCardsValidateArgs(args: readonly string[]): CardsValidateOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        kind: { type: 'string', default: 'auto' },
        json: { type: 'boolean', default: false },
        compatibility: { type: 'boolean', default: false },
        'max-bytes': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const kind = values.kind ?? 'auto';
  if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind must be one of ${KINDS.join(', ')} (got ${JSON.stringify(kind)})`);
  let maxBytes = DEFAULT_MAX_DOCUMENT_BYTES;
  if (values['max-bytes'] !== undefined) {
    maxBytes = Number(values['max-bytes']);
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new UsageError('--max-bytes must be a positive integer');
  }
  if (positionals.length === 0) throw new UsageError('give at least one FILE (or - for stdin)');
  if (positionals.filter((file) => file === '-').length > 1) throw new UsageError('stdin (-) can be read only once');
  return { kind: kind as KindOption, json: values.json === true, compatibility: values.compatibility === true, maxBytes, files: positionals };
}

/** One line per file, then one indented line per issue (errors first). */
function humanReport(result: FileResult): string {
  const name = result.file === '-' ? '<stdin>' : result.file;
  const verdict = result.valid ? 'valid  ' : 'invalid';
  const counts = `${result.errors.length} error(s), ${result.warnings.length} warning(s)`;
  const lines = [`${verdict}  ${name}: ${result.kind ?? 'unknown kind'}, ${counts}`];
  for (const issue of [...result.errors, ...result.warnings]) {
    lines.push(`  ${issue.severity === 'error' ? 'error  ' : 'warning'} ${issue.code} at ${issue.path === '' ? '/' : issue.path}: ${issue.message}`);
  }
  return `${lines.join('\n')}\n`;
}
