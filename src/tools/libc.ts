// The C library's text-to-number and text-to-address conversions that command-line tools lean on (strtoul, strtol, atoi, inet_aton, inet_pton), with glibc's quirks on 64-bit Linux; no locales.
//
// Tools written in C accept what these functions accept: `-m 0x10`, `-s 10.1` (inet_aton's
// short forms), `--sport abc` (atoi gives 0). Reproducing a tool's behaviour on odd input means
// reproducing these conversions, so they are written once here from their documented semantics.

const ULONG_MAX = (1n << 64n) - 1n;
const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);

/** What strtoul/strtol parsed: the value, where parsing stopped, and whether it overflowed (ERANGE). */
export interface CNumber {
  readonly value: bigint;
  /** Index of the first character not used (0 when nothing was parsed, as endptr == nptr). */
  readonly end: number;
  readonly overflow: boolean;
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\v' || c === '\f' || c === '\r';
}

function digitValue(c: string | undefined): number {
  if (c === undefined) return 99;
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 122) return code - 87;
  if (code >= 65 && code <= 90) return code - 55;
  return 99;
}

/** Sign, base prefix and digits as strtoul/strtol read them; the magnitude is exact (BigInt). */
function scan(
  text: string,
  base: number,
): { negative: boolean; magnitude: bigint; end: number; digits: boolean } {
  let i = 0;
  while (isSpace(text[i])) i++;
  let negative = false;
  if (text[i] === '+' || text[i] === '-') {
    negative = text[i] === '-';
    i++;
  }
  if ((base === 0 || base === 16) && text[i] === '0' && (text[i + 1] === 'x' || text[i + 1] === 'X')) {
    if (digitValue(text[i + 2]) < 16) {
      base = 16;
      i += 2;
    } else if (base === 0) {
      // "0x" without a hex digit: the 0 is the number, parsing stops at the x.
      return { negative, magnitude: 0n, end: i + 1, digits: true };
    }
  } else if (base === 0) {
    base = text[i] === '0' ? 8 : 10;
  }
  let magnitude = 0n;
  const start = i;
  const big = BigInt(base);
  while (digitValue(text[i]) < base) {
    magnitude = magnitude * big + BigInt(digitValue(text[i]));
    i++;
  }
  return { negative, magnitude, end: i, digits: i > start };
}

/** strtoul(text, &end, base): unsigned long, negative numbers wrap, overflow gives ULONG_MAX. */
export function strtoul(text: string, base = 0): CNumber {
  const s = scan(text, base);
  if (!s.digits) return { value: 0n, end: 0, overflow: false };
  if (s.magnitude > ULONG_MAX) return { value: ULONG_MAX, end: s.end, overflow: true };
  const value = s.negative ? (ULONG_MAX + 1n - s.magnitude) & ULONG_MAX : s.magnitude;
  return { value, end: s.end, overflow: false };
}

/** strtol(text, &end, base): long, clamped to LONG_MIN/LONG_MAX on overflow. */
export function strtol(text: string, base = 0): CNumber {
  const s = scan(text, base);
  if (!s.digits) return { value: 0n, end: 0, overflow: false };
  const value = s.negative ? -s.magnitude : s.magnitude;
  if (value > LONG_MAX) return { value: LONG_MAX, end: s.end, overflow: true };
  if (value < LONG_MIN) return { value: LONG_MIN, end: s.end, overflow: true };
  return { value, end: s.end, overflow: false };
}

/** The low 32 bits of a C integer, unsigned (what a uint32_t variable keeps). */
export function u32(value: bigint): number {
  return Number(BigInt.asUintN(32, value));
}

/** The low 32 bits of a C integer, signed (what an int variable keeps). */
export function i32(value: bigint): number {
  return Number(BigInt.asIntN(32, value));
}

/** atoi: (int) strtol(text, NULL, 10). */
export function atoi(text: string): number {
  return i32(strtol(text, 10).value);
}

/** atol: strtol(text, NULL, 10). */
export function atol(text: string): bigint {
  return strtol(text, 10).value;
}

/**
 * inet_aton as glibc implements it: one to four parts, each decimal, octal (leading 0) or hex
 * (0x); the last part fills the remaining bytes (10.1 is 10.0.0.1); trailing whitespace and
 * anything after it is ignored. Returns the address as an unsigned 32-bit number, or undefined.
 */
export function inetAton(text: string): number | undefined {
  const parts: number[] = [];
  let i = 0;
  let value = 0;
  let digit = false;
  for (;;) {
    if (digitValue(text[i]) > 9) return undefined;
    value = 0;
    digit = false;
    let base = 10;
    if (text[i] === '0') {
      i++;
      if (text[i] === 'x' || text[i] === 'X') {
        base = 16;
        i++;
      } else {
        base = 8;
        digit = true;
      }
    }
    for (;;) {
      const d = digitValue(text[i]);
      if (d < 10 && base !== 16) {
        if (base === 8 && d > 7) return undefined;
        value = value * base + d;
      } else if (base === 16 && d < 16) {
        value = value * 16 + d;
      } else {
        break;
      }
      // Anything above 32 bits fails below; keep the number finite.
      if (value > 0xffff_ffff) value = 0x1_0000_0000;
      digit = true;
      i++;
    }
    if (text[i] !== '.') break;
    if (parts.length >= 3 || value > 0xff) return undefined;
    parts.push(value);
    i++;
  }
  if (i < text.length && !isSpace(text[i])) return undefined;
  if (!digit) return undefined;
  const limits = [0xffff_ffff, 0xff_ffff, 0xffff, 0xff];
  if (value > limits[parts.length]!) return undefined;
  let addr = value;
  for (let n = 0; n < parts.length; n++) addr += parts[n]! * 2 ** (24 - 8 * n);
  return addr >>> 0;
}

/** inet_pton(AF_INET, ...): exactly four decimal parts, no leading zeros, each at most 255. */
function isStrictIpv4(text: string): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  return parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

/** inet_pton(AF_INET6, ...) succeeds: hex groups of 1-4 digits, one `::`, an optional trailing IPv4 address. */
export function isIpv6(text: string): boolean {
  if (text.length === 0 || text.length > 45) return false;
  let groups = 0;
  let rest = text;
  const dotted = rest.lastIndexOf(':');
  if (dotted >= 0 && rest.slice(dotted + 1).includes('.')) {
    if (!isStrictIpv4(rest.slice(dotted + 1))) return false;
    rest = rest.slice(0, dotted + 1);
    groups += 2;
    if (rest.endsWith('::')) {
      // fine: "::1.2.3.4"
    } else if (rest.endsWith(':')) {
      rest = rest.slice(0, -1);
    }
  }
  const halves = rest.split('::');
  if (halves.length > 2) return false;
  const hex = /^[0-9a-fA-F]{1,4}$/;
  let count = groups;
  for (const half of halves) {
    if (half === '') continue;
    const fields = half.split(':');
    if (!fields.every((f) => hex.test(f))) return false;
    count += fields.length;
  }
  if (halves.length === 2) return count <= 7;
  return count === 8;
}
