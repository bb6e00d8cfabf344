/**
 * The label of this analyzer's logic, recorded as `generation.promptVersion` (SHIELD.md §8.2: "change it with the
 * logic"). Bump it whenever a rule, lexicon or threshold changes what an analysis says.
 */
export const SHIELD_ANALYZER_VERSION = 'trustmesh-shield-rules-3';
