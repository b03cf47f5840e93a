// ICMPv4 (RFC 792, RFC 1191): view, repr, parse and emit with the message checksum for echo, destination unreachable (with the next-hop MTU) and time exceeded; every other type is carried raw, and RFC 4884 extensions are not parsed.
//
//  0                   1                   2                   3
//  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |     Type      |     Code      |          Checksum             |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |           Identifier          |        Sequence Number        |  echo request (8) / reply (0)
// |             unused            |         Next-Hop MTU          |  destination unreachable (3)
// |                             unused                            |  time exceeded (11)
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |  echo data, or for errors the quoted IP header + at least 8 bytes of its payload ...
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-

import { readU16, readU32, writeU16, writeU32 } from './bytes.ts';
import { checksumIsValid, internetChecksum } from './checksum.ts';
import { WireError } from './error.ts';
import { IPV4_MIN_HEADER_LEN } from './ipv4.ts';

const TYPE = 0;
const CODE = 1;
const CHECKSUM = 2;
const REST_OF_HEADER = 4;
const IDENT = REST_OF_HEADER;
const SEQ_NO = REST_OF_HEADER + 2;
const NEXT_HOP_MTU = REST_OF_HEADER + 2;
export const ICMPV4_HEADER_LEN = REST_OF_HEADER + 4;

export const ICMPV4_ECHO_REPLY = 0;
export const ICMPV4_DEST_UNREACHABLE = 3;
export const ICMPV4_ECHO_REQUEST = 8;
export const ICMPV4_TIME_EXCEEDED = 11;

/** Destination unreachable codes (RFC 792, RFC 1122, RFC 1812), named as in <linux/icmp.h>. */
export const ICMPV4_NET_UNREACH = 0;
export const ICMPV4_HOST_UNREACH = 1;
export const ICMPV4_PROT_UNREACH = 2;
export const ICMPV4_PORT_UNREACH = 3;
/** Fragmentation needed and DF set; carries the next-hop MTU (RFC 1191). */
export const ICMPV4_FRAG_NEEDED = 4;
export const ICMPV4_SR_FAILED = 5;
export const ICMPV4_NET_UNKNOWN = 6;
export const ICMPV4_HOST_UNKNOWN = 7;
export const ICMPV4_HOST_ISOLATED = 8;
export const ICMPV4_NET_ANO = 9;
export const ICMPV4_HOST_ANO = 10;
export const ICMPV4_NET_UNR_TOS = 11;
export const ICMPV4_HOST_UNR_TOS = 12;
export const ICMPV4_PKT_FILTERED = 13;
export const ICMPV4_PREC_VIOLATION = 14;
export const ICMPV4_PREC_CUTOFF = 15;
/** Time exceeded codes. */
export const ICMPV4_EXC_TTL = 0;
export const ICMPV4_EXC_FRAGTIME = 1;

export type DestUnreachableCode = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15;
export type TimeExceededCode = 0 | 1;

/**
 * The least an error must quote to be used: an option-less IPv4 header plus 8 bytes of its
 * payload (RFC 792); icmp_unreach and icmp_socket_deliver drop shorter quotes as errors.
 */
const MIN_QUOTED_LEN = IPV4_MIN_HEADER_LEN + 8;

const TRUNCATED = new WireError('icmpv4.truncated');
const BAD_CHECKSUM = new WireError('icmpv4.bad-checksum');

/**
 * A zero-copy view of an ICMPv4 message at `offset` in `bytes`. ICMP has no length field:
 * the message runs to the buffer's end, so pass the IPv4 payload (`Ipv4View.payload()`).
 */
export class Icmpv4View {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
  ) {}

  /** A view whose 8-byte header fits in the buffer. */
  static checked(bytes: Uint8Array, offset = 0): Icmpv4View | WireError {
    if (bytes.length - offset < ICMPV4_HEADER_LEN) return TRUNCATED;
    return new Icmpv4View(bytes, offset);
  }

  /** A view for writing into a buffer the caller has sized to end where the message ends; no checks. */
  static unchecked(bytes: Uint8Array, offset = 0): Icmpv4View {
    return new Icmpv4View(bytes, offset);
  }

  get type(): number {
    return this.bytes[this.offset + TYPE]!;
  }
  set type(type: number) {
    this.bytes[this.offset + TYPE] = type;
  }
  get code(): number {
    return this.bytes[this.offset + CODE]!;
  }
  set code(code: number) {
    this.bytes[this.offset + CODE] = code;
  }
  get checksum(): number {
    return readU16(this.bytes, this.offset + CHECKSUM);
  }
  set checksum(checksum: number) {
    writeU16(this.bytes, this.offset + CHECKSUM, checksum);
  }
  /** Bytes 4-7 as one unsigned 32-bit number, whatever the type makes of them. */
  get restOfHeader(): number {
    return readU32(this.bytes, this.offset + REST_OF_HEADER);
  }
  set restOfHeader(rest: number) {
    writeU32(this.bytes, this.offset + REST_OF_HEADER, rest);
  }
  /** Echo identifier (bytes 4-5). */
  get ident(): number {
    return readU16(this.bytes, this.offset + IDENT);
  }
  set ident(ident: number) {
    writeU16(this.bytes, this.offset + IDENT, ident);
  }
  /** Echo sequence number (bytes 6-7). */
  get seqNo(): number {
    return readU16(this.bytes, this.offset + SEQ_NO);
  }
  set seqNo(seqNo: number) {
    writeU16(this.bytes, this.offset + SEQ_NO, seqNo);
  }
  /** Next-hop MTU in bytes of a fragmentation-needed message (bytes 6-7, RFC 1191). */
  get nextHopMtu(): number {
    return readU16(this.bytes, this.offset + NEXT_HOP_MTU);
  }
  set nextHopMtu(mtu: number) {
    writeU16(this.bytes, this.offset + NEXT_HOP_MTU, mtu);
  }

  /** Everything after the 8-byte header, to the end of the message. */
  payload(): Uint8Array {
    return this.bytes.subarray(this.offset + ICMPV4_HEADER_LEN);
  }

  /** The payload of an error message: the original IP header and the start of its payload. */
  quoted(): Uint8Array {
    return this.payload();
  }

  /** True when the whole message sums to 0xffff, checksum field included. */
  verifyChecksum(): boolean {
    return checksumIsValid(this.bytes, this.offset, this.bytes.length);
  }

  /** Computes and stores the checksum over the whole message. */
  fillChecksum(): void {
    this.checksum = 0;
    this.checksum = internetChecksum(this.bytes, this.offset, this.bytes.length);
  }
}

export interface Icmpv4EchoRepr {
  readonly kind: 'echo-request' | 'echo-reply';
  readonly ident: number;
  readonly seqNo: number;
  readonly data: Uint8Array;
}

export interface Icmpv4DestUnreachableRepr {
  readonly kind: 'dest-unreachable';
  readonly code: DestUnreachableCode;
  /** Bytes 6-7: the next-hop MTU for ICMPV4_FRAG_NEEDED (RFC 1191), 0 for the other codes. */
  readonly nextHopMtu: number;
  /** The original IP header and at least 8 bytes of its payload. */
  readonly quoted: Uint8Array;
}

export interface Icmpv4TimeExceededRepr {
  readonly kind: 'time-exceeded';
  readonly code: TimeExceededCode;
  /** The original IP header and at least 8 bytes of its payload. */
  readonly quoted: Uint8Array;
}

/** Any other type, or a known type with a code this module does not name, carried raw. */
export interface Icmpv4OtherRepr {
  readonly kind: 'other';
  readonly type: number;
  readonly code: number;
  /** Bytes 4-7 as one unsigned 32-bit number. */
  readonly restOfHeader: number;
  readonly data: Uint8Array;
}

/** The meaningful fields of an ICMPv4 message, its body included (as a subarray when parsed). */
export type Icmpv4Repr =
  | Icmpv4EchoRepr
  | Icmpv4DestUnreachableRepr
  | Icmpv4TimeExceededRepr
  | Icmpv4OtherRepr;

function isDestUnreachableCode(code: number): code is DestUnreachableCode {
  return code <= ICMPV4_PREC_CUTOFF;
}

function isTimeExceededCode(code: number): code is TimeExceededCode {
  return code <= ICMPV4_EXC_FRAGTIME;
}

/**
 * Reads a checked view into a repr. Like icmp_rcv, the checksum is verified first; an error
 * message quoting less than an IPv4 header plus 8 bytes is then `icmpv4.truncated`. Echo
 * with a non-zero code, and codes beyond those named above, come back as `other`.
 */
export function parseIcmpv4(view: Icmpv4View): Icmpv4Repr | WireError {
  if (!view.verifyChecksum()) return BAD_CHECKSUM;
  const type = view.type;
  const code = view.code;
  if ((type === ICMPV4_ECHO_REQUEST || type === ICMPV4_ECHO_REPLY) && code === 0) {
    return {
      kind: type === ICMPV4_ECHO_REQUEST ? 'echo-request' : 'echo-reply',
      ident: view.ident,
      seqNo: view.seqNo,
      data: view.payload(),
    };
  }
  if (type === ICMPV4_DEST_UNREACHABLE && isDestUnreachableCode(code)) {
    const quoted = view.quoted();
    if (quoted.length < MIN_QUOTED_LEN) return TRUNCATED;
    return { kind: 'dest-unreachable', code, nextHopMtu: view.nextHopMtu, quoted };
  }
  if (type === ICMPV4_TIME_EXCEEDED && isTimeExceededCode(code)) {
    const quoted = view.quoted();
    if (quoted.length < MIN_QUOTED_LEN) return TRUNCATED;
    return { kind: 'time-exceeded', code, quoted };
  }
  return { kind: 'other', type, code, restOfHeader: view.restOfHeader, data: view.payload() };
}

/** The body after the 8-byte header: echo or raw data, or the quoted datagram. */
function body(repr: Icmpv4Repr): Uint8Array {
  switch (repr.kind) {
    case 'echo-request':
    case 'echo-reply':
    case 'other':
      return repr.data;
    case 'dest-unreachable':
    case 'time-exceeded':
      return repr.quoted;
    default: {
      const unknown: never = repr;
      throw new Error(`unknown ICMPv4 repr ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * Writes the whole message of `repr` into `view`, body and checksum included. The view's
 * buffer must end where the message ends (see icmpv4Len); anything else is a programmer
 * error and throws RangeError, since the checksum covers up to the buffer's end.
 */
export function emitIcmpv4(repr: Icmpv4Repr, view: Icmpv4View): void {
  const data = body(repr);
  if (view.bytes.length - view.offset !== ICMPV4_HEADER_LEN + data.length) {
    throw new RangeError('the ICMPv4 view must end where the message ends');
  }
  switch (repr.kind) {
    case 'echo-request':
    case 'echo-reply':
      view.type = repr.kind === 'echo-request' ? ICMPV4_ECHO_REQUEST : ICMPV4_ECHO_REPLY;
      view.code = 0;
      view.ident = repr.ident;
      view.seqNo = repr.seqNo;
      break;
    case 'dest-unreachable':
      view.type = ICMPV4_DEST_UNREACHABLE;
      view.code = repr.code;
      writeU16(view.bytes, view.offset + REST_OF_HEADER, 0);
      view.nextHopMtu = repr.nextHopMtu;
      break;
    case 'time-exceeded':
      view.type = ICMPV4_TIME_EXCEEDED;
      view.code = repr.code;
      view.restOfHeader = 0;
      break;
    case 'other':
      view.type = repr.type;
      view.code = repr.code;
      view.restOfHeader = repr.restOfHeader;
      break;
    default: {
      const unknown: never = repr;
      throw new Error(`unknown ICMPv4 repr ${JSON.stringify(unknown)}`);
    }
  }
  view.bytes.set(data, view.offset + ICMPV4_HEADER_LEN);
  view.fillChecksum();
}

export function icmpv4HeaderLen(_repr: Icmpv4Repr): number {
  return ICMPV4_HEADER_LEN;
}

/** The whole message's length: header plus body. */
export function icmpv4Len(repr: Icmpv4Repr): number {
  return ICMPV4_HEADER_LEN + body(repr).length;
}
