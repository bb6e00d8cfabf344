/**
 * `specVersion` as "Major.Minor" (AI Card v1 §1.1 and AI Catalog §2.3 Versions): two non-negative integers
 * without leading zeros and with no patch part. Only major 1 is supported; a higher major is refused with a
 * message naming it, so a publisher knows this registry is behind rather than that the document is broken.
 */
import { childPointer, type IssueList } from './document.issue';
import { clip, type JsonObject } from './document-fields.reader';

export interface SpecVersion {
  major: number;
  minor: number;
}

export const SUPPORTED_MAJOR = 1;

const MAJOR_MINOR = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;

/** Reads `specVersion` of `document`; undefined (with an issue) unless it is a supported "1.x". */
export function readSpecVersion(document: JsonObject, path: string, issues: IssueList, what: string): SpecVersion | undefined {
  const at = childPointer(path, 'specVersion');
  const value = document['specVersion'];
  if (value === undefined) {
    issues.error(at, 'FIELD_MISSING', `"specVersion" is required (e.g. "1.0").`);
    return undefined;
  }
  if (typeof value !== 'string') {
    issues.error(at, 'SPEC_VERSION_INVALID', `"specVersion" must be a string "Major.Minor" such as "1.0", not ${value === null ? 'null' : typeof value}.`);
    return undefined;
  }
  const match = MAJOR_MINOR.exec(value);
  if (!match) {
    issues.error(at, 'SPEC_VERSION_INVALID', `"specVersion" must be "Major.Minor" with non-negative integers and no patch part (e.g. "1.0"), not "${clip(value)}".`);
    return undefined;
  }
  const version = { major: Number(match[1]), minor: Number(match[2]) };
  if (version.major !== SUPPORTED_MAJOR) {
    issues.error(at, 'SPEC_VERSION_UNSUPPORTED', `${what} major version ${version.major} ("${value}") is not supported; this registry reads major version ${SUPPORTED_MAJOR}.`);
    return undefined;
  }
  return version;
}
