/**
 * @trustmesh/cards-namespaces: namespaces (domains) of the card registry (CARDS.md §5 "Namespace = domain", look-alike
 * flags) and the namespace each kind of identifier belongs to. Pure TypeScript; runs in browsers and Node.
 */
export {
  parseNamespace,
  namespaceToUnicode,
  NAMESPACE_ISSUE_CODES,
  type NamespaceIssue,
  type NamespaceIssueCode,
  type NamespaceResult,
} from './namespace.parser';
export { namespaceOfIdentifier, isWithinNamespace, type IdentifierKind, type IdentifierNamespaceResult } from './identifier-namespace.resolver';
export { findLookalikes, lookalikeSkeleton, damerauDistance, type Lookalike, type LookalikeReason } from './lookalike.detector';
export { punycodeEncode, punycodeDecode } from './punycode.codec';
