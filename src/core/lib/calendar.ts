// RFC 3339 dates and times with real calendar rules: a month's length (leap years included), hours,
// minutes and seconds in range. `Date.parse` rolls 2023-02-29 over into March instead of refusing it.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:z|[+-](\d{2}):(\d{2}))$/i;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})t(.+)$/i;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** RFC 3339 full-date, with the month's real length (leap years included). */
export function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS[month - 1]!);
}

/** RFC 3339 full-time: a time zone is required; second 60 allows a leap second. */
export function isTime(value: string): boolean {
  const m = TIME.exec(value);
  if (!m) return false;
  if (Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3]) > 60) return false;
  return m[4] === undefined || (Number(m[4]) <= 23 && Number(m[5]) <= 59);
}

/** RFC 3339 date-time: a real calendar date, `T`, a full time with its zone. */
export function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  return m !== null && isDate(m[1]!) && isTime(m[2]!);
}
