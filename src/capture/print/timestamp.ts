// tcpdump's packet timestamps from virtual time (print.c's ts_format): clock, epoch or none, six or nine digits; no time zones.

/** How the timestamp is printed: `clock` is tcpdump's default, `epoch` is -tt, `none` is -t. */
export type TimestampFormat = 'clock' | 'epoch' | 'none';

const NS_PER_SEC = 1_000_000_000;
const SECONDS_PER_DAY = 86_400;

/**
 * tcpdump's timestamp for virtual time `timeNs`, where time 0 is 1970-01-01 00:00:00 UTC:
 * `HH:MM:SS.uuuuuu` (clock, wrapping at midnight), `S.uuuuuu` (epoch), and nine digits with `nano`.
 */
export function formatTimestamp(timeNs: number, format: TimestampFormat = 'clock', nano = false): string {
  if (format === 'none') return '';
  const ns = Math.max(0, Math.floor(timeNs));
  const seconds = Math.floor(ns / NS_PER_SEC);
  const fraction = ns - seconds * NS_PER_SEC;
  const digits = nano
    ? String(fraction).padStart(9, '0')
    : String(Math.floor(fraction / 1000)).padStart(6, '0');
  if (format === 'epoch') return `${seconds}.${digits}`;
  const ofDay = seconds % SECONDS_PER_DAY;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(ofDay / 3600))}:${two(Math.floor(ofDay / 60) % 60)}:${two(ofDay % 60)}.${digits}`;
}
