/**
 * Validation of parsed values against the protocol documents: Wire frames per version, Control
 * messages, the session descriptor, method params and results, and raw Runtime events.
 *
 * Frames are dispatched on `type` to the compiled validator of that frame type, which is exactly the
 * document's root `anyOf` (every member pins `type`) at a fraction of the cost, and yields one precise
 * issue. Optional checks a strict peer can switch on run after the schema.
 */
import type * as BrowserSession10 from '../generated/browser-session-1.0.types';
import type * as Control10 from '../generated/control-1.0.types';
import type * as RuntimeTimeline from '../generated/runtime-timeline.types';
import { CONTROL_REGISTRY } from '../generated/registry';
import { VALIDATORS } from '../generated/validators';
import type * as Wire10 from '../generated/wire-1.0.types';
import type * as Wire11 from '../generated/wire-1.1.types';
import type * as Wire12 from '../generated/wire-1.2.types';
import { checkDeferredRules, DEFERRED_RULES, type DeferredRule } from '../rules/deferred.rules';
import { checkUserInputForm } from '../rules/interaction-form.rules';
import { WIRE_VERSIONS, type WireVersion } from '../wire-version';
import type { CompiledValidator } from './compiled-validator';
import { issue, reject, type FrameIssue, type Verdict } from './frame-issue';
import { explainFailure } from './schema-explainer';
import { schemaAt, SCHEMA_DOCUMENTS, type SchemaDocumentKey } from './schema-documents';

export interface WireFrameOf {
  '1.0': Wire10.WireFrame;
  '1.1': Wire11.WireFrame;
  '1.2': Wire12.WireFrame;
}
export type AnyWireFrame = WireFrameOf[WireVersion];

export interface ValidationChecks {
  /** Check `runtime.request` params against the method's schema (a Companion answers `INVALID_PARAMS`). */
  methodParams?: boolean;
  /** Enforce the deferred rules of §3; `true` enables all of them. Off by default, as §3 requires. */
  deferredRules?: boolean | readonly DeferredRule[];
  /** Enforce the user-input form rules of §8 on `interaction.request` frames. */
  interactionForms?: boolean;
}

/** Every optional check on: what `--strict` means. */
export const STRICT_CHECKS: Readonly<ValidationChecks> = { methodParams: true, deferredRules: true, interactionForms: true };

interface TypedValidator {
  validate: CompiledValidator;
  pointer: string;
}

const wireKey = (version: WireVersion) => `wire-${version}` as const;

function runValidator<T>(document: SchemaDocumentKey, entry: TypedValidator, value: unknown, basePath: string): Verdict<T> {
  if (entry.validate(value)) return { ok: true, value: value as T };
  const root = schemaAt(document, entry.pointer);
  return reject(explainFailure(root, SCHEMA_DOCUMENTS[document], value, entry.validate.errors ?? [], basePath));
}

function dispatchOnType<T>(
  document: SchemaDocumentKey,
  validators: ReadonlyMap<string, TypedValidator>,
  value: unknown,
  describe: string,
): Verdict<T> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return reject(issue('FRAME_NOT_OBJECT', '', `A ${describe} must be a JSON object.`));
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') {
    return reject(type === undefined ? issue('FIELD_REQUIRED', '/type', '`type` is required.') : issue('FIELD_TYPE', '/type', '`type` must be a string.'));
  }
  // A Map, not an object: a frame whose `type` is "constructor" or "__proto__" finds nothing.
  const entry = validators.get(type);
  if (!entry) return reject(unknownType(type, describe, [...validators.keys()]));
  return runValidator<T>(document, entry, value, '');
}

function unknownType(type: string, describe: string, known: readonly string[]): FrameIssue {
  const elsewhere = (CONTROL_REGISTRY.messageTypes as readonly string[]).includes(type)
    ? ' It is a Control 1.0 message, which only the relay sends to a browser.'
    : WIRE_VERSIONS.some((version) => WIRE_TABLES[version].byType.has(type))
      ? ' It belongs to another Wire version.'
      : '';
  return issue('FRAME_TYPE_UNKNOWN', '/type', `\`${type}\` is not a ${describe} type (expected one of ${known.join(', ')}).${elsewhere}`);
}

/** Validates a parsed value as a frame of `version`, then runs the optional `checks`. */
interface WireTable {
  document: SchemaDocumentKey;
  byType: ReadonlyMap<string, TypedValidator>;
  describe: string;
}
const byTypeMap = (table: Readonly<Record<string, TypedValidator>>): ReadonlyMap<string, TypedValidator> => new Map(Object.entries(table));
const wireTable = (version: WireVersion): WireTable => ({
  document: wireKey(version),
  byType: byTypeMap(VALIDATORS[wireKey(version)].byType),
  describe: `Wire ${version} frame`,
});
const CONTROL_BY_TYPE = byTypeMap(VALIDATORS['control-1.0'].byType);
// Looked up once per frame on the hot path, so built once here.
const WIRE_TABLES: Record<WireVersion, WireTable> = { '1.0': wireTable('1.0'), '1.1': wireTable('1.1'), '1.2': wireTable('1.2') };

export function validateWireFrame<V extends WireVersion>(
  version: V,
  value: unknown,
  checks?: ValidationChecks,
): Verdict<WireFrameOf[V]> {
  const table = WIRE_TABLES[version];
  const verdict = dispatchOnType<WireFrameOf[V]>(table.document, table.byType, value, table.describe);
  if (!verdict.ok || checks === undefined) return verdict;
  const extra = optionalChecks(version, verdict.value as unknown as Record<string, unknown> & { type: string }, checks);
  return extra.length > 0 ? { ok: false, issues: [...extra] } : verdict;
}

const NO_ISSUES: readonly FrameIssue[] = [];

function optionalChecks(version: WireVersion, frame: Record<string, unknown> & { type: string }, checks: ValidationChecks): readonly FrameIssue[] {
  let issues: FrameIssue[] | undefined;
  if (checks.methodParams && frame.type === 'runtime.request') {
    const params = validateMethodParams(version, frame['method'] as string, frame['params']);
    if (!params.ok) (issues ??= []).push(...params.issues);
  }
  if (checks.deferredRules) {
    const enabled = checks.deferredRules === true ? DEFERRED_RULES : checks.deferredRules;
    const deferred = checkDeferredRules(frame, enabled);
    if (deferred.length > 0) (issues ??= []).push(...deferred);
  }
  if (checks.interactionForms && frame.type === 'interaction.request' && frame['method'] === 'userInput.request') {
    const form = checkUserInputForm(frame['projection'] as Parameters<typeof checkUserInputForm>[0]);
    if (form.length > 0) (issues ??= []).push(...form);
  }
  return issues ?? NO_ISSUES;
}

// Looked up for every request (params) and every result, so built once and indexed without building
// a key string per call.
const methodTable = (part: 'params' | 'result'): Record<WireVersion, ReadonlyMap<string, TypedValidator>> => ({
  '1.0': byTypeMap(VALIDATORS[wireKey('1.0')][part]),
  '1.1': byTypeMap(VALIDATORS[wireKey('1.1')][part]),
  '1.2': byTypeMap(VALIDATORS[wireKey('1.2')][part]),
});
const METHOD_TABLES = { params: methodTable('params'), result: methodTable('result') };

function validateMethodPart(version: WireVersion, part: 'params' | 'result', method: string, value: unknown, basePath: string): Verdict<unknown> {
  const entry = METHOD_TABLES[part][version].get(method);
  if (!entry) return reject(issue('METHOD_UNKNOWN', '/method', `\`${method}\` is not a Wire ${version} request method.`));
  return runValidator(WIRE_TABLES[version].document, entry, value, basePath);
}

/** Validates request params against the method's schema in `version` (§4). */
export function validateMethodParams(version: WireVersion, method: string, params: unknown, basePath = '/params'): Verdict<unknown> {
  return validateMethodPart(version, 'params', method, params, basePath);
}

/** Validates a method's result against its schema in `version` (§4): every result is checked before it is sent. */
export function validateMethodResult(version: WireVersion, method: string, result: unknown, basePath = '/result'): Verdict<unknown> {
  return validateMethodPart(version, 'result', method, result, basePath);
}

/** Validates a Control 1.0 message (relay to browser only). */
export function validateControlMessage(value: unknown): Verdict<Control10.ControlMessage> {
  return dispatchOnType('control-1.0', CONTROL_BY_TYPE, value, 'Control 1.0 message');
}

/** Validates a browser session descriptor: its schema, then that `connectUrl` parses as a URL (§13). */
export function validateBrowserSessionDescriptor(value: unknown): Verdict<BrowserSession10.BrowserSessionDescriptor> {
  const verdict = runValidator<BrowserSession10.BrowserSessionDescriptor>(
    'browser-session-1.0',
    { validate: VALIDATORS['browser-session-1.0'].root, pointer: '#' },
    value,
    '',
  );
  if (!verdict.ok) return verdict;
  try {
    new URL(verdict.value.connectUrl);
  } catch {
    return reject(issue('FIELD_FORMAT', '/connectUrl', '`connectUrl` must parse as a URL.'));
  }
  return verdict;
}

/** Validates a raw Runtime event envelope, the input of the timeline projection. */
export function validateRuntimeEventEnvelope(value: unknown): Verdict<RuntimeTimeline.RuntimeEventEnvelope> {
  return runValidator('runtime-timeline', { validate: VALIDATORS['runtime-timeline'].root, pointer: '#' }, value, '');
}
