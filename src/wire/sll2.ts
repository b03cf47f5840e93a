// Linux cooked capture v2 (LINKTYPE_LINUX_SLL2, what `tcpdump -i any` writes): the 20-byte pseudo
// link header before each packet; no v1 (LINKTYPE_LINUX_SLL) header, and an address longer than
// 8 bytes keeps only its first 8, as libpcap stores it.
//
// +---------------------------+
// |      Protocol type        |  2 bytes: an EtherType (or 0x0001/0x0004 for 802.3/802.2 frames)
// +---------------------------+
// |      Reserved (MBZ)       |  2 bytes
// +---------------------------+
// |      Interface index      |  4 bytes
// +---------------------------+
// |       ARPHRD_ type        |  2 bytes: the device type (ARPHRD_ETHER, ARPHRD_LOOPBACK, ...)
// +---------------------------+
// |       Packet type         |  1 byte: PACKET_HOST ... PACKET_OUTGOING
// +---------------------------+
// | Link-layer address length |  1 byte
// +---------------------------+
// |    Link-layer address     |  8 bytes: the sender's address, zero-padded
// +---------------------------+
// |          Payload ...      |  starts at the network header (the link header is gone)

import { type MacAddr, readMac, writeMac } from './address.ts';
import { readU16, readU32, writeU16, writeU32 } from './bytes.ts';
import { WireError } from './error.ts';

const PROTOCOL = 0;
const RESERVED = 2;
const IF_INDEX = 4;
const HATYPE = 8;
const PACKET_TYPE = 10;
const ADDR_LEN = 11;
const ADDR = 12;
/** The address field is always 8 bytes, whatever the address length says. */
export const SLL2_ADDR_FIELD_LEN = 8;
export const SLL2_HEADER_LEN = ADDR + SLL2_ADDR_FIELD_LEN;

// The pcap link type of these headers, LINKTYPE_LINUX_SLL2 = 276, is exported by capture/pcap.ts.

/** Packet types, as in linux/if_packet.h. */
export const PACKET_HOST = 0;
export const PACKET_BROADCAST = 1;
export const PACKET_MULTICAST = 2;
export const PACKET_OTHERHOST = 3;
export const PACKET_OUTGOING = 4;

/** Device types, as in linux/if_arp.h (veth and bridges are ARPHRD_ETHER; lo is ARPHRD_LOOPBACK; tun is ARPHRD_NONE). */
export const ARPHRD_ETHER = 1;
export const ARPHRD_LOOPBACK = 772;
export const ARPHRD_NONE = 0xfffe;

/** A MAC address is the first 6 bytes of the address field. */
const MAC_LEN = 6;

const TRUNCATED = new WireError('sll2.truncated');

/** A zero-copy view of an SLL2 header and the packet after it at `offset` in `bytes`. */
export class Sll2View {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
  ) {}

  /** A view whose 20-byte header lies within the buffer (every field is fixed-size). */
  static checked(bytes: Uint8Array, offset = 0): Sll2View | WireError {
    if (bytes.length - offset < SLL2_HEADER_LEN) return TRUNCATED;
    return new Sll2View(bytes, offset);
  }

  /** A view for writing into a buffer the caller has sized; no checks. */
  static unchecked(bytes: Uint8Array, offset = 0): Sll2View {
    return new Sll2View(bytes, offset);
  }

  /** The EtherType of the payload (0x0800 for IPv4). */
  get protocol(): number {
    return readU16(this.bytes, this.offset + PROTOCOL);
  }
  set protocol(protocol: number) {
    writeU16(this.bytes, this.offset + PROTOCOL, protocol);
  }
  /** Must be zero. */
  get reserved(): number {
    return readU16(this.bytes, this.offset + RESERVED);
  }
  set reserved(bits: number) {
    writeU16(this.bytes, this.offset + RESERVED, bits);
  }
  get ifIndex(): number {
    return readU32(this.bytes, this.offset + IF_INDEX);
  }
  set ifIndex(ifIndex: number) {
    writeU32(this.bytes, this.offset + IF_INDEX, ifIndex);
  }
  /** The ARPHRD_ device type. */
  get hatype(): number {
    return readU16(this.bytes, this.offset + HATYPE);
  }
  set hatype(hatype: number) {
    writeU16(this.bytes, this.offset + HATYPE, hatype);
  }
  /** One of the PACKET_* constants. */
  get packetType(): number {
    return this.bytes[this.offset + PACKET_TYPE]!;
  }
  set packetType(packetType: number) {
    this.bytes[this.offset + PACKET_TYPE] = packetType & 0xff;
  }
  /** The sender's address length in bytes, which may exceed the 8 bytes the field keeps. */
  get addrLen(): number {
    return this.bytes[this.offset + ADDR_LEN]!;
  }
  set addrLen(addrLen: number) {
    this.bytes[this.offset + ADDR_LEN] = addrLen & 0xff;
  }
  /** The first 6 bytes of the address field as a MAC (meaningful when addrLen is 6). */
  get mac(): MacAddr {
    return readMac(this.bytes, this.offset + ADDR);
  }
  /** Writes a MAC and zeroes the 2 padding bytes; the address length is set separately. */
  set mac(mac: MacAddr) {
    writeMac(this.bytes, this.offset + ADDR, mac);
    this.bytes.fill(0, this.offset + ADDR + MAC_LEN, this.offset + SLL2_HEADER_LEN);
  }

  /** The stored address bytes: addrLen of them, at most 8. */
  addr(): Uint8Array {
    const start = this.offset + ADDR;
    return this.bytes.subarray(start, start + Math.min(this.addrLen, SLL2_ADDR_FIELD_LEN));
  }

  /** The packet from its network header on, to the end of the buffer (SLL2 declares no length). */
  payload(): Uint8Array {
    return this.bytes.subarray(this.offset + SLL2_HEADER_LEN);
  }
}

/** The meaningful fields of an SLL2 header; the packet travels separately. */
export interface Sll2Repr {
  readonly protocol: number;
  readonly ifIndex: number;
  readonly hatype: number;
  readonly packetType: number;
  /** The address length as declared; may exceed addr.length when the address was longer than 8 bytes. */
  readonly addrLen: number;
  /** The stored address bytes, min(addrLen, 8) of them. */
  readonly addr: Uint8Array;
}

/** Reads a checked view into a repr (every field is representable, so this never fails). */
export function parseSll2(view: Sll2View): Sll2Repr | WireError {
  return {
    protocol: view.protocol,
    ifIndex: view.ifIndex,
    hatype: view.hatype,
    packetType: view.packetType,
    addrLen: view.addrLen,
    addr: view.addr().slice(),
  };
}

/** Writes the header of `repr` into `view`: reserved 0, the address zero-padded to 8 bytes. */
export function emitSll2(repr: Sll2Repr, view: Sll2View): void {
  view.protocol = repr.protocol;
  view.reserved = 0;
  view.ifIndex = repr.ifIndex;
  view.hatype = repr.hatype;
  view.packetType = repr.packetType;
  view.addrLen = repr.addrLen;
  const start = view.offset + ADDR;
  const stored = repr.addr.subarray(0, SLL2_ADDR_FIELD_LEN);
  view.bytes.set(stored, start);
  view.bytes.fill(0, start + stored.length, start + SLL2_ADDR_FIELD_LEN);
}

export function sll2HeaderLen(_repr: Sll2Repr): number {
  return SLL2_HEADER_LEN;
}
