// The limit and quota statements of nft 1.0.6 (parser_bison.y: limit_stmt, quota_stmt; statement.c:
// limit_stmt_print, quota_stmt_print): `limit rate [over|until] 10/second [burst 5 packets]`, `limit rate 1
// mbytes/second [burst 10 kbytes]`, `quota [over|until] 10 mbytes [used 1 mbytes]`, with the kernel's range checks
// (nft_limit_init), and the same configurations in named limit and quota objects (objects.ts). Not supported: maps
// of object names (`quota name ip saddr map { ... }`).

import type { LimitExpr, QuotaExpr } from '../ir.ts';
import { describeToken, KEYWORDS, type Token } from './lexer.ts';
import { errorAt, type Location, span } from './location.ts';
import type { TokenStream } from './stream.ts';

const TIME_UNITS: Readonly<Record<string, number>> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
};
const UNIT_NAMES: Readonly<Record<number, string>> = {
  1: 'second',
  60: 'minute',
  3600: 'hour',
  86400: 'day',
  604800: 'week',
};
const DATA_UNITS: Readonly<Record<string, number>> = { bytes: 1, kbytes: 1024, mbytes: 1024 * 1024 };

/** Words nft's scanner reads as keywords inside a limit or quota statement only (its scanner scopes). */
const SCOPED_KEYWORDS = new Set([
  'rate',
  'over',
  'until',
  'burst',
  'used',
  'name',
  ...Object.keys(TIME_UNITS),
  ...Object.keys(DATA_UNITS),
]);

const U64_MAX = (1n << 64n) - 1n;

/** A syntax error naming the scoped keywords as nft does (`unexpected second`). */
function failScoped(s: TokenStream, token: Token, expecting?: string): never {
  const name = token.kind === 'word' && SCOPED_KEYWORDS.has(token.text) ? token.text : describeToken(token);
  return s.failAt(
    token.loc,
    `syntax error, unexpected ${name}${expecting === undefined ? '' : `, expecting ${expecting}`}`,
  );
}

function number(s: TokenStream, expecting = 'number'): Token {
  const token = s.peek();
  if (token.kind !== 'number') failScoped(s, token, expecting);
  return s.next();
}

/** data_unit_parse: `bytes`, `kbytes` or `mbytes`, as a multiplier; undefined for anything else. */
function dataUnit(text: string): number | undefined {
  return DATA_UNITS[text];
}

/** `NUM bytes` or `NUM kbytes` (parser_bison.y: limit_bytes, quota_unit), in bytes; reports a wrong unit at `from`. */
function bytesAmount(s: TokenStream, from: Location): bigint {
  const count = number(s);
  const unit = s.peek();
  if (unit.kind !== 'word' || (KEYWORDS.has(unit.text) && unit.text !== 'bytes'))
    failScoped(s, unit, 'string or bytes');
  s.next();
  const size = dataUnit(unit.text);
  if (size === undefined) s.failAt(span(from, unit.loc), 'Wrong rate format');
  return BigInt(count.text) * BigInt(size);
}

function timeUnit(s: TokenStream): number {
  const token = s.peek();
  const unit = token.kind === 'word' ? TIME_UNITS[token.text] : undefined;
  if (unit === undefined) failScoped(s, token);
  s.next();
  return unit;
}

/**
 * `limit rate ...` or `limit name NAME` (a named limit, nft_objref); the `limit` word is next. Range errors are
 * reported as the kernel's, on the whole statement.
 */
export function parseLimit(s: TokenStream): LimitExpr | ObjectName {
  const start = s.next();
  const rateWord = s.peek();
  if (!(rateWord.kind === 'word' && (rateWord.text === 'rate' || rateWord.text === 'name')))
    failScoped(s, rateWord, 'name or rate');
  s.next();
  if (rateWord.text === 'name') return parseObjectName(s, rateWord);
  return parseLimitConfig(s, start.loc);
}

/** A named object's reference: `name NAME` (a string; a map of names is not modelled). */
export interface ObjectName {
  readonly kind: 'object-name';
  readonly name: string;
  readonly loc: Location;
}

/** The name after `counter name`, `quota name`, `limit name`. */
export function parseObjectName(s: TokenStream, nameWord: Token): ObjectName {
  const token = s.peek();
  if ((token.kind === 'word' && !KEYWORDS.has(token.text)) || token.kind === 'quoted') {
    s.next();
    return { kind: 'object-name', name: token.text, loc: token.loc };
  }
  s.report(errorAt(nameWord.loc, 'a map of object names is not supported by packetlab'));
  return { kind: 'object-name', name: '', loc: token.loc };
}

/** limit_config after `rate`: `[over|until] N/UNIT [burst N packets]` or bytes; errors span from `start` on. */
export function parseLimitConfig(s: TokenStream, startLoc: Location): LimitExpr {
  let invert = false;
  const mode = s.peek();
  if (mode.kind === 'word' && (mode.text === 'over' || mode.text === 'until')) {
    s.next();
    invert = mode.text === 'over';
  }
  const count = number(s);
  let rate = BigInt(count.text);
  let unit: number;
  let bytes: boolean;
  const next = s.peek();
  if (next.kind === 'punct' && next.text === '/') {
    s.next();
    unit = timeUnit(s);
    bytes = false;
  } else if (next.kind === 'word' && next.text.includes('/')) {
    // rate_parse: `kbytes/second` is one string.
    s.next();
    const [data, time] = next.text.split('/', 2) as [string, string];
    const size = dataUnit(data);
    const seconds = TIME_UNITS[time];
    if (size === undefined || seconds === undefined) s.failAt(span(count.loc, next.loc), 'Wrong rate format');
    rate *= BigInt(size);
    unit = seconds;
    bytes = true;
  } else if (next.kind === 'word' && dataUnit(next.text) !== undefined) {
    s.next();
    rate *= BigInt(dataUnit(next.text)!);
    s.expectPunct('/', '/');
    unit = timeUnit(s);
    bytes = true;
  } else return failScoped(s, next, '/ or string or bytes');
  let burst = 0n;
  const burstWord = s.peek();
  if (burstWord.kind === 'word' && burstWord.text === 'burst') {
    s.next();
    if (bytes) burst = bytesAmount(s, s.peek().loc);
    else {
      burst = BigInt(number(s).text);
      const packets = s.peek();
      if (!(packets.kind === 'word' && packets.text === 'packets')) failScoped(s, packets, 'packets');
      s.next();
      if (burst === 0n) s.failAt(span(burstWord.loc, s.previous().loc), 'packet limit burst must be > 0');
    }
  }
  const loc = span(startLoc, s.previous().loc);
  const error = limitInitError(bytes, rate, unit, burst);
  if (error !== undefined) s.report(errorAt(loc, `Could not process rule: ${error}`));
  return newLimit(bytes ? 'bytes' : 'packets', Number(rate), unit, Number(burst), invert);
}

/** nft_limit_init's refusals: a zero rate, and values whose ns arithmetic overflows 64 bits. */
function limitInitError(bytes: boolean, rate: bigint, unit: number, burst: bigint): string | undefined {
  if (rate === 0n) return 'Invalid argument';
  if (rate > U64_MAX || burst > U64_MAX) return 'Numerical result out of range';
  const nsecs = BigInt(unit) * 1_000_000_000n;
  const effectiveBurst = !bytes && burst === 0n ? 5n : burst;
  if (rate + effectiveBurst > U64_MAX) return 'Value too large for defined data type';
  const tokens = bytes ? nsecs * (rate + effectiveBurst) : (nsecs / rate) * effectiveBurst;
  if (tokens > U64_MAX) return 'Value too large for defined data type';
  return undefined;
}

function newLimit(
  mode: 'packets' | 'bytes',
  rate: number,
  unit: number,
  burst: number,
  invert: boolean,
): LimitExpr {
  return { kind: 'limit', mode, rate, unit, burst, invert, bucket: { tokens: 0, last: -1 } };
}

/** `quota ...` or `quota name NAME`; the `quota` word is next. */
export function parseQuota(s: TokenStream): QuotaExpr | ObjectName {
  const start = s.next();
  const first = s.peek();
  if (first.kind === 'word' && first.text === 'name') {
    s.next();
    return parseObjectName(s, first);
  }
  return parseQuotaConfig(s, start.loc);
}

/** quota_config: `[over|until] N UNIT [used N UNIT]`; a wrong unit is reported from `startLoc`. */
export function parseQuotaConfig(s: TokenStream, startLoc: Location): QuotaExpr {
  const first = s.peek();
  let invert = false;
  if (first.kind === 'word' && (first.text === 'over' || first.text === 'until')) {
    s.next();
    invert = first.text === 'over';
  }
  const bytes = bytesAmount(s, startLoc);
  let used = 0n;
  const usedWord = s.peek();
  if (usedWord.kind === 'word' && usedWord.text === 'used') {
    s.next();
    used = bytesAmount(s, startLoc);
  }
  return { kind: 'quota', bytes: Number(bytes), invert, consumed: { bytes: Number(used) } };
}

/** statement.c: get_rate — the largest of bytes, kbytes, mbytes that divides the amount. */
export function withDataUnit(amount: number): string {
  let value = amount;
  let unit = 0;
  const names = ['bytes', 'kbytes', 'mbytes'];
  while (unit < names.length - 1 && value !== 0 && value % 1024 === 0) {
    value /= 1024;
    unit++;
  }
  return `${value} ${names[unit]}`;
}

export function formatLimit(limit: LimitExpr): string {
  return `limit ${formatLimitConfig(limit)}`;
}

/** What a limit object's block lists (rule.c: obj_print_data), the statement without its `limit` word. */
export function formatLimitConfig(limit: LimitExpr): string {
  const over = limit.invert ? 'over ' : '';
  const per = UNIT_NAMES[limit.unit] ?? 'second';
  if (limit.mode === 'packets') {
    const burst = limit.burst !== 0 && limit.burst !== 5 ? ` burst ${limit.burst} packets` : '';
    return `rate ${over}${limit.rate}/${per}${burst}`;
  }
  const burst = limit.burst !== 0 ? ` burst ${withDataUnit(limit.burst)}` : '';
  return `rate ${over}${withDataUnit(limit.rate)}/${per}${burst}`;
}

/** The kernel dumps what a quota consumed capped at the quota (nft_quota_do_dump). */
export function formatQuota(quota: QuotaExpr): string {
  return `quota ${formatQuotaConfig(quota, false)}`;
}

/** A quota without its `quota` word (a quota object's block); `stateless` (`nft -s`) leaves out what it used. */
export function formatQuotaConfig(quota: QuotaExpr, stateless: boolean): string {
  const consumed = Math.min(quota.consumed.bytes, quota.bytes);
  const used = consumed !== 0 && !stateless ? ` used ${withDataUnit(consumed)}` : '';
  return `${quota.invert ? 'over ' : ''}${withDataUnit(quota.bytes)}${used}`;
}
