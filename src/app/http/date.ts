// Wall-clock texts from virtual time: the HTTP Date field (RFC 9110 IMF-fixdate, Go's http.TimeFormat) and the
// Common Log Format timestamp; always UTC, no time zones or leap seconds.

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

interface CivilTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly weekday: number;
  readonly hours: number;
  readonly minutes: number;
  readonly seconds: number;
}

/** Days since 1970-01-01 to a civil date (Howard Hinnant's days_from_civil inverse). */
function civil(epochMs: number): CivilTime {
  const totalSeconds = Math.floor(epochMs / 1000);
  const days = Math.floor(totalSeconds / 86400);
  const secondsOfDay = totalSeconds - days * 86400;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return {
    year,
    month,
    day,
    weekday: (((days % 7) + 7 + 4) % 7) | 0,
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
