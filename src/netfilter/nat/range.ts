// The NAT range a target hands to the core (struct nf_nat_range2 for IPv4) and its in-range tests; no IPv6, no NETMAP, no base-port offsets (NF_NAT_RANGE_PROTO_OFFSET has no front end here).
//
// Addresses are unsigned 32-bit host-order numbers (as wire/address.ts), ports plain numbers.
// "Proto" is the per-protocol key: the TCP/UDP/UDP-Lite/SCTP/DCCP port, or the ICMP echo id.

import { hasPorts, IPPROTO_ICMP, type Tuple } from '../conntrack/tuple.ts';
import type { NatRange as IrNatRange, NatFlags } from '../ir.ts';

// include/uapi/linux/netfilter/nf_nat.h
export const NF_NAT_RANGE_MAP_IPS = 1 << 0;
export const NF_NAT_RANGE_PROTO_SPECIFIED = 1 << 1;
export const NF_NAT_RANGE_PROTO_RANDOM = 1 << 2;
export const NF_NAT_RANGE_PERSISTENT = 1 << 3;
export const NF_NAT_RANGE_PROTO_RANDOM_FULLY = 1 << 4;
export const NF_NAT_RANGE_PROTO_OFFSET = 1 << 5;
export const NF_NAT_RANGE_PROTO_RANDOM_ALL = NF_NAT_RANGE_PROTO_RANDOM | NF_NAT_RANGE_PROTO_RANDOM_FULLY;

export type Manip = 'src' | 'dst';

/** struct nf_nat_range2, IPv4 only; one scratch record is reused per Nat, so nothing allocates per connection. */
export interface NatRange2 {
  flags: number;
  minAddr: number;
  maxAddr: number;
  minProto: number;
  maxProto: number;
  /** base_proto: with NF_NAT_RANGE_PROTO_OFFSET, the port that maps to minProto. */
  baseProto: number;
}

export function createRange(): NatRange2 {
  return { flags: 0, minAddr: 0, maxAddr: 0, minProto: 0, maxProto: 0, baseProto: 0 };
}

/**
 * Fills `out` from a rule's nat statement the way nft_nat_eval and xt_nat's targets do: an
 * address makes NF_NAT_RANGE_MAP_IPS, a port NF_NAT_RANGE_PROTO_SPECIFIED (a missing high end
 * is the low end), and `random`, `fully-random`, `persistent` become their flags. MASQUERADE
 * and REDIRECT replace the address afterwards (masquerade.ts, redirect.ts).
 */
export function rangeFromRule(range: IrNatRange, flags: NatFlags, out: NatRange2): NatRange2 {
  let bits = 0;
  if (range.addrLow !== undefined) {
    bits |= NF_NAT_RANGE_MAP_IPS;
    out.minAddr = range.addrLow >>> 0;
    out.maxAddr = (range.addrHigh ?? range.addrLow) >>> 0;
  } else {
    out.minAddr = 0;
    out.maxAddr = 0;
  }
  if (range.portLow !== undefined) {
    bits |= NF_NAT_RANGE_PROTO_SPECIFIED;
    out.minProto = range.portLow;
    out.maxProto = range.portHigh ?? range.portLow;
  } else {
    out.minProto = 0;
    out.maxProto = 0;
  }
  out.baseProto = 0;
  if (range.portBase !== undefined) {
    bits |= NF_NAT_RANGE_PROTO_OFFSET;
    out.baseProto = range.portBase;
  }
  if (flags.random) bits |= NF_NAT_RANGE_PROTO_RANDOM;
  if (flags.fullyRandom) bits |= NF_NAT_RANGE_PROTO_RANDOM_FULLY;
  if (flags.persistent) bits |= NF_NAT_RANGE_PERSISTENT;
  out.flags = bits;
  return out;
}

/** The range of __nf_nat_alloc_null_binding: this one address, the per-protocol part left to the core. */
export function nullBindingRange(addr: number, out: NatRange2): NatRange2 {
  out.flags = NF_NAT_RANGE_MAP_IPS;
  out.minAddr = addr >>> 0;
  out.maxAddr = addr >>> 0;
  out.minProto = 0;
  out.maxProto = 0;
  return out;
}

/** Mirrors nf_nat_core.c:l4proto_in_range: the key the manip changes lies in [min, max] (ICMP: the id; unknown protocols always). */
export function l4InRange(tuple: Tuple, manip: Manip, min: number, max: number): boolean {
  let key: number;
  if (tuple.protocol === IPPROTO_ICMP) key = tuple.srcPort;
  else if (hasPorts(tuple.protocol)) key = manip === 'src' ? tuple.srcPort : tuple.dstPort;
  else return true;
  return key >= min && key <= max;
}

/**
 * Mirrors nf_nat_core.c:nf_in_range (in_range before 6.x): would source-mapping to `tuple`
 * meet the range? The source address must be inside it when IPs are mapped, the source key
 * when a proto range is given.
 */
export function inRange(tuple: Tuple, range: NatRange2): boolean {
  if ((range.flags & NF_NAT_RANGE_MAP_IPS) !== 0) {
    const src = tuple.src >>> 0;
    if (src < range.minAddr || src > range.maxAddr) return false;
  }
  if ((range.flags & NF_NAT_RANGE_PROTO_SPECIFIED) === 0) return true;
  return l4InRange(tuple, 'src', range.minProto, range.maxProto);
}
