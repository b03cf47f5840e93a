// VXLAN (RFC 7348): the 8-byte header between outer UDP and the inner Ethernet frame; no GBP, GPE or RCO extensions.
//
//  0                   1                   2                   3
//  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |R|R|R|R|I|R|R|R|                  Reserved                     |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |           VXLAN Network Identifier (VNI)      |   Reserved    |
// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
// |                 Inner Ethernet frame ...

import { readU24, writeU24 } from './bytes.ts';
import { WireError } from './error.ts';

const FLAGS = 0;
const RESERVED_1 = 1; // 24 bits
const VNI = 4; // 24 bits
const RESERVED_2 = 7; // 8 bits
export const VXLAN_HEADER_LEN = RESERVED_2 + 1;

/** The port Linux uses when `ip link add type vxlan` is given no dstport (flannel and Cilium keep it). */
export const VXLAN_PORT_LINUX = 8472;
/** The IANA-assigned port (RFC 7348 section 5). */
export const VXLAN_PORT_IANA = 4789;

/** The I flag: the VNI is valid. RFC 7348 says it must be 1; Linux drops the packet otherwise. */
const FLAG_VNI = 0x08;
/** VNIs are 24 bits. */
export const VXLAN_VNI_MAX = 0xff_ffff;

const TRUNCATED = new WireError('vxlan.truncated');
const MISSING_VNI_FLAG = new WireError('vxlan.missing-vni-flag');

/** A zero-copy view of a VXLAN header and its inner frame at `offset` in `bytes`. */
export class VxlanView {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
  ) {}

  /** A view whose 8-byte header lies within the buffer; the flags are checked by parseVxlan. */
  static checked(bytes: Uint8Array, offset = 0): VxlanView | WireError {
    if (bytes.length - offset < VXLAN_HEADER_LEN) return TRUNCATED;
    return new VxlanView(bytes, offset);
  }

  /** A view for writing into a buffer the caller has sized; no checks. */
  static unchecked(bytes: Uint8Array, offset = 0): VxlanView {
    return new VxlanView(bytes, offset);
  }

  /** The raw flags byte (only the I bit, 0x08, is defined). */
  get flags(): number {
    return this.bytes[this.offset + FLAGS]!;
  }
  set flags(flags: number) {
    this.bytes[this.offset + FLAGS] = flags & 0xff;
  }
  /** The I flag: true when the VNI field is valid. */
  get vniValid(): boolean {
    return (this.flags & FLAG_VNI) !== 0;
  }
  set vniValid(on: boolean) {
    this.flags = on ? this.flags | FLAG_VNI : this.flags & ~FLAG_VNI;
  }
  /** The 24 reserved bits after the flags. */
  get reserved1(): number {
    return readU24(this.bytes, this.offset + RESERVED_1);
  }
  set reserved1(bits: number) {
    writeU24(this.bytes, this.offset + RESERVED_1, bits);
  }
  /** The 24-bit VXLAN Network Identifier. */
  get vni(): number {
    return readU24(this.bytes, this.offset + VNI);
  }
  set vni(vni: number) {
    writeU24(this.bytes, this.offset + VNI, vni);
  }
  /** The 8 reserved bits after the VNI. */
  get reserved2(): number {
    return this.bytes[this.offset + RESERVED_2]!;
  }
  set reserved2(bits: number) {
    this.bytes[this.offset + RESERVED_2] = bits & 0xff;
  }

  /** The inner Ethernet frame, to the end of the buffer (VXLAN declares no length). */
  payload(): Uint8Array {
    return this.bytes.subarray(this.offset + VXLAN_HEADER_LEN);
  }
}

/** The meaningful field of a VXLAN header; the inner frame travels separately. */
export interface VxlanRepr {
  readonly vni: number;
}

/**
 * Reads a checked view into a repr. A clear I flag is an error; reserved bits are ignored,
 * as RFC 7348 asks (Linux's vxlan_rcv is stricter and drops them unless an extension claims them).
 */
export function parseVxlan(view: VxlanView): VxlanRepr | WireError {
  if (!view.vniValid) return MISSING_VNI_FLAG;
  return { vni: view.vni };
}

/** Writes the header of `repr` into `view`: the I flag, the VNI, every reserved bit 0. */
export function emitVxlan(repr: VxlanRepr, view: VxlanView): void {
  view.flags = FLAG_VNI;
  view.reserved1 = 0;
  view.vni = repr.vni;
  view.reserved2 = 0;
}

export function vxlanHeaderLen(_repr: VxlanRepr): number {
  return VXLAN_HEADER_LEN;
}
