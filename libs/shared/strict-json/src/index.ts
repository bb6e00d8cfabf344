/**
 * @trustmesh/shared-strict-json: `JSON.parse` that refuses what `JSON.parse` lets through silently:
 * duplicate keys, nesting deeper than a bound, and (on request) lone surrogates and unsafe integers.
 * Pure TypeScript with no I/O; runs in browsers and in Node.
 */
export {
  parseStrictJson,
  parseStrictJsonOrThrow,
  StrictJsonError,
  STRICT_JSON_ISSUE_CODES,
  DEFAULT_MAX_JSON_DEPTH,
  type StrictJsonIssue,
  type StrictJsonIssueCode,
  type StrictJsonOptions,
  type StrictJsonResult,
} from './strict-json.reader';
export { exceedsJsonDepth } from './value-depth';
