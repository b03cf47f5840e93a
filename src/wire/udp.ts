// UDP (RFC 768): header view, repr, parse and emit with the IPv4 pseudo-header checksum; no UDP-Lite.
//
//  0      7 8     15 16    23 24    31
// +--------+--------+--------+--------+
// |   Source Port   |    Dest Port    |
// +--------+--------+--------+--------+
// |     Length      |    Checksum     |
// +--------+--------+--------+--------+
// |          data octets ...

import type { Ipv4Addr } from './address.ts';
import { readU16, writeU16 } from './bytes.ts';
import { checksumIsValid, internetChecksum, pseudoHeaderSum } from './checksum.ts';
import { WireError } from './error.ts';

const SRC_PORT = 0;
const DST_PORT = 2;
const LENGTH = 4;
const CHECKSUM = 6;
export const UDP_HEADER_LEN = CHECKSUM + 2;
export const IPPROTO_UDP = 17;

const TRUNCATED = new WireError('udp.truncated');
const LENGTH_BELOW_HEADER = new WireError('udp.length-below-header');
const LENGTH_EXCEEDS_BUFFER = new WireError('udp.length-exceeds-buffer');
const BAD_CHECKSUM = new WireError('udp.bad-checksum');

/** The addresses of the IPv4 header around a segment, needed for its checksum. */
export interface PseudoHeader {
  readonly srcAddr: Ipv4Addr;
  readonly dstAddr: Ipv4Addr;
}

/** A zero-copy view of a UDP header and payload at `offset` in `bytes`. */
export class UdpView {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
  ) {}

  /** A view whose header and declared length have been checked against the buffer. */
  static checked(bytes: Uint8Array, offset = 0): UdpView | WireError {
    const available = bytes.length - offset;
    if (available < UDP_HEADER_LEN) return TRUNCATED;
    const length = readU16(bytes, offset + LENGTH);
    if (length < UDP_HEADER_LEN) return LENGTH_BELOW_HEADER;
    if (length > available) return LENGTH_EXCEEDS_BUFFER;
    return new UdpView(bytes, offset);
  }

  /** A view for writing into a buffer the caller has sized; no checks. */
  static unchecked(bytes: Uint8Array, offset = 0): UdpView {
    return new UdpView(bytes, offset);
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
  /** Header plus payload, in bytes. */
  get length(): number {
    return readU16(this.bytes, this.offset + LENGTH);
  }
  set length(length: number) {
    writeU16(this.bytes, this.offset + LENGTH, length);
  }
  get checksum(): number {
    return readU16(this.bytes, this.offset + CHECKSUM);
  }
  set checksum(checksum: number) {
    writeU16(this.bytes, this.offset + CHECKSUM, checksum);
  }

  /** The payload, up to the declared length (not the buffer's end). */
  payload(): Uint8Array {
    return this.bytes.subarray(this.offset + UDP_HEADER_LEN, this.offset + this.length);
  }

  /** True when the checksum is absent (zero) or verifies against the pseudo-header. */
  verifyChecksum(pseudo: PseudoHeader): boolean {
    if (this.checksum === 0) return true;
    const initial = pseudoHeaderSum(pseudo.srcAddr, pseudo.dstAddr, IPPROTO_UDP, this.length);
    return checksumIsValid(this.bytes, this.offset, this.offset + this.length, initial);
  }

  /** Computes and stores the checksum over header and payload; a computed 0 is sent as 0xffff. */
  fillChecksum(pseudo: PseudoHeader): void {
    this.checksum = 0;
    const initial = pseudoHeaderSum(pseudo.srcAddr, pseudo.dstAddr, IPPROTO_UDP, this.length);
    this.checksum = internetChecksum(this.bytes, this.offset, this.offset + this.length, initial) || 0xffff;
  }
}

/** The meaningful fields of a UDP header; the payload travels separately. */
export interface UdpRepr {
  readonly srcPort: number;
  readonly dstPort: number;
  readonly payloadLen: number;
}

/** Reads a checked view into a repr; with a pseudo-header, a bad checksum is an error. */
export function parseUdp(view: UdpView, pseudo?: PseudoHeader): UdpRepr | WireError {
  if (pseudo !== undefined && !view.verifyChecksum(pseudo)) return BAD_CHECKSUM;
  return { srcPort: view.srcPort, dstPort: view.dstPort, payloadLen: view.length - UDP_HEADER_LEN };
}

/**
 * Writes the header of `repr` into `view`; the payload must already sit after the header.
 * With a pseudo-header the checksum is computed, without one it is left 0 ("none").
 */
export function emitUdp(repr: UdpRepr, view: UdpView, pseudo?: PseudoHeader): void {
  view.srcPort = repr.srcPort;
  view.dstPort = repr.dstPort;
  view.length = UDP_HEADER_LEN + repr.payloadLen;
  view.checksum = 0;
  if (pseudo !== undefined) view.fillChecksum(pseudo);
}

export function udpHeaderLen(_repr: UdpRepr): number {
  return UDP_HEADER_LEN;
}
