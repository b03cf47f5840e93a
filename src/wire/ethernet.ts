// Ethernet II (IEEE 802.3 type frames) with one optional 802.1Q tag: view, repr, parse and emit; no QinQ (stacked tags or the 0x88a8 TPID are read as an ethertype), no 802.3 length/LLC frames (a type below 0x0600 is just a number), no FCS.
//
//  0                   1                   2                   3
//  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                 Destination MAC address                      |
// +                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                               |                               |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
// |                   Source MAC address                          |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |   EtherType (or TPID 0x8100)  |  PCP|D|    VLAN ID  (tagged)  |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// | inner EtherType (tagged only) |  payload ...
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+

import type { MacAddr } from './address.ts';
import { readMac, writeMac } from './address.ts';
import { readU16, writeU16 } from './bytes.ts';
import { WireError } from './error.ts';

const DST_ADDR = 0;
const SRC_ADDR = 6;
const ETHERTYPE = 12;
export const ETHERNET_HEADER_LEN = ETHERTYPE + 2;
// With an 802.1Q tag, the outer EtherType field holds the TPID and the tag follows it.
const VLAN_TCI = ETHERNET_HEADER_LEN;
const VLAN_ETHERTYPE = VLAN_TCI + 2;
export const ETHERNET_VLAN_HEADER_LEN = VLAN_ETHERTYPE + 2;

export const ETHERTYPE_IPV4 = 0x0800;
export const ETHERTYPE_ARP = 0x0806;
export const ETHERTYPE_VLAN = 0x8100;

const PCP_SHIFT = 13;
const PCP_MASK = 0xe000;
const DEI_BIT = 0x1000;
const VID_MASK = 0x0fff;

const TRUNCATED = new WireError('ethernet.truncated');
const VLAN_TRUNCATED = new WireError('ethernet.vlan-truncated');

/** A zero-copy view of an Ethernet II header and payload at `offset` in `bytes`; the frame runs to the buffer's end. */
export class EthernetView {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
  ) {}

  /** A view whose header, and 802.1Q tag when present, fit in the buffer. */
  static checked(bytes: Uint8Array, offset = 0): EthernetView | WireError {
    const available = bytes.length - offset;
    if (available < ETHERNET_HEADER_LEN) return TRUNCATED;
    if (readU16(bytes, offset + ETHERTYPE) === ETHERTYPE_VLAN && available < ETHERNET_VLAN_HEADER_LEN) {
      return VLAN_TRUNCATED;
    }
    return new EthernetView(bytes, offset);
  }

  /** A view for writing into a buffer the caller has sized; no checks. */
  static unchecked(bytes: Uint8Array, offset = 0): EthernetView {
    return new EthernetView(bytes, offset);
  }

  get dstAddr(): MacAddr {
    return readMac(this.bytes, this.offset + DST_ADDR);
  }
  set dstAddr(addr: MacAddr) {
    writeMac(this.bytes, this.offset + DST_ADDR, addr);
  }
  get srcAddr(): MacAddr {
    return readMac(this.bytes, this.offset + SRC_ADDR);
  }
  set srcAddr(addr: MacAddr) {
    writeMac(this.bytes, this.offset + SRC_ADDR, addr);
  }
  /** The raw type field after the addresses: the TPID (0x8100) when tagged, else the EtherType. */
  get outerEthertype(): number {
    return readU16(this.bytes, this.offset + ETHERTYPE);
  }
  set outerEthertype(ethertype: number) {
    writeU16(this.bytes, this.offset + ETHERTYPE, ethertype);
  }
  /** True when an 802.1Q tag follows the addresses. */
  get tagged(): boolean {
    return this.outerEthertype === ETHERTYPE_VLAN;
  }
  /** The EtherType of the payload: the inner one when tagged. Set `outerEthertype` first when writing. */
  get ethertype(): number {
    return readU16(this.bytes, this.offset + (this.tagged ? VLAN_ETHERTYPE : ETHERTYPE));
  }
  set ethertype(ethertype: number) {
    writeU16(this.bytes, this.offset + (this.tagged ? VLAN_ETHERTYPE : ETHERTYPE), ethertype);
  }
  /** 802.1Q priority code point (0-7); 0 when untagged, and setting it needs a tagged frame. */
  get pcp(): number {
    return this.tci >>> PCP_SHIFT;
  }
  set pcp(pcp: number) {
    this.tci = (this.tci & ~PCP_MASK) | ((pcp << PCP_SHIFT) & PCP_MASK);
  }
  /** 802.1Q drop eligible indicator; false when untagged, and setting it needs a tagged frame. */
  get dei(): boolean {
    return (this.tci & DEI_BIT) !== 0;
  }
  set dei(dei: boolean) {
    this.tci = dei ? this.tci | DEI_BIT : this.tci & ~DEI_BIT;
  }
  /** 802.1Q VLAN identifier (0-4095); 0 when untagged, and setting it needs a tagged frame. */
  get vid(): number {
    return this.tci & VID_MASK;
  }
  set vid(vid: number) {
    this.tci = (this.tci & ~VID_MASK) | (vid & VID_MASK);
  }
  /** 14 bytes, or 18 with an 802.1Q tag. */
  get headerLen(): number {
    return this.tagged ? ETHERNET_VLAN_HEADER_LEN : ETHERNET_HEADER_LEN;
  }

  /**
   * The raw tag control information (PCP, DEI, VID): 0 on an untagged frame, whose bytes
   * there belong to the payload (and may lie past the buffer's end).
   */
  private get tci(): number {
    return this.tagged ? readU16(this.bytes, this.offset + VLAN_TCI) : 0;
  }
  private set tci(tci: number) {
    if (!this.tagged) throw new Error('set outerEthertype to ETHERTYPE_VLAN before the tag fields');
    writeU16(this.bytes, this.offset + VLAN_TCI, tci);
  }

  /** Everything after the header to the buffer's end (short frames' padding included; IPv4 trims it). */
  payload(): Uint8Array {
    return this.bytes.subarray(this.offset + this.headerLen);
  }
}

/** The fields of an 802.1Q tag (the TPID is implied). */
export interface VlanTag {
  /** Priority code point, 0-7. */
  readonly pcp: number;
  /** Drop eligible indicator. */
  readonly dei: boolean;
  /** VLAN identifier, 0-4095. */
  readonly vid: number;
}

/** The meaningful fields of an Ethernet header; the payload travels separately. */
export interface EthernetRepr {
  readonly dstAddr: MacAddr;
  readonly srcAddr: MacAddr;
  /** The payload's EtherType (the inner one when tagged); any 16-bit value. */
  readonly ethertype: number;
  /** Present when the frame carries an 802.1Q tag. */
  readonly vlan?: VlanTag;
}

/** Reads a checked view into a repr; every checked header is a valid one, so this cannot fail. */
export function parseEthernet(view: EthernetView): EthernetRepr {
  const repr = { dstAddr: view.dstAddr, srcAddr: view.srcAddr, ethertype: view.ethertype };
  if (!view.tagged) return repr;
  return { ...repr, vlan: { pcp: view.pcp, dei: view.dei, vid: view.vid } };
}

/** Writes the header of `repr` into `view`; the payload must already sit after the header. */
export function emitEthernet(repr: EthernetRepr, view: EthernetView): void {
  view.dstAddr = repr.dstAddr;
  view.srcAddr = repr.srcAddr;
  if (repr.vlan === undefined) {
    view.outerEthertype = repr.ethertype;
    return;
  }
  view.outerEthertype = ETHERTYPE_VLAN;
  view.pcp = repr.vlan.pcp;
  view.dei = repr.vlan.dei;
  view.vid = repr.vlan.vid;
  view.ethertype = repr.ethertype;
}

export function ethernetHeaderLen(repr: EthernetRepr): number {
  return repr.vlan === undefined ? ETHERNET_HEADER_LEN : ETHERNET_VLAN_HEADER_LEN;
}
