/**
 * The cue classes the detectors combine (SHIELD.md §9.5: "a cue alone is not enough"). Each language lexicon lists
 * regex sources per class, written in plain lower case with accents as people type them; `cue.patterns.ts` folds and
 * compiles them once at module load. Sources must avoid upper-case escapes (`\W`, `\S`, `\D`) and nested quantifiers.
 */
export const CUE_CLASSES = [
  'timePressure',
  'consequence',
  'verificationCut',
  'exception',
  'secrecy',
  'injection',
  'splitAmount',
  'authorityFigure',
  'authorityAct',
  'threat',
  'pleading',
  'insult',
  'flattery',
  'loyalty',
  'benefitOffer',
  'scarcity',
  'changedDetails',
  'ownerClaim',
  'scopeAdd',
  'privilege',
  'socialProof',
  'requestVerb',
  'secretData',
  'internalData',
  'personalData',
  'promise',
  'opinion',
  'approvalClaim',
  'policyClaim',
  'identityClaim',
  'purchaseEvent',
  'notReceived',
  'negation',
  'requirement',
  'forbid',
  'permission',
  'expired',
  'callback',
  'deadline',
  'unreachable',
  'blame',
  'selfCorrection',
  'softener',
  'assumedAgreement',
  'eventClaim',
  'privateReason',
] as const;

export type CueClass = (typeof CUE_CLASSES)[number];

export type CueLexicon = Readonly<Record<CueClass, readonly string[]>>;
