/**
 * Validation of the records the Shield writes (§3 case, §8 consultation, §9 analysis, §7 outcome) against
 * their schema documents, through the generated Ajv standalone validators (no schema is compiled at
 * runtime). Ajv's errors become the library's issues: a stable code, a JSON pointer to the exact place
 * (the missing or unknown key included) and a message that names the rule, never the value.
 */
import * as generated from '../generated/shield-records.validators';
import type { ShieldAnalysis, ShieldCase, ShieldConsultation, ShieldOutcome } from '../shield.types';
import { MAX_SHIELD_ISSUES, pointerTo, type ShieldIssue, type ShieldResult } from '../validation/shield-issue';
import type { CompiledRecordError, CompiledRecordValidator } from './compiled-record-validator';

const UUID_PATTERN_START = '^([0-9a-fA-F]{8}-';
const TIMESTAMP_PATTERN_START = '^(?:(?:\\d\\d[2468][048]';

function field(pointer: string): string {
  const last = pointer.slice(pointer.lastIndexOf('/') + 1).replaceAll('~1', '/').replaceAll('~0', '~');
  return pointer === '' ? 'the record' : /^\d+$/.test(last) ? `item ${pointer}` : `"${last}"`;
}

function issueOf(error: CompiledRecordError): ShieldIssue {
  const path = error.instancePath;
  const params = error.params;
  const name = field(path);
  switch (error.keyword) {
    case 'required': {
      const missing = String(params['missingProperty']);
      return { code: 'SHIELD_FIELD_REQUIRED', path: pointerTo(path, missing), message: `"${missing}" is required in ${field(path)}.` };
    }
    case 'additionalProperties':
      return { code: 'SHIELD_FIELD_UNKNOWN', path: pointerTo(path, String(params['additionalProperty'])), message: `${field(path)} defines no such field; remove it.` };
    case 'type':
      return { code: 'SHIELD_FIELD_TYPE', path, message: `${name} must be of JSON type ${String(params['type'])}.` };
    case 'minLength':
      return { code: 'SHIELD_FIELD_TOO_SHORT', path, message: `${name} must have at least ${String(params['limit'])} character(s).` };
    case 'maxLength':
      return { code: 'SHIELD_FIELD_TOO_LONG', path, message: `${name} must have at most ${String(params['limit'])} characters.` };
    case 'minItems':
      return { code: 'SHIELD_LIST_TOO_SHORT', path, message: `${name} must hold at least ${String(params['limit'])} item(s).` };
    case 'maxItems':
      return { code: 'SHIELD_LIST_TOO_LONG', path, message: `${name} may hold at most ${String(params['limit'])} items.` };
    case 'enum':
      return { code: 'SHIELD_FIELD_ENUM', path, message: `${name} must be one of: ${(params['allowedValues'] as unknown[]).join(', ')}.` };
    case 'const':
      return { code: 'SHIELD_FIELD_ENUM', path, message: `${name} must be ${JSON.stringify(params['allowedValue'])}.` };
    case 'minimum':
    case 'maximum':
      return { code: 'SHIELD_NUMBER_OUT_OF_RANGE', path, message: `${name} must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(params['limit'])}.` };
    case 'pattern': {
      const pattern = String(params['pattern']);
      if (pattern.startsWith(UUID_PATTERN_START)) return { code: 'SHIELD_ID_INVALID', path, message: `${name} must be a UUID of §2 (lowercase v4 for new ids).` };
      if (pattern.startsWith(TIMESTAMP_PATTERN_START)) {
        return { code: 'SHIELD_TIMESTAMP_INVALID', path, message: `${name} must be a UTC timestamp of a real date, as new Date().toISOString() writes it (§8.3).` };
      }
      return { code: 'SHIELD_DIGEST_INVALID', path, message: `${name} must be 43 base64url characters, SHA-256 without padding (§8.1).` };
    }
    default:
      return { code: 'SHIELD_FIELD_TYPE', path, message: `${name} does not satisfy the record's schema.` };
  }
}

function run<T>(validate: CompiledRecordValidator, record: unknown): ShieldResult<T> {
  if (validate(record)) return { ok: true, value: record as T };
  const errors = validate.errors ?? [];
  // A `pattern` and a `format` fail together for one value; the format is an annotation here.
  const issues = errors.filter((error) => error.keyword !== 'format').map(issueOf);
  if (issues.length > MAX_SHIELD_ISSUES) {
    issues.length = MAX_SHIELD_ISSUES;
    issues.push({ code: 'SHIELD_TOO_MANY_ISSUES', path: '', message: `Stopped after ${MAX_SHIELD_ISSUES} issues.` });
  }
  return { ok: false, issues };
}

export function validateShieldCase(record: unknown): ShieldResult<ShieldCase> {
  return run(generated.shieldCase, record);
}

export function validateShieldConsultation(record: unknown): ShieldResult<ShieldConsultation> {
  return run(generated.shieldConsultation, record);
}

export function validateShieldAnalysis(record: unknown): ShieldResult<ShieldAnalysis> {
  return run(generated.shieldAnalysis, record);
}

export function validateShieldOutcome(record: unknown): ShieldResult<ShieldOutcome> {
  return run(generated.shieldOutcome, record);
}
