/**
 * @trustmesh/cards-documents: validation of every card kind the registry accepts (CARDS.md §1, §2, §4):
 * AI Card v1, the seed and final AI Catalog, A2A AgentCards (v0.3.0 and v1.0) and MCP server.json
 * (2025-12-11); all issues at once as `{path, code, severity, message}`; and the summary a registry
 * indexes. Pure TypeScript without I/O; runs in browsers and in Node.
 */
export { ALL_ISSUE_CODES, type DocumentIssue, type IssueCode } from './document.issue';
export { detectKind as detectDocumentKind, type CatalogForm, type DetectedKind, type DocumentKind } from './document-kind.detector';
export {
  validateDocument,
  DEFAULT_MAX_DOCUMENT_BYTES,
  type ValidateOptions,
  type ValidationResult,
} from './document.validator';
export { summarizeDocument, summarizeCatalogEntries, type CatalogEntrySummary, type DocumentSummary } from './document.summary';
export { sha256Digest } from './document.digest';
export { AI_CATALOG_MEDIA_TYPE, MAX_CATALOG_LEVELS } from './ai-catalog.validator';
export { a2aCardVersion, type A2aCardVersion } from './a2a-card.validator';
