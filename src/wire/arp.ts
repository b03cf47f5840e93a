// ARP for Ethernet and IPv4 (RFC 826): view, repr, parse and emit; no other hardware or protocol types, no RARP/InARP semantics (their operation codes stay representable as numbers).
//
//  0                   1                   2                   3
//  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |   Hardware type (1 Ethernet)  |   Protocol type (0x0800 IPv4) |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |  HW len (6)   | Proto len (4) |           Operation           |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                  Sender hardware address                      |
// +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                               |   Sender protocol address     |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |   Sender protocol (cont.)     |                               |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
// |                  Target hardware address                      |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                  Target protocol address                      |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import type { Ipv4Addr, MacAddr } from './address.ts';
import { readIpv4, readMac, writeIpv4, writeMac } from './address.ts';
import { readU16, writeU16 } from './bytes.ts';
import { WireError } from './error.ts';

const HTYPE = 0;
const PTYPE = 2;
const HLEN = 4;
const PLEN = 5;
const OPERATION = 6;
/** The fixed part, up to the operation: enough to read the four length and type fields. */
const FIXED_LEN = OPERATION + 2;
const SENDER_MAC = FIXED_LEN;
const SENDER_IP = SENDER_MAC + 6;
const TARGET_MAC = SENDER_IP + 4;
const TARGET_IP = TARGET_MAC + 6;
export const ARP_LEN = TARGET_IP + 4;

export const ARP_HTYPE_ETHERNET = 1;
export const ARP_PTYPE_IPV4 = 0x0800;
export const ARP_OP_REQUEST = 1;
export const ARP_OP_REPLY = 2;
const ETHERNET_ADDR_LEN = SENDER_IP - SENDER_MAC;
const IPV4_ADDR_LEN = TARGET_MAC - SENDER_IP;

const TRUNCATED = new WireError('arp.truncated');
const UNSUPPORTED_HARDWARE = new WireError('arp.unsupported-hardware');
const UNSUPPORTED_PROTOCOL = new WireError('arp.unsupported-protocol');

/** A zero-copy view of an Ethernet/IPv4 ARP packet at `offset` in `bytes`. */
export class ArpView {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
  ) {}

  /**
   * A view of an Ethernet/IPv4 ARP packet that fits in the buffer. The address fields sit at
   * offsets fixed by the hardware and protocol lengths, so other kinds are refused here (the
   * kernel's arp_rcv drops a hardware length that does not match the device, arp_process the
   * rest) rather than handed to accessors that would misread them.
   */
  static checked(bytes: Uint8Array, offset = 0): ArpView | WireError {
    const available = bytes.length - offset;
    if (available < FIXED_LEN) return TRUNCATED;
    if (readU16(bytes, offset + HTYPE) !== ARP_HTYPE_ETHERNET || bytes[offset + HLEN] !== ETHERNET_ADDR_LEN) {
      return UNSUPPORTED_HARDWARE;
    }
    if (readU16(bytes, offset + PTYPE) !== ARP_PTYPE_IPV4 || bytes[offset + PLEN] !== IPV4_ADDR_LEN) {
      return UNSUPPORTED_PROTOCOL;
    }
    if (available < ARP_LEN) return TRUNCATED;
    return new ArpView(bytes, offset);
  }

  /** A view for writing into a buffer the caller has sized; no checks. */
  static unchecked(bytes: Uint8Array, offset = 0): ArpView {
    return new ArpView(bytes, offset);
  }

  /** Hardware type (1 for Ethernet). */
  get htype(): number {
    return readU16(this.bytes, this.offset + HTYPE);
  }
  set htype(htype: number) {
    writeU16(this.bytes, this.offset + HTYPE, htype);
  }
  /** Protocol type, an EtherType (0x0800 for IPv4). */
  get ptype(): number {
    return readU16(this.bytes, this.offset + PTYPE);
  }
  set ptype(ptype: number) {
    writeU16(this.bytes, this.offset + PTYPE, ptype);
  }
  /** Hardware address length in bytes. */
  get hlen(): number {
    return this.bytes[this.offset + HLEN]!;
  }
  set hlen(hlen: number) {
    this.bytes[this.offset + HLEN] = hlen;
  }
  /** Protocol address length in bytes. */
  get plen(): number {
    return this.bytes[this.offset + PLEN]!;
  }
  set plen(plen: number) {
    this.bytes[this.offset + PLEN] = plen;
  }
  /** 1 request, 2 reply; other codes stay representable. */
  get operation(): number {
    return readU16(this.bytes, this.offset + OPERATION);
  }
  set operation(operation: number) {
    writeU16(this.bytes, this.offset + OPERATION, operation);
  }
  get senderMac(): MacAddr {
    return readMac(this.bytes, this.offset + SENDER_MAC);
  }
  set senderMac(mac: MacAddr) {
    writeMac(this.bytes, this.offset + SENDER_MAC, mac);
  }
  get senderIp(): Ipv4Addr {
    return readIpv4(this.bytes, this.offset + SENDER_IP);
  }
  set senderIp(addr: Ipv4Addr) {
    writeIpv4(this.bytes, this.offset + SENDER_IP, addr);
  }
  get targetMac(): MacAddr {
    return readMac(this.bytes, this.offset + TARGET_MAC);
  }
  set targetMac(mac: MacAddr) {
    writeMac(this.bytes, this.offset + TARGET_MAC, mac);
  }
  get targetIp(): Ipv4Addr {
    return readIpv4(this.bytes, this.offset + TARGET_IP);
  }
  set targetIp(addr: Ipv4Addr) {
    writeIpv4(this.bytes, this.offset + TARGET_IP, addr);
  }
}

/** The meaningful fields of an Ethernet/IPv4 ARP packet (ARP has no payload). */
export interface ArpRepr {
  /** ARP_OP_REQUEST or ARP_OP_REPLY; any 16-bit value. */
  readonly operation: number;
  readonly senderMac: MacAddr;
  readonly senderIp: Ipv4Addr;
  readonly targetMac: MacAddr;
  readonly targetIp: Ipv4Addr;
}

/** Reads a checked view into a repr; every checked packet is a valid one, so this cannot fail. */
export function parseArp(view: ArpView): ArpRepr {
  return {
    operation: view.operation,
    senderMac: view.senderMac,
    senderIp: view.senderIp,
    targetMac: view.targetMac,
    targetIp: view.targetIp,
  };
}

/** Writes the whole packet of `repr` into `view`. */
export function emitArp(repr: ArpRepr, view: ArpView): void {
  view.htype = ARP_HTYPE_ETHERNET;
  view.ptype = ARP_PTYPE_IPV4;
  view.hlen = ETHERNET_ADDR_LEN;
  view.plen = IPV4_ADDR_LEN;
  view.operation = repr.operation;
  view.senderMac = repr.senderMac;
  view.senderIp = repr.senderIp;
  view.targetMac = repr.targetMac;
  view.targetIp = repr.targetIp;
}

export function arpHeaderLen(_repr: ArpRepr): number {
  return ARP_LEN;
}
