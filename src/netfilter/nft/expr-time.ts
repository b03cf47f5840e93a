// nft 1.0.6's wall-clock meta keys (meta.c: date_type, day_type, hour_type; the kernel's nft_meta_get_eval_time):
// `meta time "2024-01-01 10:00"` (ns since the epoch), `meta day "Monday"` (0 is Sunday), `meta hour "17:00"`
// (seconds since midnight): reading them as nft does and listing them as nft does (expr/clock.ts reads them off
// the virtual clock).
// Not supported: time zones (nft reads and prints local time; packetlab's only zone is UTC, like this machine),
// strptime's odd partial reads other than a date followed by text it cannot read (nft keeps the date).

import { civilFromDays, daysFromCivil } from '../../core/civil-date.ts';
import type { RawValue } from './values.ts';

export type ClockType = 'date' | 'day' | 'hour';

const NS_PER_SEC = 1e9;
const SECONDS_PER_DAY = 86_400;

/** meta.c: day_type's symbol table (written exactly so: `"Sat"` and `"monday"` are refused). */
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** A written value of a clock type, or the message nft prints for it. */
export function parseClock(type: ClockType, text: string, isNumber: boolean): number | { message: string } {
  switch (type) {
    case 'date':
      return parseDate(text, isNumber);
    case 'day': {
      if (isNumber) {
        const value = Number(text);
        return value > 6 ? { message: `Value ${value} exceeds valid range 0-6` } : value;
      }
      const index = (DAYS as readonly string[]).indexOf(text);
      return index < 0 ? { message: 'Could not parse Day of week of packet reception' } : index;
    }
    case 'hour':
      return parseHour(text);
  }
}

/** `YYYY-MM-DD[ HH:MM[:SS]]` in UTC, or seconds since the epoch: nanoseconds since the epoch. */
function parseDate(text: string, isNumber: boolean): number | { message: string } {
  if (isNumber || /^\d+$/.test(text)) return Number(text) * NS_PER_SEC;
  const match = /^(\d{1,4})-(\d{1,2})-(\d{1,2})(.*)$/.exec(text);
  if (match === null) return { message: 'Cannot parse date' };
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > 31) return { message: 'Cannot parse date' };
  let seconds = daysFromCivil(Number(match[1]), month, day) * SECONDS_PER_DAY;
  // A time nft cannot read after the date leaves the date alone (`"2024-01-01 25:00"` is midnight).
  const time = /^ (\d{1,2}):(\d{1,2})(?::(\d{1,2}))?$/.exec(match[4]!);
  if (time !== null && Number(time[1]) < 24 && Number(time[2]) < 60 && Number(time[3] ?? 0) < 61)
    seconds += Number(time[1]) * 3600 + Number(time[2]) * 60 + Number(time[3] ?? 0);
  return seconds * NS_PER_SEC;
}

/** `HH:MM[:SS]`, or a number of seconds (taken modulo a day, as a 32-bit value: `"-1"` is 06:28:15). */
function parseHour(text: string): number | { message: string } {
  if (/^-?\d+$/.test(text)) return (Number(BigInt.asUintN(32, BigInt(text))) >>> 0) % SECONDS_PER_DAY;
  const match = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2}))?$/.exec(text);
  if (match === null || Number(match[1]) > 23 || Number(match[2]) > 59 || Number(match[3] ?? 0) > 59)
    return { message: 'wrong time format' };
  return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3] ?? 0);
}

function two(value: number): string {
  return String(value).padStart(2, '0');
}

/** A clock value as `nft list` prints it (quoted, like nft). */
export function formatClock(type: ClockType, value: number): string {
  switch (type) {
    case 'date': {
      const seconds = Math.floor(value / NS_PER_SEC);
      const days = Math.floor(seconds / SECONDS_PER_DAY);
      const { year, month, day } = civilFromDays(days);
      const rest = seconds - days * SECONDS_PER_DAY;
      return `"${year}-${two(month)}-${two(day)} ${two(Math.floor(rest / 3600))}:${two(Math.floor(rest / 60) % 60)}:${two(rest % 60)}"`;
    }
    case 'day':
      return DAYS[value] === undefined ? String(value) : `"${DAYS[value]}"`;
    case 'hour': {
      const hm = `${two(Math.floor(value / 3600))}:${two(Math.floor(value / 60) % 60)}`;
      return value % 60 === 0 ? `"${hm}"` : `"${hm}:${two(value % 60)}"`;
    }
  }
}

export function isClockType(type: string): type is ClockType {
  return type === 'date' || type === 'day' || type === 'hour';
}

/**
 * `"22:00"-"02:00"` outside a set: the range swapped, which the caller negates (nft lists `!= "02:00"-"22:00"`);
 * undefined for any other value (in a set a wrapping range stays `Range has zero or negative size`).
 */
export function unwrapHourRange(raw: RawValue): RawValue | undefined {
  if (raw.kind !== 'range') return undefined;
  const low = parseHour(raw.low.token.text);
  const high = parseHour(raw.high.token.text);
  if (typeof low !== 'number' || typeof high !== 'number' || low <= high) return undefined;
  return { kind: 'range', low: raw.high, high: raw.low, loc: raw.loc };
}
