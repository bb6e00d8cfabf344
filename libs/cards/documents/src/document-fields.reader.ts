/**
 * Field-level checks every validator shares: presence and JSON type of a member, closed maps, absolute
 * URIs (RFC 3986 §4.3, compared as written, never through `new URL()`: CARDS.md §3.7) and RFC 3339
 * timestamps. Each check appends issues to one `IssueList` and returns the value when it has the right
 * type, so a validator reads as a list of rules.
 */
import { childPointer, type IssueList } from './document.issue';
import { parseRfc3339 } from './rfc3339.timestamp';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;

/** An absolute URI: a scheme, a colon and a non-empty rest without whitespace. */
export function isAbsoluteUri(text: string): boolean {
  return ABSOLUTE_URI.test(text) && !hasControlCharacter(text);
}

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export function isHttpsUrl(text: string): boolean {
  return /^https:\/\/[^/?#\s]+/i.test(text) && isAbsoluteUri(text);
}

/** What one member must be; `label` names the member in messages when its key is not telling enough. */
export class FieldReader {
  constructor(readonly issues: IssueList) {}

  /** The object at `path`, or undefined with a FIELD_TYPE error. */
  object(value: unknown, path: string, what: string): JsonObject | undefined {
    if (isObject(value)) return value;
    this.issues.error(path, 'FIELD_TYPE', `${what} must be a JSON object.`);
    return undefined;
  }

  /** A member that must be present; reports FIELD_MISSING when it is not. */
  present(parent: JsonObject, key: string, path: string): unknown {
    if (parent[key] === undefined) {
      this.issues.error(childPointer(path, key), 'FIELD_MISSING', `"${key}" is required.`);
      return undefined;
    }
    return parent[key];
  }

  string(parent: JsonObject, key: string, path: string, required: boolean, nonEmpty = false): string | undefined {
    const value = required ? this.present(parent, key, path) : parent[key];
    if (value === undefined) return undefined;
    const at = childPointer(path, key);
    if (typeof value !== 'string') {
      this.issues.error(at, 'FIELD_TYPE', `"${key}" must be a string.`);
      return undefined;
    }
    if (nonEmpty && value.length === 0) {
      this.issues.error(at, 'FIELD_EMPTY', `"${key}" must not be empty.`);
      return undefined;
    }
    return value;
  }

  boolean(parent: JsonObject, key: string, path: string, required: boolean): boolean | undefined {
    const value = required ? this.present(parent, key, path) : parent[key];
    if (value === undefined) return undefined;
    if (typeof value === 'boolean') return value;
    this.issues.error(childPointer(path, key), 'FIELD_TYPE', `"${key}" must be true or false.`);
    return undefined;
  }

  array(parent: JsonObject, key: string, path: string, required: boolean): unknown[] | undefined {
    const value = required ? this.present(parent, key, path) : parent[key];
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return value;
    this.issues.error(childPointer(path, key), 'FIELD_TYPE', `"${key}" must be an array.`);
    return undefined;
  }

  /** An array whose items are all strings; a wrong item is reported at its own index. */
  stringArray(parent: JsonObject, key: string, path: string, required: boolean): string[] | undefined {
    const items = this.array(parent, key, path, required);
    if (!items) return undefined;
    const at = childPointer(path, key);
    let ok = true;
    items.forEach((item, index) => {
      if (typeof item !== 'string') {
        ok = false;
        this.issues.error(childPointer(at, index), 'FIELD_TYPE', `Every item of "${key}" must be a string.`);
      }
    });
    return ok ? (items as string[]) : undefined;
  }

  /** An optional or required member that must be an object. */
  member(parent: JsonObject, key: string, path: string, required: boolean): JsonObject | undefined {
    const value = required ? this.present(parent, key, path) : parent[key];
    if (value === undefined) return undefined;
    return this.object(value, childPointer(path, key), `"${key}"`);
  }

  /** A string member that must be an absolute URI. */
  uri(parent: JsonObject, key: string, path: string, required: boolean): string | undefined {
    const value = this.string(parent, key, path, required);
    if (value === undefined) return undefined;
    if (!isAbsoluteUri(value)) {
      this.issues.error(childPointer(path, key), 'URI_NOT_ABSOLUTE', `"${key}" must be an absolute URI (scheme:rest), not "${clip(value)}".`);
      return undefined;
    }
    return value;
  }

  /** A string member that must be an https: URL (served content, fetched by the registry). */
  httpsUrl(parent: JsonObject, key: string, path: string, required: boolean): string | undefined {
    const value = this.uri(parent, key, path, required);
    if (value === undefined) return undefined;
    if (!isHttpsUrl(value)) {
      this.issues.error(childPointer(path, key), 'URL_NOT_HTTPS', `"${key}" must be an https: URL, not "${clip(value)}".`);
      return undefined;
    }
    return value;
  }

  /** A string member that must be an RFC 3339 date-time with an offset; returns its instant. */
  timestamp(parent: JsonObject, key: string, path: string, required: boolean): number | undefined {
    const value = this.string(parent, key, path, required);
    if (value === undefined) return undefined;
    const instant = parseRfc3339(value);
    if (instant === undefined) {
      this.issues.error(
        childPointer(path, key),
        'TIMESTAMP_INVALID',
        `"${key}" must be an RFC 3339 date-time with an offset (e.g. 2026-01-31T12:00:00Z), not "${clip(value)}".`,
      );
    }
    return instant;
  }

  /** A string member limited to `allowed`. */
  oneOf(parent: JsonObject, key: string, path: string, required: boolean, allowed: readonly string[]): string | undefined {
    const value = this.string(parent, key, path, required);
    if (value === undefined) return undefined;
    if (allowed.includes(value)) return value;
    this.issues.error(childPointer(path, key), 'VALUE_NOT_ALLOWED', `"${key}" must be one of ${allowed.map((a) => `"${a}"`).join(', ')}.`);
    return undefined;
  }

  /** A string member no longer than `max` UTF-16 code units (and at least `min`). */
  length(parent: JsonObject, key: string, path: string, required: boolean, min: number, max: number): string | undefined {
    const value = this.string(parent, key, path, required);
    if (value === undefined) return undefined;
    if (value.length < min) this.issues.error(childPointer(path, key), 'FIELD_EMPTY', `"${key}" must have at least ${min} character(s).`);
    else if (value.length > max) this.issues.error(childPointer(path, key), 'FIELD_TOO_LONG', `"${key}" must have at most ${max} characters.`);
    else return value;
    return undefined;
  }

  /**
   * Closed maps: members outside `known` are errors, or warnings when `lenient` (a later minor version of
   * the same major may add members).
   */
  closed(object: JsonObject, path: string, known: readonly string[], lenient: boolean, what: string): void {
    for (const key of Object.keys(object)) {
      if (known.includes(key)) continue;
      this.issues.report(
        lenient,
        childPointer(path, key),
        'FIELD_UNKNOWN',
        lenient ? `"${key}" is not a member of ${what} in this version; it is kept but not interpreted.` : `"${key}" is not a member of ${what}.`,
      );
    }
  }
}

/** Values quoted back in messages are clipped so a hostile document cannot flood a report. */
export function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
