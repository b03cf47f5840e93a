// Wall-clock texts from virtual time: the HTTP Date field (RFC 9110 IMF-fixdate, Go's http.TimeFormat) and the
// Common Log Format timestamp; always UTC, no time zones or leap seconds.

import { type CivilDate, civilFromDays } from '../../core/civil-date.ts';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

interface CivilTime extends CivilDate {
  readonly hours: number;
  readonly minutes: number;
  readonly seconds: number;
}

/** The civil date and time of day `epochMs` milliseconds after the epoch. */
function civil(epochMs: number): CivilTime {
  const totalSeconds = Math.floor(epochMs / 1000);
  const days = Math.floor(totalSeconds / 86400);
  const secondsOfDay = totalSeconds - days * 86400;
  return {
    ...civilFromDays(days),
    hours: Math.floor(secondsOfDay / 3600),
    minutes: Math.floor((secondsOfDay % 3600) / 60),
    seconds: secondsOfDay % 60,
  };
}

/** `Thu, 01 Jan 1970 00:00:00 GMT`. */
export function httpDate(epochMs: number): string {
  const t = civil(epochMs);
  return `${DAYS[t.weekday]}, ${two(t.day)} ${MONTHS[t.month - 1]} ${t.year} ${two(t.hours)}:${two(t.minutes)}:${two(t.seconds)} GMT`;
}

/** `01/Jan/1970:00:00:00 +0000`, the `%t` of the Common Log Format without its brackets. */
export function clfDate(epochMs: number): string {
  const t = civil(epochMs);
  return `${two(t.day)}/${MONTHS[t.month - 1]}/${t.year}:${two(t.hours)}:${two(t.minutes)}:${two(t.seconds)} +0000`;
}
