// IPv4 (RFC 791): header view, repr, parse and emit with the header checksum; options are validated for length and carried as raw bytes, never interpreted (no source routing, record route or timestamps), and no reassembly.
//
//  0                   1                   2                   3
//  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |Version|  IHL  |   DSCP    |ECN|          Total Length         |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |         Identification        |0|D|M|      Fragment Offset    |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |  Time to Live |    Protocol   |         Header Checksum       |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                       Source Address                          |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                    Destination Address                        |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                    Options                    |    Padding    |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//  (DSCP/ECN per RFC 2474 and RFC 3168; D = don't fragment, M = more fragments)

import type { Ipv4Addr } from './address.ts';
import { readIpv4, writeIpv4 } from './address.ts';
import { readU16, writeU16 } from './bytes.ts';
import { checksumIsValid, internetChecksum } from './checksum.ts';
import { WireError } from './error.ts';

const VERSION_IHL = 0;
const DSCP_ECN = 1;
const TOTAL_LEN = 2;
const IDENT = 4;
const FLAGS_FRAG_OFFSET = 6;
const TTL = 8;
const PROTOCOL = 9;
const CHECKSUM = 10;
const SRC_ADDR = 12;
const DST_ADDR = 16;
export const IPV4_MIN_HEADER_LEN = DST_ADDR + 4;
/** The IHL field is 4 bits counting 32-bit words. */
export const IPV4_MAX_HEADER_LEN = 0xf * 4;
const OPTIONS = IPV4_MIN_HEADER_LEN;

export const IPPROTO_ICMP = 1;
export const IPPROTO_TCP = 6;

const RESERVED_FLAG = 0x8000;
const DF_FLAG = 0x4000;
const MF_FLAG = 0x2000;
const FRAG_OFFSET_MASK = 0x1fff;
/** The fragment offset counts 8-byte units. */
const FRAG_UNIT = 8;
const OPTION_EOL = 0;
const OPTION_NOP = 1;

const TRUNCATED = new WireError('ipv4.truncated');
const BAD_VERSION = new WireError('ipv4.bad-version');
const HEADER_LENGTH_TOO_SMALL = new WireError('ipv4.header-length-too-small');
const HEADER_LENGTH_EXCEEDS_BUFFER = new WireError('ipv4.header-length-exceeds-buffer');
const TOTAL_LENGTH_BELOW_HEADER = new WireError('ipv4.total-length-below-header');
const TOTAL_LENGTH_EXCEEDS_BUFFER = new WireError('ipv4.total-length-exceeds-buffer');
const BAD_CHECKSUM = new WireError('ipv4.bad-checksum');
const BAD_OPTION = new WireError('ipv4.bad-option');

/**
 * Mirrors the length checks of ip_rcv_core (net/ipv4/ip_input.c), each with its own defect.
 * Deviation: the kernel verifies the header checksum between the header-length and the
 * total-length checks; here parse verifies it, so a packet wrong in both ways reports its length.
 */
function checkHeader(bytes: Uint8Array, offset: number): WireError | undefined {
  const available = bytes.length - offset;
  if (available < IPV4_MIN_HEADER_LEN) return TRUNCATED;
  const versionIhl = bytes[offset + VERSION_IHL]!;
  if (versionIhl >>> 4 !== 4) return BAD_VERSION;
  const headerLen = (versionIhl & 0xf) * 4;
  if (headerLen < IPV4_MIN_HEADER_LEN) return HEADER_LENGTH_TOO_SMALL;
  if (headerLen > available) return HEADER_LENGTH_EXCEEDS_BUFFER;
  return undefined;
}

/** A zero-copy view of an IPv4 header and payload at `offset` in `bytes`. */
export class Ipv4View {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
  ) {}

  /** A view whose header length and total length have been checked against the buffer. */
  static checked(bytes: Uint8Array, offset = 0): Ipv4View | WireError {
    const error = checkHeader(bytes, offset);
    if (error !== undefined) return error;
    const headerLen = (bytes[offset + VERSION_IHL]! & 0xf) * 4;
    const totalLen = readU16(bytes, offset + TOTAL_LEN);
    if (totalLen < headerLen) return TOTAL_LENGTH_BELOW_HEADER;
    if (totalLen > bytes.length - offset) return TOTAL_LENGTH_EXCEEDS_BUFFER;
    return new Ipv4View(bytes, offset);
  }

  /**
   * A view of the header an ICMP error quotes: the total length describes the original
   * datagram, of which only a prefix is quoted, so it is not checked against the buffer.
   * On such a view payload() stops at the buffer's end when that comes first.
   */
  static checkedHeader(bytes: Uint8Array, offset = 0): Ipv4View | WireError {
    return checkHeader(bytes, offset) ?? new Ipv4View(bytes, offset);
  }

  /** A view for writing into a buffer the caller has sized; no checks. */
  static unchecked(bytes: Uint8Array, offset = 0): Ipv4View {
    return new Ipv4View(bytes, offset);
  }

  get version(): number {
    return this.bytes[this.offset + VERSION_IHL]! >>> 4;
  }
  set version(version: number) {
    const at = this.offset + VERSION_IHL;
    this.bytes[at] = ((version & 0xf) << 4) | (this.bytes[at]! & 0xf);
  }
  /** Header length in bytes (IHL × 4); set a multiple of 4. */
  get headerLen(): number {
    return (this.bytes[this.offset + VERSION_IHL]! & 0xf) * 4;
  }
  set headerLen(headerLen: number) {
    const at = this.offset + VERSION_IHL;
    this.bytes[at] = (this.bytes[at]! & 0xf0) | ((headerLen >>> 2) & 0xf);
  }
  /** Differentiated services code point, 0-63 (RFC 2474). */
  get dscp(): number {
    return this.bytes[this.offset + DSCP_ECN]! >>> 2;
  }
  set dscp(dscp: number) {
    const at = this.offset + DSCP_ECN;
    this.bytes[at] = ((dscp & 0x3f) << 2) | (this.bytes[at]! & 0x3);
  }
  /** Explicit congestion notification, 0-3 (RFC 3168). */
  get ecn(): number {
    return this.bytes[this.offset + DSCP_ECN]! & 0x3;
  }
  set ecn(ecn: number) {
    const at = this.offset + DSCP_ECN;
    this.bytes[at] = (this.bytes[at]! & 0xfc) | (ecn & 0x3);
  }
  /** Header plus payload, in bytes. */
  get totalLen(): number {
    return readU16(this.bytes, this.offset + TOTAL_LEN);
  }
  set totalLen(totalLen: number) {
    writeU16(this.bytes, this.offset + TOTAL_LEN, totalLen);
  }
  get ident(): number {
    return readU16(this.bytes, this.offset + IDENT);
  }
  set ident(ident: number) {
    writeU16(this.bytes, this.offset + IDENT, ident);
  }
  /** The reserved ("evil", RFC 3514) flag bit; emit always clears it. */
  get reservedFlag(): boolean {
    return (this.flagsFragOffset & RESERVED_FLAG) !== 0;
  }
  set reservedFlag(flag: boolean) {
    this.setFlag(RESERVED_FLAG, flag);
  }
  get dontFragment(): boolean {
    return (this.flagsFragOffset & DF_FLAG) !== 0;
  }
  set dontFragment(flag: boolean) {
    this.setFlag(DF_FLAG, flag);
  }
  get moreFragments(): boolean {
    return (this.flagsFragOffset & MF_FLAG) !== 0;
  }
  set moreFragments(flag: boolean) {
    this.setFlag(MF_FLAG, flag);
  }
  /** Fragment offset in bytes; set a multiple of 8. */
  get fragmentOffset(): number {
    return (this.flagsFragOffset & FRAG_OFFSET_MASK) * FRAG_UNIT;
  }
  set fragmentOffset(offset: number) {
    this.flagsFragOffset =
      (this.flagsFragOffset & ~FRAG_OFFSET_MASK) | ((offset / FRAG_UNIT) & FRAG_OFFSET_MASK);
  }
  get ttl(): number {
    return this.bytes[this.offset + TTL]!;
  }
  set ttl(ttl: number) {
    this.bytes[this.offset + TTL] = ttl;
  }
  /** The payload's IP protocol number; any 8-bit value. */
  get protocol(): number {
    return this.bytes[this.offset + PROTOCOL]!;
  }
  set protocol(protocol: number) {
    this.bytes[this.offset + PROTOCOL] = protocol;
  }
  get checksum(): number {
    return readU16(this.bytes, this.offset + CHECKSUM);
  }
  set checksum(checksum: number) {
    writeU16(this.bytes, this.offset + CHECKSUM, checksum);
  }
  get srcAddr(): Ipv4Addr {
    return readIpv4(this.bytes, this.offset + SRC_ADDR);
  }
  set srcAddr(addr: Ipv4Addr) {
    writeIpv4(this.bytes, this.offset + SRC_ADDR, addr);
  }
  get dstAddr(): Ipv4Addr {
    return readIpv4(this.bytes, this.offset + DST_ADDR);
  }
  set dstAddr(addr: Ipv4Addr) {
    writeIpv4(this.bytes, this.offset + DST_ADDR, addr);
  }

  private get flagsFragOffset(): number {
    return readU16(this.bytes, this.offset + FLAGS_FRAG_OFFSET);
  }
  private set flagsFragOffset(word: number) {
    writeU16(this.bytes, this.offset + FLAGS_FRAG_OFFSET, word);
  }
  private setFlag(bit: number, flag: boolean): void {
    this.flagsFragOffset = flag ? this.flagsFragOffset | bit : this.flagsFragOffset & ~bit;
  }

  /** The raw options and padding between the fixed header and the payload; empty when IHL is 5. */
  options(): Uint8Array {
    return this.bytes.subarray(this.offset + OPTIONS, this.offset + this.headerLen);
  }

  /** The payload, up to the total length (not the buffer's end: Ethernet padding is left out). */
  payload(): Uint8Array {
    return this.bytes.subarray(this.offset + this.headerLen, this.offset + this.totalLen);
  }

  /** True when the header sums to 0xffff, checksum field included. */
  verifyChecksum(): boolean {
    return checksumIsValid(this.bytes, this.offset, this.offset + this.headerLen);
  }

  /** Computes and stores the header checksum. */
  fillChecksum(): void {
    this.checksum = 0;
    this.checksum = internetChecksum(this.bytes, this.offset, this.offset + this.headerLen);
  }

  /**
   * True when every option is whole: End of Option List stops the walk (the rest is padding),
   * No-Operation is one byte, and every other option has a length of at least 2 that stays
   * inside the header. Mirrors the length checks of ip_options_compile (net/ipv4/ip_options.c);
   * the option contents are not checked.
   */
  optionsAreValid(): boolean {
    const end = this.offset + this.headerLen;
    let at = this.offset + OPTIONS;
    while (at < end) {
      const type = this.bytes[at]!;
      if (type === OPTION_EOL) return true;
      if (type === OPTION_NOP) {
        at += 1;
        continue;
      }
      if (at + 1 >= end) return false;
      const length = this.bytes[at + 1]!;
      if (length < 2 || length > end - at) return false;
      at += length;
    }
    return true;
  }
}

/** The fields a stack needs to emit an IPv4 header; the payload travels separately. */
export interface Ipv4Repr {
  readonly srcAddr: Ipv4Addr;
  readonly dstAddr: Ipv4Addr;
  /** Any 8-bit protocol number (IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, ...). */
  readonly protocol: number;
  readonly ttl: number;
  readonly ident: number;
  readonly dontFragment: boolean;
  readonly moreFragments: boolean;
  /** In bytes, a multiple of 8. */
  readonly fragmentOffset: number;
  readonly dscp: number;
  readonly ecn: number;
  readonly payloadLen: number;
  /** Raw option bytes, at most 40; emit pads them with End of Option List to a multiple of 4. */
  readonly options: Uint8Array;
}

/**
 * Reads a checked view into a repr. Like ip_rcv_core then ip_rcv_options, the checksum is
 * verified first, then the option lengths. `options` is a subarray of the view's bytes.
 */
export function parseIpv4(view: Ipv4View): Ipv4Repr | WireError {
  if (!view.verifyChecksum()) return BAD_CHECKSUM;
  if (!view.optionsAreValid()) return BAD_OPTION;
  return {
    srcAddr: view.srcAddr,
    dstAddr: view.dstAddr,
    protocol: view.protocol,
    ttl: view.ttl,
    ident: view.ident,
    dontFragment: view.dontFragment,
    moreFragments: view.moreFragments,
    fragmentOffset: view.fragmentOffset,
    dscp: view.dscp,
    ecn: view.ecn,
    payloadLen: view.totalLen - view.headerLen,
    options: view.options(),
  };
}

/**
 * Writes the header of `repr` into `view`, checksum included; the payload must already sit
 * after the header. Throws RangeError for a repr no header can carry (a programmer error).
 */
export function emitIpv4(repr: Ipv4Repr, view: Ipv4View): void {
  const headerLen = ipv4HeaderLen(repr);
  const totalLen = headerLen + repr.payloadLen;
  if (totalLen > 0xffff) throw new RangeError(`IPv4 total length ${totalLen} exceeds 65535`);
  if (repr.fragmentOffset % FRAG_UNIT !== 0 || repr.fragmentOffset > FRAG_OFFSET_MASK * FRAG_UNIT) {
    throw new RangeError(`IPv4 fragment offset ${repr.fragmentOffset} is not a multiple of 8 up to 65528`);
  }
  view.bytes[view.offset + VERSION_IHL] = (4 << 4) | (headerLen >>> 2);
  view.bytes[view.offset + DSCP_ECN] = ((repr.dscp & 0x3f) << 2) | (repr.ecn & 0x3);
  view.totalLen = totalLen;
  view.ident = repr.ident;
  writeU16(
    view.bytes,
    view.offset + FLAGS_FRAG_OFFSET,
    (repr.dontFragment ? DF_FLAG : 0) |
      (repr.moreFragments ? MF_FLAG : 0) |
      (repr.fragmentOffset / FRAG_UNIT),
  );
  view.ttl = repr.ttl;
  view.protocol = repr.protocol;
  view.srcAddr = repr.srcAddr;
  view.dstAddr = repr.dstAddr;
  const options = view.offset + OPTIONS;
  view.bytes.set(repr.options, options);
  view.bytes.fill(OPTION_EOL, options + repr.options.length, view.offset + headerLen);
  view.fillChecksum();
}

/** 20 bytes plus the options rounded up to a multiple of 4; throws RangeError past 60. */
export function ipv4HeaderLen(repr: Ipv4Repr): number {
  const headerLen = IPV4_MIN_HEADER_LEN + Math.ceil(repr.options.length / 4) * 4;
  if (headerLen > IPV4_MAX_HEADER_LEN) {
    throw new RangeError(`IPv4 options of ${repr.options.length} bytes exceed 40`);
  }
  return headerLen;
}
