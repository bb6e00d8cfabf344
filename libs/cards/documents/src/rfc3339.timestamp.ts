/**
 * RFC 3339 `date-time` (CDDL `tdate`) read strictly before `Date.parse` ever sees it (CARDS.md §3.7):
 * `Date.parse` accepts date-only text, missing offsets and impossible days, none of which a card may carry.
 */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Epoch milliseconds of an RFC 3339 date-time with an offset; undefined for anything else. */
export function parseRfc3339(text: string): number | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  // A leap second (:60) is allowed by RFC 3339 §5.7; Date.parse refuses it, so it is read as :59.
  if (hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const normalized = second === 60 ? text.replace(/^(.{17})60/, '$159') : text;
  const epoch = Date.parse(normalized.toUpperCase());
  return Number.isNaN(epoch) ? undefined : epoch;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
