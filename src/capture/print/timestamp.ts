// tcpdump's packet timestamps (print.c's ts_print): -t none, default clock, -tt epoch, -ttt delta, -tttt date, -ttttt since the first packet; six or nine digits; in UTC (no time zones: the simulation's TZ is UTC).

import { civilFromDays } from '../../core/civil-date.ts';

/** How the timestamp is printed: `clock` is tcpdump's default, then -t, -tt, -ttt, -tttt and -ttttt. */
export type TimestampFormat = 'clock' | 'none' | 'epoch' | 'delta' | 'date' | 'since-first';

const NS_PER_SEC = 1_000_000_000;
const NS_PER_US = 1_000;
const SECONDS_PER_DAY = 86_400;

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** The fraction's digits: nine with `nano`, else six (the microseconds, truncated as libpcap does). */
function fractionDigits(nanos: number, nano: boolean): string {
  return nano ? String(nanos).padStart(9, '0') : String(Math.floor(nanos / NS_PER_US)).padStart(6, '0');
}

/** `HH:MM:SS` of the day (ts_date_hmsfrac_format on gmtime: hours wrap at a day). */
function timeOfDay(seconds: number): string {
  const ofDay = seconds % SECONDS_PER_DAY;
  return `${two(Math.floor(ofDay / 3600))}:${two(Math.floor(ofDay / 60) % 60)}:${two(ofDay % 60)}`;
}

/** `YYYY-MM-DD` of a day count since 1970-01-01. */
function civilDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}`;
}

/**
 * One absolute timestamp, `seconds` since the epoch and `nanos` in the second:
 * `HH:MM:SS.uuuuuu` (clock), `S.uuuuuu` (epoch), `YYYY-MM-DD HH:MM:SS.uuuuuu` (date), '' (none).
 * The relative formats print as the clock of a zero offset here; TimestampClock computes them.
 */
export function formatTimestampAt(
  seconds: number,
  nanos: number,
  format: TimestampFormat,
  nano: boolean,
): string {
  const digits = fractionDigits(nanos, nano);
  switch (format) {
    case 'none':
      return '';
    case 'epoch':
      return `${seconds}.${digits}`;
    case 'clock':
      return `${timeOfDay(seconds)}.${digits}`;
    case 'date':
      return `${civilDate(Math.floor(seconds / SECONDS_PER_DAY))} ${timeOfDay(seconds)}.${digits}`;
    case 'delta':
    case 'since-first':
      return ` ${timeOfDay(0)}.${fractionDigits(0, nano)}`;
    default:
      return format satisfies never;
  }
}

/**
 * tcpdump's timestamp for virtual time `timeNs`, where time 0 is 1970-01-01 00:00:00 UTC:
 * `HH:MM:SS.uuuuuu` (clock, wrapping at midnight), `S.uuuuuu` (epoch), and nine digits with `nano`.
 */
export function formatTimestamp(timeNs: number, format: TimestampFormat = 'clock', nano = false): string {
  const ns = Math.max(0, Math.floor(timeNs));
  const seconds = Math.floor(ns / NS_PER_SEC);
  return formatTimestampAt(seconds, ns - seconds * NS_PER_SEC, format, nano);
}

/** The timestamps of one capture: -ttt and -ttttt need the previous and the first packet's. */
export class TimestampClock {
  private refSeconds = 0;
  private refFraction = 0;

  constructor(
    readonly format: TimestampFormat,
    readonly nano: boolean,
  ) {}

  /** The timestamp of the next packet, `seconds` and `nanos` as the capture file holds them. */
  next(seconds: number, nanos: number): string {
    if (this.format !== 'delta' && this.format !== 'since-first') {
      return formatTimestampAt(seconds, nanos, this.format, this.nano);
    }
    // At the precision printed, as netdissect_timevalsub sees the times libpcap scaled.
    const unit = this.nano ? 1 : NS_PER_US;
    const perSecond = NS_PER_SEC / unit;
    const fraction = Math.floor(nanos / unit);
    // netdissect_timevalisset: a reference of exactly 0.0 counts as unset, so a packet
    // stamped at the epoch (virtual time 0) makes the next one the new reference, as in tcpdump.
    if (this.refSeconds === 0 && this.refFraction === 0) {
      this.refSeconds = seconds;
      this.refFraction = fraction;
    }
    const negative =
      seconds < this.refSeconds || (seconds === this.refSeconds && fraction < this.refFraction);
    let deltaSeconds = negative ? this.refSeconds - seconds : seconds - this.refSeconds;
    let deltaFraction = negative ? this.refFraction - fraction : fraction - this.refFraction;
    if (deltaFraction < 0) {
      deltaFraction += perSecond;
      deltaSeconds--;
    }
    if (this.format === 'delta') {
      this.refSeconds = seconds;
      this.refFraction = fraction;
    }
    const digits = String(deltaFraction).padStart(this.nano ? 9 : 6, '0');
    return `${negative ? '-' : ' '}${timeOfDay(deltaSeconds)}.${digits}`;
  }
}
