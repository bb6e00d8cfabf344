/**
 * Keeps every analysis inside the bounds of `shield_analysis.schema.json` (SHIELD.md §9): strings are trimmed (§2
 * trims before length checks) and cut at a word boundary with an ellipsis, lists are capped, empty entries dropped.
 */
const ELLIPSIS = '…';
const SPACE_RUN = /\s+/g;
const INNER_SPACE_RUN = /\s\s|[\t\n\r\f\v]/;
// Any Unicode white space (U+3000, U+2028 as well as ASCII), as `trim` removes it at either end.
const SPACE = /\s/;

function needsCleaning(text: string): boolean {
  // The ends are tested as characters: `\s$` would try every position of a long text.
  return SPACE.test(text.charAt(0)) || SPACE.test(text.charAt(text.length - 1)) || INNER_SPACE_RUN.test(text);
}

/** Cuts `text` to at most `max` characters, at a word boundary when one is near, never leaving it empty. */
export function clip(text: string, max: number): string {
  const clean = needsCleaning(text) ? text.replace(SPACE_RUN, ' ').trim() : text;
  if (clean.length <= max) return clean.length > 0 ? clean : '-';
  const room = max - ELLIPSIS.length;
  let cut = clean.slice(0, room);
  const space = cut.lastIndexOf(' ');
  if (space > room * 0.6) cut = cut.slice(0, space);
  // Never split a surrogate pair.
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}${ELLIPSIS}`;
}

export function clipList(items: readonly string[], maxItems: number, maxChars: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (item.trim().length === 0) continue;
    const clipped = clip(item, maxChars);
    if (seen.has(clipped)) continue;
    seen.add(clipped);
    out.push(clipped);
    if (out.length >= maxItems) break;
  }
  return out;
}
