/**
 * Money amounts in normalised text (SHIELD.md §9.4 claims about amounts, §9.1/§9.2 policy limits): "$1,234.56",
 * "1.234,56 €", "EUR 500", "48k", "2,5 Mio. EUR", "300 euros". The pattern runs on `normalizeText` output (lower case,
 * repeated letters collapsed, so "dollars" reads "dolars"); it is folded the same way at module load. One bounded
 * pattern, no nested quantifiers: linear on a 4000-character message.
 */
import { foldPattern } from './text.normalizer';

export interface Amount {
  readonly value: number;
  /** ISO-like code when the text names one (`usd`, `eur`, `gbp`, `chf`); undefined for a bare "48k". */
  readonly currency?: string;
  readonly start: number;
  readonly end: number;
}

const NUMBER = String.raw`\d{1,3}(?:[.,' ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
const SCALE = String.raw`k|m|mn|mio|million(?:s|en|es)?|millones|bn|mil`;
const SYMBOL = String.raw`us\$|\$|€|£|usd|eur|gbp|chf`;
const WORD_CURRENCY = String.raw`usd|eur|euros?|gbp|chf|dollars?|pounds?|francs?|pesos?|dolares|libras?`;

const AMOUNT = new RegExp(
  foldPattern(
    String.raw`(?:(${SYMBOL}) ?(${NUMBER})(?: ?(${SCALE})\b\.?)?)|(?:\b(${NUMBER})(?: ?(${SCALE})\b\.?)?(?: ?(${SYMBOL}|${WORD_CURRENCY})(?![a-z]))?)`,
  ),
  'g',
);

const CURRENCY_CODES: Record<string, string> = {
  $: 'usd',
  us$: 'usd',
  usd: 'usd',
  dolar: 'usd',
  dolars: 'usd',
  dolares: 'usd',
  '€': 'eur',
  eur: 'eur',
  euro: 'eur',
  euros: 'eur',
  '£': 'gbp',
  gbp: 'gbp',
  pound: 'gbp',
  pounds: 'gbp',
  libra: 'gbp',
  libras: 'gbp',
  chf: 'chf',
  franc: 'chf',
  francs: 'chf',
  peso: 'mxn',
  pesos: 'mxn',
};

function scaleOf(scale: string | undefined): number {
  if (!scale) return 1;
  if (scale === 'k' || scale === 'mil') return 1_000;
  if (scale === 'bn') return 1_000_000_000;
  return 1_000_000;
}

/** Reads "1.234,56", "1,234.56", "1 234", "2,5" as a number: the last separator followed by 1-2 digits is decimal. */
export function parseNumber(raw: string): number {
  const compact = raw.replace(/[' ]/g, '');
  const lastDot = compact.lastIndexOf('.');
  const lastComma = compact.lastIndexOf(',');
  const last = Math.max(lastDot, lastComma);
  if (last === -1) return Number(compact);
  const decimals = compact.length - last - 1;
  const isDecimal = decimals > 0 && decimals <= 2;
  const intPart = (isDecimal ? compact.slice(0, last) : compact).replace(/[.,]/g, '');
  const fraction = isDecimal ? compact.slice(last + 1) : '';
  return Number(fraction ? `${intPart}.${fraction}` : intPart);
}

/** Every amount with a currency or a scale ("48k"); bare numbers (order ids, years, days) are not amounts. */
export function findAmounts(text: string): Amount[] {
  const found: Amount[] = [];
  AMOUNT.lastIndex = 0;
  for (let m = AMOUNT.exec(text); m !== null; m = AMOUNT.exec(text)) {
    const symbol = m[1] ?? m[6];
    const scale = m[3] ?? m[5];
    if (!symbol && !scale) continue;
    if (!symbol && scale === 'm') continue; // "5 m" is a length more often than money
    const value = parseNumber(m[2] ?? m[4] ?? '0') * scaleOf(scale?.replace('.', ''));
    if (!Number.isFinite(value) || value <= 0) continue;
    const currency = symbol ? CURRENCY_CODES[symbol] : undefined;
    found.push(currency ? { value, currency, start: m.index, end: m.index + m[0].length } : { value, start: m.index, end: m.index + m[0].length });
    if (found.length >= 20) break;
  }
  return found;
}

export function sameAmount(a: number, b: number): boolean {
  return Math.abs(a - b) <= Math.max(0.01, Math.max(a, b) * 0.005);
}

// Hand-rolled grouping: `toLocaleString` costs more than the rest of an analysis.
function groupThousands(value: number, group: boolean): string {
  const cents = Math.round(value * 100);
  const whole = Math.floor(cents / 100).toString();
  const fraction = cents % 100;
  let grouped = '';
  for (let i = 0; i < whole.length; i++) {
    if (group && i > 0 && (whole.length - i) % 3 === 0) grouped += ',';
    grouped += whole.charAt(i);
  }
  return fraction === 0 ? grouped : `${grouped}.${fraction.toString().padStart(2, '0')}`;
}

/** "1,950 USD" for people; `group: false` gives "1950 USD", the digits as a record or a message writes them. */
export function formatAmount(amount: Amount, group = true): string {
  const value = groupThousands(amount.value, group);
  return amount.currency ? `${value} ${amount.currency.toUpperCase()}` : value;
}
