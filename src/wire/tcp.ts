// TCP (RFC 9293): header view, options, repr, parse and emit with the IPv4 pseudo-header checksum;
// MD5/TCP-AO signatures, MPTCP and Fast Open are not decoded (they stay raw options).
//
//  0                   1                   2                   3
//  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |          Source Port          |       Destination Port        |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                        Sequence Number                        |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                    Acknowledgment Number                      |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |  Data |       |C|E|U|A|P|R|S|F|                               |
// | Offset| Rsrvd |W|C|R|C|S|S|Y|I|            Window             |
// |       |       |R|E|G|K|H|T|N|N|                               |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |           Checksum            |         Urgent Pointer        |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                           [Options]                           |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                             Data ...
//
// TCP has no length field: the segment ends where the IPv4 total length says, so views take
// an explicit `segmentLen` (default: to the end of the buffer).

import { readU16, readU32, writeU16, writeU32 } from './bytes.ts';
import { checksumIsValid, internetChecksum, pseudoHeaderSum } from './checksum.ts';
import { WireError } from './error.ts';
import type { PseudoHeader } from './udp.ts';

const SRC_PORT = 0;
const DST_PORT = 2;
const SEQ_NUMBER = 4;
const ACK_NUMBER = 8;
const DATA_OFFSET = 12; // high nibble: header length in 32-bit words; low nibble: reserved
const FLAGS = 13;
const WINDOW = 14;
const CHECKSUM = 16;
const URGENT_POINTER = 18;
/** The fixed header, without options. */
export const TCP_HEADER_LEN = URGENT_POINTER + 2;
/** The data offset is 4 bits of 32-bit words: 15 * 4 bytes. */
export const TCP_MAX_HEADER_LEN = 15 * 4;
/** Room for options after the fixed header. */
export const TCP_MAX_OPTIONS_LEN = TCP_MAX_HEADER_LEN - TCP_HEADER_LEN;

// IPPROTO_TCP is exported by ipv4.ts; wire files do not re-export each other's numbers.
const PROTOCOL_TCP = 6;

const FLAG_FIN = 0x01;
const FLAG_SYN = 0x02;
const FLAG_RST = 0x04;
const FLAG_PSH = 0x08;
const FLAG_ACK = 0x10;
const FLAG_URG = 0x20;
const FLAG_ECE = 0x40;
const FLAG_CWR = 0x80;

/** Option kinds (IANA "TCP Option Kind Numbers"). */
export const TCPOPT_EOL = 0;
export const TCPOPT_NOP = 1;
export const TCPOPT_MSS = 2;
export const TCPOPT_WINDOW_SCALE = 3;
export const TCPOPT_SACK_PERMITTED = 4;
export const TCPOPT_SACK = 5;
export const TCPOPT_TIMESTAMPS = 8;

// Option lengths, kind and length bytes included.
const OPTLEN_MSS = 4;
const OPTLEN_WINDOW_SCALE = 3;
const OPTLEN_SACK_PERMITTED = 2;
const OPTLEN_SACK_BLOCK = 8;
const OPTLEN_TIMESTAMPS = 10;
/** Kind and length bytes of every option other than EOL and NOP. */
const OPT_HEADER_LEN = 2;

const TRUNCATED = new WireError('tcp.truncated');
const DATA_OFFSET_TOO_SMALL = new WireError('tcp.data-offset-too-small');
const DATA_OFFSET_EXCEEDS_BUFFER = new WireError('tcp.data-offset-exceeds-buffer');
const BAD_OPTION = new WireError('tcp.bad-option');
const BAD_CHECKSUM = new WireError('tcp.bad-checksum');

/** A zero-copy view of a TCP segment at `offset` in `bytes`, `segmentLen` bytes long. */
export class TcpView {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
    /** Header plus payload, in bytes, as the IPv4 total length declares it. */
    readonly segmentLen: number,
  ) {}

  /**
   * A view whose fixed header and data offset have been checked against the segment and the
   * segment against the buffer. Options are walked by parseTcp/parseTcpOptions, bounded by
   * headerLen, so a bad option never makes an accessor read outside the header.
   */
  static checked(bytes: Uint8Array, offset = 0, segmentLen = bytes.length - offset): TcpView | WireError {
    if (segmentLen < TCP_HEADER_LEN || segmentLen > bytes.length - offset) return TRUNCATED;
    const headerLen = (bytes[offset + DATA_OFFSET]! >>> 4) * 4;
    if (headerLen < TCP_HEADER_LEN) return DATA_OFFSET_TOO_SMALL;
    if (headerLen > segmentLen) return DATA_OFFSET_EXCEEDS_BUFFER;
    return new TcpView(bytes, offset, segmentLen);
  }

  /** A view for writing into a buffer the caller has sized; no checks. */
  static unchecked(bytes: Uint8Array, offset = 0, segmentLen = bytes.length - offset): TcpView {
    return new TcpView(bytes, offset, segmentLen);
  }

  get srcPort(): number {
    return readU16(this.bytes, this.offset + SRC_PORT);
  }
  set srcPort(port: number) {
    writeU16(this.bytes, this.offset + SRC_PORT, port);
  }
  get dstPort(): number {
    return readU16(this.bytes, this.offset + DST_PORT);
  }
  set dstPort(port: number) {
    writeU16(this.bytes, this.offset + DST_PORT, port);
  }
  /** Unsigned 32-bit. */
  get seqNumber(): number {
    return readU32(this.bytes, this.offset + SEQ_NUMBER);
  }
  set seqNumber(seq: number) {
    writeU32(this.bytes, this.offset + SEQ_NUMBER, seq);
  }
  /** Unsigned 32-bit. */
  get ackNumber(): number {
    return readU32(this.bytes, this.offset + ACK_NUMBER);
  }
  set ackNumber(ack: number) {
    writeU32(this.bytes, this.offset + ACK_NUMBER, ack);
  }
  /** The data offset in bytes (20 to 60); setting it keeps the reserved bits. */
  get headerLen(): number {
    return (this.bytes[this.offset + DATA_OFFSET]! >>> 4) * 4;
  }
  set headerLen(headerLen: number) {
    const at = this.offset + DATA_OFFSET;
    this.bytes[at] = (((headerLen / 4) & 0x0f) << 4) | (this.bytes[at]! & 0x0f);
  }
  /** The four reserved bits after the data offset (the lowest is AccECN's AE bit). */
  get reserved(): number {
    return this.bytes[this.offset + DATA_OFFSET]! & 0x0f;
  }
  set reserved(bits: number) {
    const at = this.offset + DATA_OFFSET;
    this.bytes[at] = (this.bytes[at]! & 0xf0) | (bits & 0x0f);
  }
  /** The raw flags byte, CWR in the high bit down to FIN in the low bit. */
  get flags(): number {
    return this.bytes[this.offset + FLAGS]!;
  }
  set flags(flags: number) {
    this.bytes[this.offset + FLAGS] = flags & 0xff;
  }
  get fin(): boolean {
    return (this.flags & FLAG_FIN) !== 0;
  }
  set fin(on: boolean) {
    this.setFlag(FLAG_FIN, on);
  }
  get syn(): boolean {
    return (this.flags & FLAG_SYN) !== 0;
  }
  set syn(on: boolean) {
    this.setFlag(FLAG_SYN, on);
  }
  get rst(): boolean {
    return (this.flags & FLAG_RST) !== 0;
  }
  set rst(on: boolean) {
    this.setFlag(FLAG_RST, on);
  }
  get psh(): boolean {
    return (this.flags & FLAG_PSH) !== 0;
  }
  set psh(on: boolean) {
    this.setFlag(FLAG_PSH, on);
  }
  get ack(): boolean {
    return (this.flags & FLAG_ACK) !== 0;
  }
  set ack(on: boolean) {
    this.setFlag(FLAG_ACK, on);
  }
  get urg(): boolean {
    return (this.flags & FLAG_URG) !== 0;
  }
  set urg(on: boolean) {
    this.setFlag(FLAG_URG, on);
  }
  get ece(): boolean {
    return (this.flags & FLAG_ECE) !== 0;
  }
  set ece(on: boolean) {
    this.setFlag(FLAG_ECE, on);
  }
  get cwr(): boolean {
    return (this.flags & FLAG_CWR) !== 0;
  }
  set cwr(on: boolean) {
    this.setFlag(FLAG_CWR, on);
  }
  /** The raw window field (unscaled). */
  get window(): number {
    return readU16(this.bytes, this.offset + WINDOW);
  }
  set window(window: number) {
    writeU16(this.bytes, this.offset + WINDOW, window);
  }
  get checksum(): number {
    return readU16(this.bytes, this.offset + CHECKSUM);
  }
  set checksum(checksum: number) {
    writeU16(this.bytes, this.offset + CHECKSUM, checksum);
  }
  get urgentPointer(): number {
    return readU16(this.bytes, this.offset + URGENT_POINTER);
  }
  set urgentPointer(pointer: number) {
    writeU16(this.bytes, this.offset + URGENT_POINTER, pointer);
  }

  /** The options area, between the fixed header and the data offset. */
  options(): Uint8Array {
    return this.bytes.subarray(this.offset + TCP_HEADER_LEN, this.offset + this.headerLen);
  }

  /** The payload, from the data offset to the end of the segment (not the buffer's end). */
  payload(): Uint8Array {
    return this.bytes.subarray(this.offset + this.headerLen, this.offset + this.segmentLen);
  }

  /** True when the checksum over pseudo-header, header and payload verifies (RFC 9293 3.1). */
  verifyChecksum(pseudo: PseudoHeader): boolean {
    const initial = pseudoSum(pseudo, this.segmentLen);
    return checksumIsValid(this.bytes, this.offset, this.offset + this.segmentLen, initial);
  }

  /** Computes and stores the checksum over the first `segmentLen` bytes (default: the view's segment). */
  fillChecksum(pseudo: PseudoHeader, segmentLen = this.segmentLen): void {
    this.checksum = 0;
    const initial = pseudoSum(pseudo, segmentLen);
    this.checksum = internetChecksum(this.bytes, this.offset, this.offset + segmentLen, initial);
  }

  private setFlag(bit: number, on: boolean): void {
    const at = this.offset + FLAGS;
    this.bytes[at] = on ? this.bytes[at]! | bit : this.bytes[at]! & ~bit;
  }
}

function pseudoSum(pseudo: PseudoHeader, segmentLen: number): number {
  return pseudoHeaderSum(pseudo.srcAddr, pseudo.dstAddr, PROTOCOL_TCP, segmentLen);
}

/** The eight control bits, as booleans. */
export interface TcpFlags {
  readonly fin: boolean;
  readonly syn: boolean;
  readonly rst: boolean;
  readonly psh: boolean;
  readonly ack: boolean;
  readonly urg: boolean;
  readonly ece: boolean;
  readonly cwr: boolean;
}

/** Every flag clear: spread it and set the ones a segment carries (`{ ...NO_TCP_FLAGS, syn: true }`). */
export const NO_TCP_FLAGS: TcpFlags = {
  fin: false,
  syn: false,
  rst: false,
  psh: false,
  ack: false,
  urg: false,
  ece: false,
  cwr: false,
};

/** One SACK block (RFC 2018): the sequence numbers of the first byte and the byte after the last. */
export interface SackBlock {
  readonly left: number;
  readonly right: number;
}

/**
 * One TCP option. EOL and NOP are one byte; every other kind is kind, length, data.
 * Kinds not decoded here (MD5, TCP-AO, MPTCP, Fast Open, experiments) stay raw as 'unknown';
 * an 'unknown' never carries a decoded kind (0-5, 8), and a 'sack' has 1 to 4 blocks.
 */
export type TcpOption =
  | { readonly type: 'eol' }
  | { readonly type: 'nop' }
  | { readonly type: 'mss'; readonly mss: number }
  | { readonly type: 'window-scale'; readonly shift: number }
  | { readonly type: 'sack-permitted' }
  | { readonly type: 'sack'; readonly blocks: readonly SackBlock[] }
  | { readonly type: 'timestamps'; readonly tsVal: number; readonly tsEcr: number }
  | { readonly type: 'unknown'; readonly kind: number; readonly data: Uint8Array };

/** The meaningful fields of a TCP header; the payload travels separately. */
export interface TcpRepr {
  readonly srcPort: number;
  readonly dstPort: number;
  readonly seqNumber: number;
  readonly ackNumber: number;
  readonly flags: TcpFlags;
  readonly window: number;
  readonly urgentPointer: number;
  /** In wire order; after an 'eol' nothing is read (RFC 9293: the rest is padding). */
  readonly options: readonly TcpOption[];
  readonly payloadLen: number;
}

/**
 * Walks the options area of a checked view. An option whose length byte is missing, below 2
 * or past the header, or a known kind with the wrong length, is 'tcp.bad-option'.
 * (Linux's tcp_parse_options skips such options silently; the stack may read the view instead.)
 */
export function parseTcpOptions(view: TcpView): TcpOption[] | WireError {
  const bytes = view.bytes;
  const end = view.offset + view.headerLen;
  const options: TcpOption[] = [];
  let at = view.offset + TCP_HEADER_LEN;
  while (at < end) {
    const kind = bytes[at]!;
    if (kind === TCPOPT_EOL) {
      options.push({ type: 'eol' });
      break;
    }
    if (kind === TCPOPT_NOP) {
      options.push({ type: 'nop' });
      at += 1;
      continue;
    }
    if (at + OPT_HEADER_LEN > end) return BAD_OPTION;
    const length = bytes[at + 1]!;
    if (length < OPT_HEADER_LEN || at + length > end) return BAD_OPTION;
    const option = decodeOption(bytes, at, kind, length);
    if (option === undefined) return BAD_OPTION;
    options.push(option);
    at += length;
  }
  return options;
}

/** One kind-length-data option already bounded by the header; undefined when its length is wrong for its kind. */
function decodeOption(bytes: Uint8Array, at: number, kind: number, length: number): TcpOption | undefined {
  switch (kind) {
    case TCPOPT_MSS:
      return length === OPTLEN_MSS ? { type: 'mss', mss: readU16(bytes, at + 2) } : undefined;
    case TCPOPT_WINDOW_SCALE:
      return length === OPTLEN_WINDOW_SCALE ? { type: 'window-scale', shift: bytes[at + 2]! } : undefined;
    case TCPOPT_SACK_PERMITTED:
      return length === OPTLEN_SACK_PERMITTED ? { type: 'sack-permitted' } : undefined;
    case TCPOPT_SACK: {
      const blocksLen = length - OPT_HEADER_LEN;
      if (blocksLen === 0 || blocksLen % OPTLEN_SACK_BLOCK !== 0) return undefined;
      const blocks: SackBlock[] = [];
      for (let block = at + OPT_HEADER_LEN; block < at + length; block += OPTLEN_SACK_BLOCK) {
        blocks.push({ left: readU32(bytes, block), right: readU32(bytes, block + 4) });
      }
      return { type: 'sack', blocks };
    }
    case TCPOPT_TIMESTAMPS:
      return length === OPTLEN_TIMESTAMPS
        ? { type: 'timestamps', tsVal: readU32(bytes, at + 2), tsEcr: readU32(bytes, at + 6) }
        : undefined;
    default:
      return { type: 'unknown', kind, data: bytes.slice(at + OPT_HEADER_LEN, at + length) };
  }
}

/** Bytes an option takes on the wire. */
export function tcpOptionLen(option: TcpOption): number {
  switch (option.type) {
    case 'eol':
    case 'nop':
      return 1;
    case 'mss':
      return OPTLEN_MSS;
    case 'window-scale':
      return OPTLEN_WINDOW_SCALE;
    case 'sack-permitted':
      return OPTLEN_SACK_PERMITTED;
    case 'sack':
      return OPT_HEADER_LEN + option.blocks.length * OPTLEN_SACK_BLOCK;
    case 'timestamps':
      return OPTLEN_TIMESTAMPS;
    case 'unknown':
      return OPT_HEADER_LEN + option.data.length;
    default:
      return unreachable(option);
  }
}

/** Writes one option at `at` and returns the offset after it. */
function emitOption(option: TcpOption, bytes: Uint8Array, at: number): number {
  switch (option.type) {
    case 'eol':
      bytes[at] = TCPOPT_EOL;
      return at + 1;
    case 'nop':
      bytes[at] = TCPOPT_NOP;
      return at + 1;
    case 'mss':
      bytes[at] = TCPOPT_MSS;
      bytes[at + 1] = OPTLEN_MSS;
      writeU16(bytes, at + 2, option.mss);
      return at + OPTLEN_MSS;
    case 'window-scale':
      bytes[at] = TCPOPT_WINDOW_SCALE;
      bytes[at + 1] = OPTLEN_WINDOW_SCALE;
      bytes[at + 2] = option.shift;
      return at + OPTLEN_WINDOW_SCALE;
    case 'sack-permitted':
      bytes[at] = TCPOPT_SACK_PERMITTED;
      bytes[at + 1] = OPTLEN_SACK_PERMITTED;
      return at + OPTLEN_SACK_PERMITTED;
    case 'sack': {
      const length = tcpOptionLen(option);
      bytes[at] = TCPOPT_SACK;
      bytes[at + 1] = length;
      let block = at + OPT_HEADER_LEN;
      for (const { left, right } of option.blocks) {
        writeU32(bytes, block, left);
        writeU32(bytes, block + 4, right);
        block += OPTLEN_SACK_BLOCK;
      }
      return at + length;
    }
    case 'timestamps':
      bytes[at] = TCPOPT_TIMESTAMPS;
      bytes[at + 1] = OPTLEN_TIMESTAMPS;
      writeU32(bytes, at + 2, option.tsVal);
      writeU32(bytes, at + 6, option.tsEcr);
      return at + OPTLEN_TIMESTAMPS;
    case 'unknown':
      bytes[at] = option.kind;
      bytes[at + 1] = OPT_HEADER_LEN + option.data.length;
      bytes.set(option.data, at + OPT_HEADER_LEN);
      return at + OPT_HEADER_LEN + option.data.length;
    default:
      return unreachable(option);
  }
}

function unreachable(value: never): never {
  throw new Error(`unhandled TCP option ${JSON.stringify(value)}`);
}

/** Reads a checked view into a repr; with a pseudo-header, a bad checksum is an error. */
export function parseTcp(view: TcpView, pseudo?: PseudoHeader): TcpRepr | WireError {
  if (pseudo !== undefined && !view.verifyChecksum(pseudo)) return BAD_CHECKSUM;
  const options = parseTcpOptions(view);
  if (options instanceof WireError) return options;
  return {
    srcPort: view.srcPort,
    dstPort: view.dstPort,
    seqNumber: view.seqNumber,
    ackNumber: view.ackNumber,
    flags: {
      fin: view.fin,
      syn: view.syn,
      rst: view.rst,
      psh: view.psh,
      ack: view.ack,
      urg: view.urg,
      ece: view.ece,
      cwr: view.cwr,
    },
    window: view.window,
    urgentPointer: view.urgentPointer,
    options,
    payloadLen: view.segmentLen - view.headerLen,
  };
}

/**
 * Writes the header of `repr` into `view`; the payload must already sit after the header.
 * Options go in the order given; the gap to the next 4-byte boundary is filled with EOL
 * (zero) bytes, as RFC 9293 asks. Alignment inside the list is the caller's: Linux sends
 * its SYN as mss, sack-permitted, timestamps, nop, window-scale. Reserved bits are written 0.
 * With a pseudo-header the checksum covers headerLen + payloadLen bytes; without one it is 0.
 */
export function emitTcp(repr: TcpRepr, view: TcpView, pseudo?: PseudoHeader): void {
  const headerLen = tcpHeaderLen(repr);
  view.srcPort = repr.srcPort;
  view.dstPort = repr.dstPort;
  view.seqNumber = repr.seqNumber;
  view.ackNumber = repr.ackNumber;
  view.bytes[view.offset + DATA_OFFSET] = (headerLen / 4) << 4;
  view.flags = encodeFlags(repr.flags);
  view.window = repr.window;
  view.checksum = 0;
  view.urgentPointer = repr.urgentPointer;
  let at = view.offset + TCP_HEADER_LEN;
  for (const option of repr.options) at = emitOption(option, view.bytes, at);
  view.bytes.fill(TCPOPT_EOL, at, view.offset + headerLen);
  if (pseudo !== undefined) view.fillChecksum(pseudo, headerLen + repr.payloadLen);
}

function encodeFlags(flags: TcpFlags): number {
  return (
    (flags.fin ? FLAG_FIN : 0) |
    (flags.syn ? FLAG_SYN : 0) |
    (flags.rst ? FLAG_RST : 0) |
    (flags.psh ? FLAG_PSH : 0) |
    (flags.ack ? FLAG_ACK : 0) |
    (flags.urg ? FLAG_URG : 0) |
    (flags.ece ? FLAG_ECE : 0) |
    (flags.cwr ? FLAG_CWR : 0)
  );
}

/** Fixed header plus options rounded up to 4 bytes; options past 40 bytes are a programmer error. */
export function tcpHeaderLen(repr: TcpRepr): number {
  let optionsLen = 0;
  for (const option of repr.options) optionsLen += tcpOptionLen(option);
  if (optionsLen > TCP_MAX_OPTIONS_LEN) {
    throw new RangeError(`TCP options take ${optionsLen} bytes, more than ${TCP_MAX_OPTIONS_LEN}`);
  }
  return TCP_HEADER_LEN + ((optionsLen + 3) & ~3);
}
