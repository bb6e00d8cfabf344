/**
 * Flags a candidate namespace that imitates a verified one (CARDS.md §5: "Look-alike ids flagged"; users ask for
 * anti-squatting). The registry shows the flag to reviewers and users; it never blocks on its own.
 *
 * Reasons, first match wins per verified namespace:
 * - `homograph`: non-Latin or accented letters (or their `xn--` form) that render like the verified name (`аcme` with a
 *   Cyrillic а);
 * - `confusable`: the same with ASCII tricks: digit/letter swaps (0/o, 1/l/i, 5/s) and pairs (rn/m, vv/w);
 * - `tld-swap`: the same registrable label under another public suffix. Decision: flagged even for legitimate sister
 *   domains (`acme.org` next to a verified `acme.com`): a reviewer clears it once; missing a squatter costs more;
 * - `separator`: the same letters with hyphens or dots inserted or removed (`acme-corp.com`, `ac.me.com`);
 * - `edit-distance`: one insertion, deletion, substitution or adjacent swap (Damerau) in the registrable label, under
 *   the same suffix; only for labels of 4+ characters, since 1 edit from a 3-letter name hits many honest domains;
 * - `embedded-domain`: the verified domain followed by `.` or `-` inside a longer name (`acme.com.login.net`).
 * Equal namespaces and subdomains of the verified namespace are the owner's own and never flagged.
 *
 * The registrable label is found with a small built-in list of multi-label public suffixes (not the full Public
 * Suffix List); a name under an unlisted multi-label suffix is compared by its second-level label.
 */
import { ASCII_LOOKALIKES, CONFUSABLE_TO_LATIN } from './confusables.table';
import { parseNamespace } from './namespace.parser';

export type LookalikeReason = 'homograph' | 'confusable' | 'tld-swap' | 'separator' | 'edit-distance' | 'embedded-domain';

export interface Lookalike {
  /** The verified namespace the candidate imitates. */
  readonly namespace: string;
  readonly reason: LookalikeReason;
}

const MULTI_LABEL_SUFFIXES = new Set([
  'co.uk', 'org.uk', 'ac.uk', 'gov.uk', 'me.uk', 'com.au', 'net.au', 'org.au', 'co.nz', 'co.jp', 'ne.jp', 'or.jp',
  'com.br', 'com.cn', 'com.mx', 'co.in', 'co.za', 'com.tr', 'co.kr', 'com.sg', 'com.hk', 'com.tw',
  'github.io', 'gitlab.io', 'pages.dev', 'vercel.app', 'netlify.app', 'herokuapp.com', 'appspot.com', 'azurewebsites.net',
]);
const MIN_EDIT_LABEL_LENGTH = 4;

interface Split {
  readonly full: string;
  readonly label: string;
  readonly suffix: string;
}

function split(unicode: string): Split {
  const labels = unicode.split('.');
  const lastTwo = labels.slice(-2).join('.');
  const suffixLength = labels.length > 2 && MULTI_LABEL_SUFFIXES.has(lastTwo) ? 2 : 1;
  return { full: unicode, label: labels[labels.length - suffixLength - 1] ?? '', suffix: labels.slice(-suffixLength).join('.') };
}

/** Folds a name to what it looks like: compatibility forms, accents and homoglyphs removed, ASCII tricks applied. */
export function lookalikeSkeleton(text: string): string {
  const folded = text.normalize('NFKC').toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
  let skeleton = Array.from(folded, (ch) => CONFUSABLE_TO_LATIN[ch] ?? ch).join('');
  for (const [pattern, replacement] of ASCII_LOOKALIKES) skeleton = skeleton.replace(pattern, replacement);
  return skeleton;
}

/** Optimal-string-alignment distance (Damerau-Levenshtein without repeated edits of one substring). */
export function damerauDistance(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  const rows: number[][] = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= s.length; i++) {
    const row = rows[i] ?? [];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(s.length, t.length);
}

function reasonFor(candidate: Split, hasNonAscii: boolean, verified: Split): LookalikeReason | null {
  const sameSuffix = candidate.suffix === verified.suffix;
  if (candidate.label !== verified.label && lookalikeSkeleton(candidate.label) === lookalikeSkeleton(verified.label)) {
    return hasNonAscii ? 'homograph' : 'confusable';
  }
  if (candidate.label === verified.label && !sameSuffix) return 'tld-swap';
  if (candidate.full.replace(/[-.]/g, '') === verified.full.replace(/[-.]/g, '')) return 'separator';
  if (sameSuffix && candidate.label.replace(/-/g, '') === verified.label.replace(/-/g, '')) return 'separator';
  if (sameSuffix && Array.from(verified.label).length >= MIN_EDIT_LABEL_LENGTH && damerauDistance(candidate.label, verified.label) === 1) return 'edit-distance';
  if (candidate.full.includes(`${verified.full}.`) || candidate.full.includes(`${verified.full}-`)) return 'embedded-domain';
  return null;
}

/**
 * Verified namespaces the candidate imitates, each with the first reason that matched. Input in any spelling
 * (U-labels, A-labels, any case); unparsable candidates or verified entries yield nothing.
 */
export function findLookalikes(candidate: string, verifiedNamespaces: readonly string[]): Lookalike[] {
  const parsed = parseNamespace(candidate);
  if (!parsed.ok) return [];
  const candidateSplit = split(parsed.unicode);
  const hasNonAscii = parsed.unicode !== parsed.namespace;
  const found: Lookalike[] = [];
  for (const entry of verifiedNamespaces) {
    const verified = parseNamespace(entry);
    if (!verified.ok) continue;
    if (parsed.namespace === verified.namespace || parsed.namespace.endsWith(`.${verified.namespace}`)) continue;
    const reason = reasonFor(candidateSplit, hasNonAscii, split(verified.unicode));
    if (reason) found.push({ namespace: verified.namespace, reason });
  }
  return found;
}
