/**
 * Loads scenario documents (JSON or YAML text) into checked `Scenario` values. A bad document is
 * refused with a `ScenarioError` that names the file and, per problem, the JSON pointer of the
 * offending value, its line and column, and what is wrong, so the author can fix it without guessing.
 *
 * Checks run in order: size, syntax, the JSON Schema (`SCENARIO_JSON_SCHEMA`, Ajv), then meaning:
 * unique thread keys and ids, step references, regular expressions, user-input forms against the
 * rules of BEHAVIOUR.md §8 (with the relay-protocol validators) and scripted answers against their form.
 */
import {
  normalizeUserInput,
  projectUserInputForm,
  validateWireFrame,
  type FrameIssue,
  type UserInputForm,
  type UserInputSubmission,
} from '@trustmesh/relay-protocol';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';

import { exceedsJsonDepth, parseStrictJson } from '@trustmesh/shared-strict-json';

import type { TurnStep } from '../runtime/turn-script';
import { SCENARIO_JSON_SCHEMA, SCENARIO_LIMITS } from './scenario.schema';
import type { Scenario } from './scenario.types';

export type ScenarioErrorCode = 'SCENARIO_TOO_LARGE' | 'SCENARIO_SYNTAX' | 'SCENARIO_INVALID';

export interface ScenarioIssue {
  /** JSON pointer of the offending value ("" for the whole document). */
  pointer: string;
  message: string;
  line?: number;
  column?: number;
}

export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';

  constructor(
    readonly code: ScenarioErrorCode,
    readonly source: string,
    readonly issues: readonly ScenarioIssue[],
  ) {
    super(`Scenario ${source} is ${code === 'SCENARIO_TOO_LARGE' ? 'too large' : code === 'SCENARIO_SYNTAX' ? 'not readable' : 'invalid'}:\n${issues.map(describeIssue).join('\n')}`);
  }
}

export interface ScenarioSourceOptions {
  /** Names the document in errors (a file name or path). Default "<scenario>". */
  source?: string;
  /** Default: from the source's extension (.json, .yaml, .yml), else from the text. */
  format?: 'json' | 'yaml';
}

const MAX_ISSUES = 20;
/** Deepest nesting of arrays and objects a scenario may use; the schema's own shapes need about 8. */
export const SCENARIO_MAX_DEPTH = 64;
const tooDeep = `nests arrays and objects more than ${SCENARIO_MAX_DEPTH} deep`;

/** Parses and checks a scenario document. Throws `ScenarioError`. */
export function parseScenario(text: string, options: ScenarioSourceOptions = {}): Scenario {
  const source = options.source ?? '<scenario>';
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > SCENARIO_LIMITS.documentBytes) {
    throw new ScenarioError('SCENARIO_TOO_LARGE', source, [{ pointer: '', message: `is ${bytes} bytes; a scenario may be at most ${SCENARIO_LIMITS.documentBytes} bytes` }]);
  }
  if (text.trim().length === 0) throw new ScenarioError('SCENARIO_SYNTAX', source, [{ pointer: '', message: 'is empty' }]);
  const format = options.format ?? formatOf(source, text);
  let value: unknown;
  if (format === 'json') {
    // Read strictly before anything else walks the text: a repeated key is refused as YAML's are, and
    // nesting is bounded before the YAML parser (used for positions) or the schema recurse into it.
    const strict = parseStrictJson(text, { maxDepth: SCENARIO_MAX_DEPTH });
    if (!strict.ok) {
      if (strict.issue.code === 'JSON_SYNTAX') throw new ScenarioError('SCENARIO_SYNTAX', source, [jsonSyntaxIssue(text)]);
      const issue = { pointer: strict.issue.pointer, message: strict.issue.code === 'JSON_TOO_DEEP' ? tooDeep : strict.issue.message };
      throw new ScenarioError(strict.issue.code === 'JSON_TOO_DEEP' ? 'SCENARIO_INVALID' : 'SCENARIO_SYNTAX', source, [issue]);
    }
    value = strict.value;
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: true, strict: true, version: '1.2' });
  if (format !== 'json') {
    const [first] = document.errors;
    if (first) {
      const at = first.linePos?.[0];
      throw new ScenarioError('SCENARIO_SYNTAX', source, [
        {
          pointer: '',
          message: `is not valid YAML (${first.code}): ${(first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`,
          ...(at ? { line: at.line, column: at.col } : {}),
        },
      ]);
    }
    value = document.toJS({ maxAliasCount: 100 });
  }
  const positions = document.errors.length === 0 ? document : undefined;
  return checkScenario(value, { source, locate: (pointer) => locate(positions, lines, pointer) });
}

/** Checks an already parsed value as a scenario. Throws `ScenarioError`. */
export function validateScenario(value: unknown, options: { source?: string } = {}): Scenario {
  return checkScenario(value, { source: options.source ?? '<scenario>', locate: () => ({}) });
}

function checkScenario(value: unknown, context: { source: string; locate: (pointer: string) => { line?: number; column?: number } }): Scenario {
  const validate = compiledSchema();
  const fail = (issues: Array<{ pointer: string; message: string }>): never => {
    const sorted = issues.slice(0, MAX_ISSUES).map((issue) => ({ ...issue, ...context.locate(issue.pointer) }));
    throw new ScenarioError('SCENARIO_INVALID', context.source, sorted);
  };
  // The schema check recurses per level: a value from YAML (or a caller) is held to the same bound first.
  if (exceedsJsonDepth(value, SCENARIO_MAX_DEPTH)) fail([{ pointer: '', message: tooDeep }]);
  if (!validate(value)) fail(schemaIssues(validate.errors ?? []));
  const scenario = value as Scenario;
  const issues = meaningIssues(scenario);
  if (issues.length > 0) fail(issues);
  return scenario;
}

let compiled: ValidateFunction | undefined;

function compiledSchema(): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv2020({ allErrors: true, discriminator: true, verbose: true, strict: true, allowUnionTypes: true });
    compiled = ajv.compile(SCENARIO_JSON_SCHEMA);
  }
  return compiled;
}

// ------------------------------------------------------------------------------------------------
// Schema errors, in words
// ------------------------------------------------------------------------------------------------

function schemaIssues(errors: readonly ErrorObject[]): Array<{ pointer: string; message: string }> {
  // An anyOf whose branches all failed is reported once, not once per branch.
  const unions = errors.filter((error) => error.keyword === 'anyOf');
  const inUnion = (error: ErrorObject) => unions.some((union) => error !== union && error.schemaPath.startsWith(union.schemaPath.replace(/\/anyOf$/, '/anyOf/')));
  const seen = new Set<string>();
  const issues: Array<{ pointer: string; message: string }> = [];
  for (const error of errors) {
    if (inUnion(error)) continue;
    const issue = schemaIssue(error);
    const key = `${issue.pointer} ${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function schemaIssue(error: ErrorObject): { pointer: string; message: string } {
  const at = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${at}/${escapePointer(String(params['missingProperty']))}`, message: 'is required' };
    case 'additionalProperties': {
      const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return { pointer: `${at}/${escapePointer(String(params['additionalProperty']))}`, message: `is not a field here (known fields: ${known.join(', ')})` };
    }
    case 'enum':
      return { pointer: at, message: `must be one of: ${(params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value)).join(', ')}` };
    case 'const':
      return { pointer: at, message: `must be ${JSON.stringify(params['allowedValue'])}` };
    case 'discriminator': {
      const tag = String(params['tag']);
      const options = ((error.parentSchema as { oneOf?: Array<{ properties?: Record<string, { const?: unknown; enum?: unknown[] }> }> } | undefined)?.oneOf ?? []).flatMap(
        (branch) => {
          const property = branch.properties?.[tag];
          return property?.const !== undefined ? [property.const] : (property?.enum ?? []);
        },
      );
      return params['error'] === 'mapping'
        ? { pointer: `${at}/${tag}`, message: `${JSON.stringify(params['tagValue'])} is not a known ${tag}; use one of: ${options.map((option) => JSON.stringify(option)).join(', ')}` }
        : { pointer: `${at}/${tag}`, message: 'must be a string' };
    }
    case 'anyOf':
      return { pointer: at, message: 'does not match any of the shapes allowed here (see the scenario format in the README)' };
    default:
      return { pointer: at, message: error.message ?? `fails ${error.keyword}` };
  }
}

// ------------------------------------------------------------------------------------------------
// Meaning
// ------------------------------------------------------------------------------------------------

function meaningIssues(scenario: Scenario): Array<{ pointer: string; message: string }> {
  const issues: Array<{ pointer: string; message: string }> = [];
  const keys = new Map<string, number>();
  const ids = new Map<string, number>();
  (scenario.threads ?? []).forEach((thread, index) => {
    const previous = keys.get(thread.key);
    if (previous !== undefined) issues.push({ pointer: `/threads/${index}/key`, message: `thread key ${JSON.stringify(thread.key)} is already used by /threads/${previous}` });
    keys.set(thread.key, index);
    if (thread.id !== undefined) {
      const id = thread.id.toLowerCase();
      const twin = ids.get(id);
      if (twin !== undefined) issues.push({ pointer: `/threads/${index}/id`, message: `thread id ${thread.id} is already used by /threads/${twin}` });
      ids.set(id, index);
    }
  });
  const known = [...keys.keys()];
  scenario.steps.forEach((step, index) => {
    const at = `/steps/${index}`;
    if (step.kind !== 'turn' && step.kind !== 'awaitTurn' && step.kind !== 'counterpartyRequest') return;
    if (!keys.has(step.thread)) {
      issues.push({
        pointer: `${at}/thread`,
        message: known.length > 0 ? `no thread has key ${JSON.stringify(step.thread)} (known keys: ${known.join(', ')})` : `no thread has key ${JSON.stringify(step.thread)}: declare it under /threads`,
      });
    }
    if (step.kind === 'awaitTurn' && step.match !== undefined) {
      try {
        new RegExp(step.match);
      } catch {
        issues.push({ pointer: `${at}/match`, message: 'is not a valid regular expression' });
      }
    }
    if (step.kind === 'counterpartyRequest') return;
    step.steps.forEach((turnStep, stepIndex) => issues.push(...turnStepIssues(turnStep, `${at}/steps/${stepIndex}`)));
  });
  return issues;
}

function turnStepIssues(step: TurnStep, at: string): Array<{ pointer: string; message: string }> {
  if (step.kind !== 'userInput') return [];
  const formAt = `${at}/form`;
  const projected = projectUserInputForm(step.form);
  if (!projected) return [{ pointer: formAt, message: 'is not a user-input form (each control needs a known type)' }];
  const frame = {
    type: 'interaction.request',
    workspaceId: '00000000-0000-0000-0000-000000000000',
    relaySequence: 0,
    interactionId: '00000000-0000-0000-0000-000000000000',
    threadId: '00000000-0000-0000-0000-000000000000',
    turnId: '00000000-0000-0000-0000-000000000000',
    expiresAt: '2026-01-01T00:00:00Z',
    sensitivity: 'normal',
    method: 'userInput.request',
    projection: projected,
  };
  const verdict = validateWireFrame('1.2', frame, { interactionForms: true });
  if (!verdict.ok) return verdict.issues.map((issue) => ({ pointer: formAt + issue.path.replace(/^\/projection/, ''), message: lowerFirst(issue.message) }));
  const auto = step.autoRespond;
  if (auto && 'values' in auto) {
    const answer = normalizeUserInput(projected as UserInputForm, { status: 'submitted', values: auto.values as UserInputSubmission['values'] });
    if (!answer.ok) return answer.issues.map((issue: FrameIssue) => ({ pointer: `${at}/autoRespond${issue.path.replace(/^\/candidate/, '')}`, message: lowerFirst(issue.message) }));
  }
  return [];
}

// ------------------------------------------------------------------------------------------------
// Positions and formats
// ------------------------------------------------------------------------------------------------

function formatOf(source: string, text: string): 'json' | 'yaml' {
  const lower = source.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

function locate(document: Document | undefined, lines: LineCounter, pointer: string): { line?: number; column?: number } {
  if (!document) return {};
  const path = pointer === '' ? [] : pointer.slice(1).split('/').map(unescapePointer);
  // The deepest node that exists on the path (a missing field points at its parent object).
  let node: unknown = document.contents;
  for (const segment of path) {
    let child: unknown;
    if (isMap(node)) child = node.get(segment, true);
    else if (isSeq(node)) child = node.get(Number(segment), true);
    if (child === undefined || child === null) break;
    node = child;
  }
  const range = (isMap(node) || isSeq(node) || isScalar(node)) && node.range ? node.range : undefined;
  if (!range) return {};
  const at = lines.linePos(range[0]);
  return { line: at.line, column: at.col };
}

function jsonSyntaxIssue(text: string): ScenarioIssue {
  let message = 'not JSON';
  try {
    JSON.parse(text);
  } catch (error) {
    if (error instanceof Error) message = error.message;
  }
  const position = /position (\d+)/.exec(message);
  if (!position) return { pointer: '', message: `is not valid JSON: ${message}` };
  const offset = Number(position[1]);
  const before = text.slice(0, offset).split('\n');
  return { pointer: '', message: `is not valid JSON: ${message}`, line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

function describeIssue(issue: ScenarioIssue): string {
  const where = issue.line !== undefined ? ` (line ${issue.line}, column ${issue.column ?? 1})` : '';
  return `  ${issue.pointer === '' ? '(document)' : issue.pointer}${where}: ${issue.message}`;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);
