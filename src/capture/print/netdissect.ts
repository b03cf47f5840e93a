// The state of one frame's walk, as tcpdump's netdissect_options: the captured bytes, the end of readable data, the text so far and the flags; bounds-checked reads that end the walk at the captured end. No printing of its own.

import { formatIpv4, formatMac } from '../../wire/address.ts';
import { internetChecksum } from '../../wire/checksum.ts';
import type { PrintOptions } from './options.ts';

/** Thrown by a read past the captured bytes; caught at the top like tcpdump's longjmp. */
export class Truncated {}
export const TRUNCATED = new Truncated();

export function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}
export function hex4(n: number): string {
  return n.toString(16).padStart(4, '0');
}

/** One byte as tcpdump's fn_print_char shows it: `M-` for 8-bit, `^X` for control characters. */
export function printableChar(c: number): string {
  let text = '';
  let ch = c;
  if (ch > 0x7f) {
    ch &= 0x7f;
    text = 'M-';
  }
  if (ch < 0x20 || ch === 0x7f) {
    ch ^= 0x40;
    text += '^';
  }
  return text + String.fromCharCode(ch);
}

/** One frame's walk: the captured bytes, the current end of readable data, and the text so far. */
export class Dissector {
  out = '';
  /** Where reads stop: the captured end, pulled in by IPv4's total length (tcpdump's snapend). */
  snapEnd: number;
  /** The protocol named by a truncation marker, as tcpdump's ndo_protocol. */
  protocol = 'ether';
  /** `-e`: link-level headers on every line (ndo_eflag). */
  readonly eflag: boolean;
  /** `-v` count (ndo_vflag). */
  readonly vflag: number;
  /** `-q` (ndo_qflag). */
  readonly qflag: boolean;
  /** `-K` (ndo_Kflag): checksums are not verified. */
  readonly kflag: boolean;
  /** -x and -X dump every packet, so undecoded bytes are not dumped twice; -q skips them (ndo_suppress_default_print). */
  readonly suppressDefaultPrint: boolean;
  /** The link-layer header's length, which -x and -X leave out (ndo_ll_hdr_len). */
  llHdrLen = 0;

  constructor(
    readonly bytes: Uint8Array,
    readonly options: PrintOptions,
  ) {
    this.snapEnd = bytes.length;
    this.eflag = options.showLinkLayer === true;
    this.vflag = options.verbose ?? 0;
    this.qflag = options.quiet === true;
    this.kflag = options.noChecksums === true;
    this.suppressDefaultPrint = options.suppressDefaultPrint === true || this.qflag;
  }

  /** tcpdump's nd_print_trunc: ` [|proto]`. */
  printTrunc(): void {
    this.out += ` [|${this.protocol}]`;
  }

  print(text: string): void {
    this.out += text;
  }

  /** True when [at, at + n) is readable. */
  has(at: number, n: number): boolean {
    return at >= 0 && n >= 0 && at + n <= this.snapEnd;
  }
  need(at: number, n: number): void {
    if (!this.has(at, n)) throw TRUNCATED;
  }
  u8(at: number): number {
    this.need(at, 1);
    return this.bytes[at]!;
  }
  u16(at: number): number {
    this.need(at, 2);
    return (this.bytes[at]! << 8) | this.bytes[at + 1]!;
  }
  u24(at: number): number {
    this.need(at, 3);
    return (this.bytes[at]! << 16) | (this.bytes[at + 1]! << 8) | this.bytes[at + 2]!;
  }
  u32(at: number): number {
    this.need(at, 4);
    return (
      ((this.bytes[at]! << 24) |
        (this.bytes[at + 1]! << 16) |
        (this.bytes[at + 2]! << 8) |
        this.bytes[at + 3]!) >>>
      0
    );
  }
  ipv4At(at: number): string {
    return formatIpv4(this.u32(at));
  }
  macAt(at: number): string {
    this.need(at, 6);
    return formatMac(this.u16(at) * 0x1_0000_0000 + this.u32(at + 2));
  }
  /** A link-layer address of any length as colon-separated hex (tcpdump's linkaddr_string). */
  linkAddr(at: number, length: number): string {
    this.need(at, length);
    return Array.from(this.bytes.subarray(at, at + length), hex2).join(':');
  }
  /** Bytes readable from `at` to the current end. */
  available(at: number): number {
    return Math.max(0, this.snapEnd - at);
  }
}

/**
 * tcpdump's in_cksum over [start, end) plus a pseudo-header sum: 0 when the bytes, their
 * checksum field included, are correct.
 */
export function inCksum(bytes: Uint8Array, start: number, end: number, initial = 0): number {
  return internetChecksum(bytes, start, end, initial);
}

/** in_cksum_shouldbe: the checksum field value that would have made `computed` zero. */
export function inCksumShouldbe(field: number, computed: number): number {
  let shouldbe = field + computed;
  shouldbe = (shouldbe & 0xffff) + (shouldbe >>> 16);
  shouldbe = (shouldbe & 0xffff) + (shouldbe >>> 16);
  return shouldbe & 0xffff;
}

/** What an IPv4 header hands to the transport printers. */
export interface IpContext {
  readonly at: number;
  readonly src: number;
  readonly dst: number;
  readonly proto: number;
  /** The More Fragments bit: the transport checksums cannot be checked. */
  readonly fragmented: boolean;
}
