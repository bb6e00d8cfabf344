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
import { mayEndSentence, prefilterKeys, StartTable, type Span, type WordStarts } from './cue.prefilter';
import { compileCues, foldPattern, quoteCue, type NormalizedText } from './text.normalizer';

const LEXICONS = [EN_CUES, DE_CUES, ES_CUES, FR_CUES];

export const CUES: Readonly<Record<CueClass, RegExp>> = Object.fromEntries(
  CUE_CLASSES.map((cls) => [cls, compileCues(LEXICONS.flatMap((lexicon) => lexicon[cls]))]),
) as Record<CueClass, RegExp>;

const KEYS: Readonly<Record<CueClass, readonly (readonly string[][])[] | undefined>> = Object.fromEntries(
  CUE_CLASSES.map((cls) => [cls, prefilterKeys(LEXICONS.flatMap((lexicon) => lexicon[cls]).map(foldPattern))]),
) as Record<CueClass, readonly (readonly string[][])[] | undefined>;

/** Each class with the `y` flag, tried only at the word starts where it may begin (`WordStarts.find`). */
const STICKY: readonly RegExp[] = CUE_CLASSES.map((cls) => new RegExp(CUES[cls].source, 'y'));
/** Each class with the `g` flag: a search from `lastIndex` finds the leftmost match at or after it. */
const GLOBAL: readonly RegExp[] = CUE_CLASSES.map((cls) => new RegExp(CUES[cls].source, 'g'));
const STARTS = new StartTable(CUE_CLASSES.map((cls) => KEYS[cls]));
const INDEX = new Map<CueClass, number>(CUE_CLASSES.map((cls, index) => [cls, index]));

function findAtStarts(starts: WordStarts, text: string, cls: CueClass): Span | null {
  const index = INDEX.get(cls) ?? 0;
  return starts.find(text, index, CUES[cls], STICKY[index] as RegExp);
}

/** Where the sentence around `index` ends: the first sentence end at or after it, or the end of the text. */
function sentenceEnd(text: string, index: number): number {
  for (let i = index; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46 || code === 63 || code === 33 || code === 10) return i;
  }
  return text.length;
}

/**
 * One alternative of a composed pattern; the cue classes one of which every match of it begins with, and, when it
 * ends with one, those one of which it ends with; `inSentence` when nothing between the two may be a sentence end
 * (`.`, `?`, `!`, a line feed), as in `[^.?!\n]{0,60}`.
 */
export interface CueBranch {
  readonly source: string;
  readonly leading: readonly CueClass[];
  readonly trailing?: readonly CueClass[];
  readonly inSentence?: boolean;
}

interface CompiledBranch {
  readonly sticky: RegExp;
  readonly leading: readonly number[];
  readonly trailing: readonly number[];
  /** The trailing class must start in the sentence the branch starts in: no part of the branch can cross its end. */
  readonly sentenceBound: boolean;
}

/**
 * A pattern composed of cue classes ("a request verb, then secret data within the sentence"), as the alternation of
 * its branches: the first branch that matches at the leftmost position where any does. It is tried only where a
 * leading class of a branch really matches, in order, and there only with the branches that class leads, so the
 * first success is the match an unanchored scan of the whole alternation would find. The costly part of a branch (a
 * gap of up to 100 characters, then a whole class tried at each of its positions) thus runs only where it can
 * succeed. Each branch is compiled on its own: V8 stops optimising a regex whose source passes 20 KiB, and the
 * alternation of two branches of a few large classes would pass it and run a hundred times slower.
 */
export class CuePattern {
  private readonly branches: readonly CompiledBranch[];
  private readonly leading: readonly number[];

  constructor(branches: readonly CueBranch[]) {
    const indices = (classes: readonly CueClass[]) => classes.map((cls) => INDEX.get(cls) ?? 0);
    this.branches = branches.map(({ source, leading, trailing = [], inSentence = false }) => ({
      sticky: new RegExp(source, 'y'),
      leading: indices(leading),
      trailing: indices(trailing),
      // Only when no match of a leading class can hold a sentence end either (read from the classes' sources).
      sentenceBound: inSentence && trailing.length > 0 && leading.every((cls) => !mayEndSentence(CUES[cls].source)),
    }));
    this.leading = [...new Set(this.branches.flatMap((branch) => branch.leading))];
  }

  /**
   * The first match in the scanner's text. A branch that ends with a class is tried only where that class matches
   * further on, within the same sentence when the branch cannot cross a sentence end: elsewhere the gap and the class
   * it would try at each of its positions cannot succeed.
   */
  exec(scanner: CueScanner): RegExpExecArray | null {
    const text = scanner.source.text;
    for (const index of scanner.matchStarts(this.leading)) {
      for (const { sticky, leading, trailing, sentenceBound } of this.branches) {
        if (!leading.some((cls) => scanner.matchesAt(cls, index))) continue;
        if (trailing.length > 0) {
          const last = sentenceBound ? sentenceEnd(text, index) : text.length;
          if (!trailing.some((cls) => scanner.matchesWithin(cls, index, last))) continue;
        }
        sticky.lastIndex = index;
        const m = sticky.exec(text);
        if (m) return m;
      }
    }
    return null;
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

/** A cue the scanner found; quoted when first read, since most hits only decide whether a detector fires. */
class ScannedCue implements CueHit {
  private quoted: string | undefined;

  constructor(
    private readonly source: NormalizedText,
    readonly index: number,
    readonly end: number,
  ) {}

  get quote(): string {
    this.quoted ??= quoteCue(this.source, this.index, this.end);
    return this.quoted;
  }
}

/** Lazily scans a normalised text for cue classes, at most once per class (the analyzer asks some classes twice). */
export class CueScanner {
  private readonly hits = new Map<CueClass, CueHit | null>();
  private wordStarts: WordStarts | undefined;
  /** Per class index, every position where the class matches (listed when a composed pattern first needs it). */
  private readonly starts: (readonly number[] | undefined)[] = [];

  constructor(readonly source: NormalizedText) {}

  find(cls: CueClass): CueHit | undefined {
    const known = this.hits.get(cls);
    if (known !== undefined) return known ?? undefined;
    const m = findAtStarts(this.wordStartsOf(), this.source.text, cls);
    const hit = m ? new ScannedCue(this.source, m.index, m.end) : null;
    this.hits.set(cls, hit);
    return hit ?? undefined;
  }

  has(cls: CueClass): boolean {
    return this.find(cls) !== undefined;
  }

  /** The positions where one of the classes (by index) matches, in order and each once. */
  matchStarts(classes: readonly number[]): readonly number[] {
    if (classes.length === 1) return this.matchStartsOf(classes[0] ?? 0);
    const merged = classes.flatMap((index) => this.matchStartsOf(index)).sort((a, b) => a - b);
    return merged.filter((at, i) => i === 0 || at !== merged[i - 1]);
  }

  /** Whether the class (by index) matches at `index` (once its match starts are listed). */
  matchesAt(cls: number, index: number): boolean {
    return this.matchStartsOf(cls).includes(index);
  }

  /** Whether the class (by index) matches at some position from `first` to `last`. */
  matchesWithin(cls: number, first: number, last: number): boolean {
    return this.matchStartsOf(cls).some((at) => at >= first && at <= last);
  }

  /** The text's word starts, read once. */
  private wordStartsOf(): WordStarts {
    this.wordStarts ??= STARTS.startsOf(this.source.text);
    return this.wordStarts;
  }

  /**
   * Every position where the class matches: a keyed class is tested at each word start where it may begin; an
   * unkeyed one is searched again from one past each match (a search finds the leftmost match at or after its start,
   * so none is skipped).
   */
  private matchStartsOf(index: number): readonly number[] {
    const known = this.starts[index];
    if (known) return known;
    const text = this.source.text;
    const list: number[] = [];
    if (STARTS.unkeyed[index]) {
      const global = GLOBAL[index] as RegExp;
      global.lastIndex = 0;
      for (let m = global.exec(text); m; m = global.exec(text)) {
        list.push(m.index);
        global.lastIndex = m.index + 1;
      }
    } else {
      const sticky = STICKY[index] as RegExp;
      for (const at of this.wordStartsOf().startsFor(index)) {
        sticky.lastIndex = at;
        if (sticky.test(text)) list.push(at);
      }
    }
    this.starts[index] = list;
    return list;
  }
}

/** Whether a short case item (a fact, an evidence summary, a policy) carries the cue; no quoting. */
export function itemHas(text: string, cls: CueClass): boolean {
  return findAtStarts(STARTS.startsOf(text), text, cls) !== null;
}
