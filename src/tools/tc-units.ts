// iproute2's unit parsers and printers for tc (tc/tc_util.c, lib/utils.c, lib/json_print.c of iproute2 6.1):
// rates, sizes, times, psched ticks and percentages as `tc` reads and writes them, and its argument helpers; no IEC
// (`-iec`) output, no `%` rates.

import { TICKS_PER_US } from '../link/qdisc/psched.ts';
import { type CommandResult, fail } from './result.ts';

/** C's strtod over the prefix of `text` it accepts: the value and what follows (value NaN when nothing parsed). */
export function strtod(text: string): { value: number; rest: string } {
  const match = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(text);
  if (match === null) return { value: Number.NaN, rest: text };
  return { value: Number(match[0]), rest: text.slice(match[0].length) };
}

/** get_rate64's suffixes: bits per second, or bytes with `Bps` (scales per second, case-insensitive). */
const RATE_SUFFIXES: readonly (readonly [string, number])[] = [
  ['bit', 1],
  ['Kibit', 1024],
  ['kbit', 1000],
  ['mibit', 1024 * 1024],
  ['mbit', 1_000_000],
  ['gibit', 1024 * 1024 * 1024],
  ['gbit', 1_000_000_000],
  ['tibit', 1024 * 1024 * 1024 * 1024],
  ['tbit', 1_000_000_000_000],
  ['Bps', 8],
  ['KiBps', 8 * 1024],
  ['KBps', 8000],
  ['MiBps', 8 * 1024 * 1024],
  ['MBps', 8_000_000],
  ['GiBps', 8 * 1024 * 1024 * 1024],
  ['GBps', 8_000_000_000],
  ['TiBps', 8 * 1024 * 1024 * 1024 * 1024],
  ['TBps', 8_000_000_000_000],
];

/** get_rate64: a rate in bytes per second (a bare number is bits per second), or undefined. */
export function parseRate(text: string): number | undefined {
  const { value, rest } = strtod(text);
  if (Number.isNaN(value) || value < 0) return undefined;
  let bits = value;
  if (rest !== '') {
    const suffix = RATE_SUFFIXES.find(([name]) => name.toLowerCase() === rest.toLowerCase());
    if (suffix === undefined) return undefined;
    bits *= suffix[1];
  }
  return Math.trunc(bits / 8);
}

/** get_size: bytes, with k/kb, m/mb, g/gb (binary) or kbit/mbit/gbit suffixes. */
export function parseSize(text: string): number | undefined {
  const { value, rest } = strtod(text);
  if (Number.isNaN(value)) return undefined;
  let size = value;
  switch (rest.toLowerCase()) {
    case '':
    case 'b':
      break;
    case 'k':
    case 'kb':
      size *= 1024;
      break;
    case 'm':
    case 'mb':
      size *= 1024 * 1024;
      break;
    case 'g':
    case 'gb':
      size *= 1024 * 1024 * 1024;
      break;
    case 'kbit':
      size *= 1024 / 8;
      break;
    case 'mbit':
      size *= (1024 * 1024) / 8;
      break;
    case 'gbit':
      size *= (1024 * 1024 * 1024) / 8;
      break;
    default:
      return undefined;
  }
  if (size < 0 || size > 0xffff_ffff) return undefined;
  return Math.trunc(size);
}

/** get_time: microseconds (a bare number is microseconds), s/sec/secs, ms/msec/msecs, us/usec/usecs. */
export function parseTime(text: string): number | undefined {
  const { value, rest } = strtod(text);
  if (Number.isNaN(value)) return undefined;
  let time = value;
  switch (rest.toLowerCase()) {
    case '':
      break;
    case 's':
    case 'sec':
    case 'secs':
      time *= 1_000_000;
      break;
    case 'ms':
    case 'msec':
    case 'msecs':
      time *= 1000;
      break;
    case 'us':
    case 'usec':
    case 'usecs':
      break;
    default:
      return undefined;
  }
  if (time < 0 || time > 0xffff_ffff) return undefined;
  return Math.trunc(time);
}

/** parse_percent: a fraction in [0, 1] from `N` or `N%`. */
export function parsePercent(text: string): number | undefined {
  const { value, rest } = strtod(text);
  const fraction = Number.isNaN(value) ? 0 : value / 100;
  if (fraction > 1 || fraction < 0) return undefined;
  if (rest !== '' && rest !== '%') return undefined;
  return fraction;
}

/** print_color_rate without -iec: bits per second in the largest unit that divides it (or that keeps it under 1000). */
export function formatRate(bytesPerSec: number): string {
  const units = ['', 'K', 'M', 'G', 'T'];
  let rate = bytesPerSec * 8;
  let i = 0;
  for (; i < units.length - 1; i++) {
    if (rate < 1000) break;
    if (rate % 1000 !== 0 && rate < 1000 * 1000) break;
    rate = Math.floor(rate / 1000);
  }
  return `${rate}${units[i]}bit`;
}

/** print_size: Mb or Kb when within 1 KiB or 16 bytes of a whole unit, else bytes. */
export function formatSize(size: number): string {
  if (size >= 1024 * 1024 && Math.abs(1024 * 1024 * Math.round(size / (1024 * 1024)) - size) < 1024)
    return `${formatG(Math.round(size / (1024 * 1024)), 6)}Mb`;
  if (size >= 1024 && Math.abs(1024 * Math.round(size / 1024) - size) < 16)
    return `${formatG(Math.round(size / 1024), 6)}Kb`;
  return `${size}b`;
}

/** print_time: `%.3gs`, `%.3gms` or `%uus` of a time in microseconds. */
export function formatTime(us: number): string {
  if (us >= 1_000_000) return `${formatG(us / 1_000_000, 3)}s`;
  if (us >= 1000) return `${formatG(us / 1000, 3)}ms`;
  return `${us}us`;
}

/** C's `%.Pg`: P significant digits, trailing zeros dropped, exponent form outside [1e-4, 10^P). */
export function formatG(value: number, precision: number): string {
  if (value === 0) return '0';
  const exponent = Math.floor(Math.log10(Math.abs(Number(value.toPrecision(precision)))));
  if (exponent < -4 || exponent >= precision) {
    const [mantissa, exp] = value.toExponential(precision - 1).split('e');
    const trimmed = mantissa!.includes('.') ? mantissa!.replace(/\.?0+$/, '') : mantissa!;
    const sign = exp!.startsWith('-') ? '-' : '+';
    const digits = exp!.replace(/^[+-]/, '').padStart(2, '0');
    return `${trimmed}e${sign}${digits}`;
  }
  const fixed = value.toFixed(Math.max(0, precision - 1 - exponent));
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/** iproute2's matches(): `arg` is a non-empty prefix of `word`. */
export function matches(arg: string, word: string): boolean {
  return arg.length > 0 && word.startsWith(arg);
}

/** NEXT_ARG() with nothing left. */
export function incomplete(): CommandResult {
  return fail('Command line is not complete. Try option "help"\n', 255);
}

/** get_ticks: a time in microseconds as psched ticks (tc_core_time2tick), what tc 6.1 sends for delay and jitter. */
export function timeToTicks(text: string): number | undefined {
  const us = parseTime(text);
  if (us === undefined) return undefined;
  const ticks = Math.trunc(us * TICKS_PER_US);
  return ticks > 0xffff_ffff ? undefined : ticks;
}

/** tc_core_tick2time: microseconds in `ticks`, truncated. */
export function tickToTime(ticks: number): number {
  return Math.trunc(ticks / TICKS_PER_US);
}

/** tc_calc_xmitsize: the bytes `ticks` of transmission carry at `rate`, truncated to unsigned. */
export function xmitSize(rate: number, ticks: number): number {
  return Math.trunc((rate * tickToTime(ticks)) / 1e6);
}
