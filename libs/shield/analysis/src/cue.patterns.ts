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
import { prefilterKeys, StartTable, type Span, type WordStarts } from './cue.prefilter';
import { compileCues, foldPattern, quoteCue, type NormalizedText } from './text.normalizer';

const LEXICONS = [EN_CUES, DE_CUES, ES_CUES, FR_CUES];

export const CUES: Readonly<Record<CueClass, RegExp>> = Object.fromEntries(
  CUE_CLASSES.map((cls) => [cls, compileCues(LEXICONS.flatMap((lexicon) => lexicon[cls]))]),
) as Record<CueClass, RegExp>;

const KEYS: Readonly<Record<CueClass, readonly (readonly string[][])[] | undefined>> = Object.fromEntries(
  CUE_CLASSES.map((cls) => [cls, prefilterKeys(LEXICONS.flatMap((lexicon) => lexicon[cls]).map(foldPattern))]),
) as Record<CueClass, readonly (readonly string[][])[] | undefined>;

/** Each class with the `y` flag, tried only at the word starts where it may begin (`WordStarts.exec`). */
const STICKY: Readonly<Record<CueClass, RegExp>> = Object.fromEntries(CUE_CLASSES.map((cls) => [cls, new RegExp(CUES[cls].source, 'y')])) as Record<CueClass, RegExp>;
const LEADING = new Map<CueClass, readonly number[]>(CUE_CLASSES.map((cls, index) => [cls, [index]]));
const STARTS = new StartTable(CUE_CLASSES.map((cls) => KEYS[cls]));

function findAtStarts(starts: WordStarts, text: string, cls: CueClass): Span | null {
  return starts.find(text, LEADING.get(cls) ?? [], CUES[cls], STICKY[cls]);
}

/**
 * A pattern composed of cue classes ("a request verb, then secret data within the sentence"), every match of which
 * begins with a match of one of its `leading` classes: it is tried only at the word starts where one of them may begin,
 * with the same result as an unanchored scan.
 */
export class CuePattern {
  private readonly whole: RegExp;
  private readonly sticky: RegExp;
  private readonly leading: readonly number[];

  constructor(source: string, leading: readonly CueClass[]) {
    this.whole = new RegExp(source);
    this.sticky = new RegExp(source, 'y');
    this.leading = leading.map((cls) => CUE_CLASSES.indexOf(cls));
  }

  /** The first match in the scanner's text. */
  exec(scanner: CueScanner): RegExpExecArray | null {
    return scanner.starts().exec(scanner.source.text, this.leading, this.whole, this.sticky);
  }
}

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
  private wordStarts: WordStarts | undefined;

  constructor(readonly source: NormalizedText) {}

  find(cls: CueClass): CueHit | undefined {
    const known = this.hits.get(cls);
    if (known !== undefined) return known ?? undefined;
    const m = findAtStarts(this.starts(), this.source.text, cls);
    const hit = m ? { index: m.index, end: m.end, quote: quoteCue(this.source, m.index, m.end) } : null;
    this.hits.set(cls, hit);
    return hit ?? undefined;
  }

  /** The text's word starts, read once. */
  starts(): WordStarts {
    this.wordStarts ??= STARTS.startsOf(this.source.text);
    return this.wordStarts;
  }

  has(cls: CueClass): boolean {
    return this.find(cls) !== undefined;
  }
}

/** Whether a short case item (a fact, an evidence summary, a policy) carries the cue; no quoting. */
export function itemHas(text: string, cls: CueClass): boolean {
  return findAtStarts(STARTS.startsOf(text), text, cls) !== null;
}
