/**
 * The compiled cue patterns: one pattern per cue class, covering English, German, Spanish and French at once (issue 9:
 * "at least English, German, Spanish and French"). Compiled once at module load, never per call, so a message is
 * scanned once per class however many languages there are.
 */
import { DE_CUES } from './cue-lexicon.de';
import { EN_CUES } from './cue-lexicon.en';
import { ES_CUES } from './cue-lexicon.es';
import { FR_CUES } from './cue-lexicon.fr';
import { CUE_CLASSES, type CueClass } from './cue-lexicon.types';
import { mayMatch, prefilterKeys, wordPrefixes } from './cue.prefilter';
import { compileCues, foldPattern, quoteCue, type NormalizedText } from './text.normalizer';

const LEXICONS = [EN_CUES, DE_CUES, ES_CUES, FR_CUES];

export const CUES: Readonly<Record<CueClass, RegExp>> = Object.fromEntries(
  CUE_CLASSES.map((cls) => [cls, compileCues(LEXICONS.flatMap((lexicon) => lexicon[cls]))]),
) as Record<CueClass, RegExp>;

const KEYS: Readonly<Record<CueClass, readonly (readonly string[][])[] | undefined>> = Object.fromEntries(
  CUE_CLASSES.map((cls) => [cls, prefilterKeys(LEXICONS.flatMap((lexicon) => lexicon[cls]).map(foldPattern))]),
) as Record<CueClass, readonly (readonly string[][])[] | undefined>;

/** Whether the class is skipped by the prefilter for some texts (for tests). */
export function isPrefiltered(cls: CueClass): boolean {
  return KEYS[cls] !== undefined;
}

/** A cue found in a text: where, and the short original quote (§12). */
export interface CueHit {
  readonly index: number;
  readonly end: number;
  readonly quote: string;
}

/** Lazily scans a normalised text for cue classes, at most once per class (the analyzer asks some classes twice). */
export class CueScanner {
  private readonly hits = new Map<CueClass, CueHit | null>();
  private prefixes: Set<string> | undefined;

  constructor(readonly source: NormalizedText) {}

  find(cls: CueClass): CueHit | undefined {
    const known = this.hits.get(cls);
    if (known !== undefined) return known ?? undefined;
    const keys = KEYS[cls];
    if (keys) {
      if (!mayMatch(keys, this.wordPrefixes())) {
        this.hits.set(cls, null);
        return undefined;
      }
    }
    const m = CUES[cls].exec(this.source.text);
    const hit = m ? { index: m.index, end: m.index + m[0].length, quote: quoteCue(this.source, m.index, m.index + m[0].length) } : null;
    this.hits.set(cls, hit);
    return hit ?? undefined;
  }

  /** The text's word prefixes (computed once), for other prefiltered pattern sets such as topics. */
  wordPrefixes(): Set<string> {
    this.prefixes ??= wordPrefixes(this.source.text);
    return this.prefixes;
  }

  has(cls: CueClass): boolean {
    return this.find(cls) !== undefined;
  }
}

/** Whether a short case item (a fact, an evidence summary, a policy) carries the cue; no quoting. */
export function itemHas(text: string, cls: CueClass): boolean {
  return CUES[cls].test(text);
}
