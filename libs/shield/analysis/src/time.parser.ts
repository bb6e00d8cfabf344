/**
 * Dates, elapsed times and time windows in normalised text, for claims about when something happened (§9.4) and for
 * policy windows such as "refunds within 30 days" (§9.1 policy conflicts). "Now" is never the clock: the analysis is a
 * pure function, so elapsed days count to the case's `updatedAt` (the moment of this consultation's merge, §4).
 */
import { foldPattern } from './text.normalizer';

const UNIT = String.raw`(days?|weeks?|months?|years?|tag|tage|tagen|woche|wochen|monat|monate|monaten|jahr|jahre|jahren|dias?|semanas?|mes|meses|anos?|jours?|semaines?|mois|ans?)`;

const WINDOW = new RegExp(
  foldPattern(
    String.raw`\b(?:within|in the first|up to|no later than|not older than|innerhalb(?: von)?|binnen|bis zu|dentro de(?: los)?|en un plazo de|en los primeros|dans (?:les|un delai de)|sous|en moins de) (\d{1,4}) ${UNIT}\b`,
  ),
);
const ELAPSED = new RegExp(
  foldPattern(
    String.raw`\b(\d{1,4}) ${UNIT} ago\b|\bvor (\d{1,4}) ${UNIT}\b|\bhace (\d{1,4}) ${UNIT}\b|\bil y a (\d{1,4}) ${UNIT}\b|\bover (\d{1,4}) ${UNIT} ago\b`,
  ),
);

const MONTHS: readonly (readonly string[])[] = [
  ['january', 'jan', 'januar', 'janer', 'enero', 'janvier'],
  ['february', 'feb', 'februar', 'febrero', 'fevrier'],
  ['march', 'mar', 'marz', 'maerz', 'marzo', 'mars'],
  ['april', 'apr', 'abril', 'avril'],
  ['may', 'mai', 'mayo'],
  ['june', 'jun', 'juni', 'junio', 'juin'],
  ['july', 'jul', 'juli', 'julio', 'juillet'],
  ['august', 'aug', 'agosto', 'aout'],
  ['september', 'sep', 'sept', 'septiembre', 'setiembre', 'septembre'],
  ['october', 'oct', 'oktober', 'okt', 'octubre', 'octobre'],
  ['november', 'nov', 'noviembre', 'novembre'],
  ['december', 'dec', 'dezember', 'dez', 'diciembre', 'decembre'],
];
const MONTH_INDEX = new Map<string, number>();
MONTHS.forEach((names, index) => names.forEach((name) => MONTH_INDEX.set(foldPattern(name), index)));
const MONTH_ALT = [...MONTH_INDEX.keys()].sort((a, b) => b.length - a.length).join('|');

const DATE = new RegExp(
  String.raw`\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b|\b(\d{1,2})(?:st|nd|rd|th|er|\.)?(?: de)? (${MONTH_ALT})\.?(?:,? (?:de )?(\d{4}))?\b|\b(${MONTH_ALT})\.? (\d{1,2})(?:st|nd|rd|th)?\b(?:,? (\d{4}))?`,
);

const DAY_MS = 86_400_000;

function unitDays(unit: string): number {
  if (/^(w|sem)/.test(unit)) return 7;
  if (/^(mo|mes|moi)/.test(unit)) return 30;
  if (/^(y|j|an)/.test(unit) && !/^jour/.test(unit)) return 365;
  return 1;
}

/** Policy window in days ("within 30 days" → 30), or undefined. */
export function findWindowDays(text: string): number | undefined {
  const m = WINDOW.exec(text);
  return m ? Number(m[1]) * unitDays(m[2] ?? 'day') : undefined;
}

export interface TimeMention {
  /** Days between the mentioned moment and the reference time (positive: in the past). */
  readonly daysAgo: number;
  readonly start: number;
  readonly end: number;
  /** A calendar day (`yyyy-mm-dd`) when the text named one. */
  readonly day?: string;
}

function utcDay(year: number, month: number, day: number): number | undefined {
  if (month < 0 || month > 11 || day < 1 || day > 31) return undefined;
  const t = Date.UTC(year, month, day);
  return new Date(t).getUTCDate() === day ? t : undefined;
}

/** The first elapsed-time or calendar-date mention, measured against `referenceMs`. */
export function findTimeMention(text: string, referenceMs: number): TimeMention | undefined {
  const e = ELAPSED.exec(text);
  if (e) {
    const n = Number(e[1] ?? e[3] ?? e[5] ?? e[7] ?? e[9]);
    const unit = e[2] ?? e[4] ?? e[6] ?? e[8] ?? e[10];
    return { daysAgo: n * unitDays(unit ?? 'day'), start: e.index, end: e.index + e[0].length };
  }
  const d = DATE.exec(text);
  if (!d) return undefined;
  const refYear = new Date(referenceMs).getUTCFullYear();
  let t: number | undefined;
  let yearGiven = true;
  if (d[1]) t = utcDay(Number(d[1]), Number(d[2]) - 1, Number(d[3]));
  else if (d[4]) {
    const a = Number(d[4]);
    const b = Number(d[5]);
    // Day first (European) unless that cannot be a date; US month-first when the second number exceeds 12.
    t = b > 12 ? utcDay(Number(d[6]), a - 1, b) : utcDay(Number(d[6]), b - 1, a);
  } else if (d[8]) {
    yearGiven = d[9] !== undefined;
    t = utcDay(d[9] ? Number(d[9]) : refYear, MONTH_INDEX.get(d[8]) ?? -1, Number(d[7]));
  } else if (d[10]) {
    yearGiven = d[12] !== undefined;
    t = utcDay(d[12] ? Number(d[12]) : refYear, MONTH_INDEX.get(d[10]) ?? -1, Number(d[11]));
  }
  if (t === undefined || !Number.isFinite(referenceMs)) return undefined;
  if (!yearGiven && t > referenceMs + DAY_MS) t = Date.UTC(new Date(t).getUTCFullYear() - 1, new Date(t).getUTCMonth(), new Date(t).getUTCDate());
  return { daysAgo: Math.floor((referenceMs - t) / DAY_MS), start: d.index, end: d.index + d[0].length, day: new Date(t).toISOString().slice(0, 10) };
}
