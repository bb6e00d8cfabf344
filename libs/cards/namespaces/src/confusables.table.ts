/**
 * The homoglyphs the look-alike check folds to Latin (CARDS.md §5 "Look-alike ids flagged"). A hand-picked subset of
 * Unicode's confusables.txt (UTS #39): the Cyrillic, Greek, Armenian and Latin-extension letters that render like a
 * lowercase Latin letter in common fonts. Accents, fullwidth and compatibility forms are handled by NFKC/NFD in the
 * skeleton, not here.
 */
export const CONFUSABLE_TO_LATIN: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a', е: 'e', һ: 'h', і: 'i', ї: 'i', ј: 'j', к: 'k', ӏ: 'l', о: 'o', р: 'p', с: 'c', ѕ: 's', у: 'y', ү: 'y', х: 'x',
  ԁ: 'd', ԛ: 'q', ԝ: 'w', ɡ: 'g', ԍ: 'g', ь: 'b', п: 'n', г: 'r', т: 't', м: 'm', в: 'b', н: 'h',
  // Greek
  α: 'a', β: 'b', γ: 'y', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ω: 'w', ς: 'c',
  // Armenian
  օ: 'o', ս: 'u', զ: 'q', հ: 'h', ո: 'n', ց: 'g',
  // Latin extensions that NFD does not decompose
  ı: 'i', ȷ: 'j', ɑ: 'a', ł: 'l', ŀ: 'l', ø: 'o', đ: 'd', ħ: 'h', ƅ: 'b', ɩ: 'i', ʟ: 'l', ɪ: 'i', ᴏ: 'o', ß: 'ss',
};

/** ASCII sequences that read as another letter: digit/letter swaps and letter pairs (`rn` → `m`, `vv` → `w`). */
export const ASCII_LOOKALIKES: readonly (readonly [RegExp, string])[] = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
  [/0/g, 'o'],
  [/[1i|]/g, 'l'],
  [/5/g, 's'],
];
