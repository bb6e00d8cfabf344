/**
 * A bounded reader for the Shield's inputs (§2-§7), collecting every issue rather than stopping at the
 * first. It reads only the fields an input defines, at the fixed depth the input has, so a value nested
 * a million deep is refused at the first level that expects a string, without recursion; lists are read
 * up to their maximum only, and at most MAX_SHIELD_ISSUES issues are kept, so a huge input costs little.
 *
 * Strings are trimmed before their bounds are checked (§2); a field that is absent (or `undefined`)
 * falls back to its default or is left out; `null` is a wrong type (§2: optional fields are omitted).
 */
import { isShieldId } from '../shield-ids';
import { codePointLength, hasLoneSurrogate } from './code-point-length';
import { MAX_SHIELD_ISSUES, pointerTo, type ShieldIssue, type ShieldIssueCode } from './shield-issue';

export type InputRecord = Readonly<Record<string, unknown>>;

export interface TextBounds {
  min: number;
  max?: number;
  /** §2: trimmed before bounds, except `agentId`. */
  trim?: boolean;
}

function isPlainObject(value: unknown): value is InputRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export class InputReader {
  readonly issues: ShieldIssue[] = [];

  report(code: ShieldIssueCode, path: string, message: string): void {
    if (this.issues.length > MAX_SHIELD_ISSUES) return;
    if (this.issues.length === MAX_SHIELD_ISSUES) {
      this.issues.push({ code: 'SHIELD_TOO_MANY_ISSUES', path: '', message: `Stopped after ${MAX_SHIELD_ISSUES} issues; fix these and submit again.` });
      return;
    }
    this.issues.push({ code, path, message });
  }

  /** A JSON object with only `allowed` keys; unknown keys are reported, one issue each. */
  object(value: unknown, path: string, label: string, allowed: readonly string[]): InputRecord | undefined {
    if (!isPlainObject(value)) {
      this.report('SHIELD_FIELD_TYPE', path, `${label} must be a JSON object.`);
      return undefined;
    }
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key) || allowed.includes(key)) continue;
      this.report('SHIELD_FIELD_UNKNOWN', pointerTo(path, key), `This field is not part of ${label}; remove it. Allowed: ${allowed.join(', ')}.`);
      if (this.issues.length > MAX_SHIELD_ISSUES) break;
    }
    return value;
  }

  /** The field's value, or undefined when it is absent. */
  field(record: InputRecord, key: string): unknown {
    return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
  }

  required(record: InputRecord, key: string, path: string, what: string): unknown {
    const value = this.field(record, key);
    if (value === undefined) this.report('SHIELD_FIELD_REQUIRED', pointerTo(path, key), `"${key}" is required: ${what}.`);
    return value;
  }

  /** A string within bounds, trimmed unless `trim: false`. */
  text(value: unknown, path: string, label: string, bounds: TextBounds): string | undefined {
    if (typeof value !== 'string') {
      this.report('SHIELD_FIELD_TYPE', path, `${label} must be a string.`);
      return undefined;
    }
    if (hasLoneSurrogate(value)) {
      this.report('SHIELD_STRING_MALFORMED', path, `${label} holds an unpaired UTF-16 surrogate; send valid Unicode text.`);
      return undefined;
    }
    const text = bounds.trim === false ? value : value.trim();
    const after = bounds.trim === false ? '' : ' after trimming surrounding spaces';
    // A string twice as long as the bound in code units is too long in code points too: no count needed.
    const length = bounds.max !== undefined && text.length > bounds.max * 2 ? Infinity : codePointLength(text);
    if (length < bounds.min) {
      this.report('SHIELD_FIELD_TOO_SHORT', path, `${label} must have at least ${bounds.min} character${bounds.min === 1 ? '' : 's'}${after}.`);
      return undefined;
    }
    if (bounds.max !== undefined && length > bounds.max) {
      this.report('SHIELD_FIELD_TOO_LONG', path, `${label} must have at most ${bounds.max} characters${after}; shorten it.`);
      return undefined;
    }
    return text;
  }

  oneOf<T extends string>(value: unknown, path: string, label: string, values: readonly T[]): T | undefined {
    if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
    if (typeof value !== 'string') this.report('SHIELD_FIELD_TYPE', path, `${label} must be a string, one of: ${values.join(', ')}.`);
    else this.report('SHIELD_FIELD_ENUM', path, `${label} must be one of: ${values.join(', ')}.`);
    return undefined;
  }

  boolean(value: unknown, path: string, label: string): boolean | undefined {
    if (typeof value === 'boolean') return value;
    this.report('SHIELD_FIELD_TYPE', path, `${label} must be true or false.`);
    return undefined;
  }

  id(value: unknown, path: string, label: string): string | undefined {
    if (typeof value !== 'string') {
      this.report('SHIELD_FIELD_TYPE', path, `${label} must be a string (a UUID).`);
      return undefined;
    }
    if (!isShieldId(value)) {
      this.report('SHIELD_ID_INVALID', path, `${label} must be a UUID (8-4-4-4-12 hex digits, version 1-8, variant 8, 9, a or b); leave it out to have one generated.`);
      return undefined;
    }
    return value;
  }

  /**
   * A list of at most `max` items, each read by `item`; too long a list is reported and only its first
   * `max` items are read. Undefined when the value is not a list or any item was refused.
   */
  list<T>(value: unknown, path: string, label: string, max: number, item: (value: unknown, path: string) => T | undefined): T[] | undefined {
    if (!Array.isArray(value)) {
      this.report('SHIELD_FIELD_TYPE', path, `${label} must be a JSON array.`);
      return undefined;
    }
    let complete = true;
    if (value.length > max) {
      this.report('SHIELD_LIST_TOO_LONG', path, `${label} may hold at most ${max} items; send fewer.`);
      complete = false;
    }
    const items: T[] = [];
    const count = Math.min(value.length, max);
    for (let index = 0; index < count && this.issues.length <= MAX_SHIELD_ISSUES; index += 1) {
      const read = item(value[index], pointerTo(path, index));
      if (read === undefined) complete = false;
      else items.push(read);
    }
    return complete ? items : undefined;
  }
}
