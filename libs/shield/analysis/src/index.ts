/**
 * The Shield's deterministic analysis (SHIELD.md §9, issue 9): a pure function of the merged case, the consult input,
 * the case's earlier consultations and what the platform knows about the counterparty. Runs in a browser.
 */
export { analyzeCase } from './case.analyzer';
export { SHIELD_ANALYZER_VERSION } from './analyzer.version';
