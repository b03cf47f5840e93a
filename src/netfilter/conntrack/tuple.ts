// The conntrack tuple of one direction (addresses, protocol, two 16-bit "ports"), read from a packet's bytes into a reused record, and its inversion; IPv4 only, no zones.
//
// Mirrors struct nf_conntrack_tuple as nf_ct_get_tuple fills it for IPv4:
//   src, dst   the IPv4 addresses (unsigned 32-bit, host order, as wire/address.ts)
//   protocol   the IPv4 protocol number
//   srcPort    TCP/UDP/UDP-Lite/SCTP/DCCP source port; ICMP: the echo identifier (bytes 4-5 of
//              the ICMP header, whatever the type, as icmp_pkt_to_tuple reads them); else 0
//   dstPort    the destination port; ICMP: type << 8 | code; else 0
// The hot path never allocates: callers own a scratch Tuple and the functions fill it.

import { readU16 } from '../../wire/bytes.ts';

export interface Tuple {
  src: number;
  dst: number;
  protocol: number;
  srcPort: number;
  dstPort: number;
}

export const IPPROTO_ICMP = 1;
export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;
export const IPPROTO_DCCP = 33;
export const IPPROTO_GRE = 47;
export const IPPROTO_SCTP = 132;
export const IPPROTO_UDPLITE = 136;

export const ICMP_ECHOREPLY = 0;
export const ICMP_DEST_UNREACH = 3;
export const ICMP_SOURCE_QUENCH = 4;
export const ICMP_REDIRECT = 5;
export const ICMP_ECHO = 8;
export const ICMP_TIME_EXCEEDED = 11;
export const ICMP_PARAMETERPROB = 12;
export const ICMP_TIMESTAMP = 13;
export const ICMP_TIMESTAMPREPLY = 14;
export const ICMP_INFO_REQUEST = 15;
export const ICMP_INFO_REPLY = 16;
export const ICMP_ADDRESS = 17;
export const ICMP_ADDRESSREPLY = 18;
/** The highest ICMP type the kernel knows (NR_ICMP_TYPES). */
export const NR_ICMP_TYPES = 18;

const IPV4_HEADER_MIN = 20;
const IPV4_PROTOCOL = 9;
const IPV4_FRAG_OFF = 6;
const IPV4_SRC = 12;
const IPV4_DST = 16;
const IP_OFFSET_MASK = 0x1fff;
/** Ports are the first 4 bytes of TCP, UDP, UDP-Lite, SCTP and DCCP headers (nf_ct_get_tuple_ports). */
const PORTS_LEN = 4;
/** icmp_pkt_to_tuple reads a whole struct icmphdr. */
const ICMP_HEADER_LEN = 8;

/** A zeroed tuple, to be reused as scratch. */
export function createTuple(): Tuple {
  return { src: 0, dst: 0, protocol: 0, srcPort: 0, dstPort: 0 };
}

/** A tuple from its fields (tests, NAT ranges, tools); for ICMP use icmpTuple. */
export function makeTuple(src: number, dst: number, protocol: number, srcPort = 0, dstPort = 0): Tuple {
  return { src: src >>> 0, dst: dst >>> 0, protocol, srcPort, dstPort };
}

/** An ICMP tuple: the identifier travels as srcPort, type and code as dstPort. */
export function icmpTuple(src: number, dst: number, type: number, code: number, id: number): Tuple {
  return makeTuple(src, dst, IPPROTO_ICMP, id, (type << 8) | code);
}

export function icmpType(tuple: Tuple): number {
  return tuple.dstPort >>> 8;
}

export function icmpCode(tuple: Tuple): number {
  return tuple.dstPort & 0xff;
}

export function icmpId(tuple: Tuple): number {
  return tuple.srcPort;
}

/** True for the protocols whose tuple carries ports (the cases of nf_ct_get_tuple that call nf_ct_get_tuple_ports). */
export function hasPorts(protocol: number): boolean {
  return (
    protocol === IPPROTO_TCP ||
    protocol === IPPROTO_UDP ||
    protocol === IPPROTO_UDPLITE ||
    protocol === IPPROTO_SCTP ||
    protocol === IPPROTO_DCCP
  );
}

/** icmp_is_err (include/linux/icmp.h): the types that quote an offending datagram. */
export function isIcmpError(type: number): boolean {
  return (
    type === ICMP_DEST_UNREACH ||
    type === ICMP_SOURCE_QUENCH ||
    type === ICMP_REDIRECT ||
    type === ICMP_TIME_EXCEEDED ||
    type === ICMP_PARAMETERPROB
  );
}

/**
 * The offset of the transport header of the IPv4 packet at `nhoff`, or -1 when the packet
 * cannot be tracked; no byte at or past `end` is read. Mirrors ipv4_get_l4proto: a non-first
 * fragment, or a header running past the data, gives -1. Deviation: a version other than 4 or
 * an IHL below 5 also gives -1 (the kernel's outer header was validated by ip_rcv; for a
 * quoted header it would read the ports from inside the IP header).
 */
export function l4Offset(buf: Uint8Array, nhoff: number, end: number): number {
  if (nhoff < 0 || nhoff + IPV4_HEADER_MIN > end) return -1;
  const versionIhl = buf[nhoff]!;
  const headerLen = (versionIhl & 0x0f) << 2;
  if (versionIhl >>> 4 !== 4 || headerLen < IPV4_HEADER_MIN) return -1;
  if ((readU16(buf, nhoff + IPV4_FRAG_OFF) & IP_OFFSET_MASK) !== 0) return -1;
  const dataoff = nhoff + headerLen;
  return dataoff > end ? -1 : dataoff;
}

/**
 * Fills `out` from the IPv4 header at `nhoff` and the transport header at `dataoff` (from
 * l4Offset); false when the transport header is too short for its tuple. Mirrors
 * nf_ct_get_tuple: the ports need 4 bytes (nf_ct_get_tuple_ports), ICMP a whole 8-byte header
 * (icmp_pkt_to_tuple); other protocols have no ports. Only the bytes present matter, as with
 * skb_header_pointer, so this also reads the datagram an ICMP error quotes.
 */
export function fillTuple(buf: Uint8Array, nhoff: number, dataoff: number, end: number, out: Tuple): boolean {
  const protocol = buf[nhoff + IPV4_PROTOCOL]!;
  if (protocol === IPPROTO_ICMP) {
    if (dataoff + ICMP_HEADER_LEN > end) return false;
    out.srcPort = readU16(buf, dataoff + 4);
    out.dstPort = (buf[dataoff]! << 8) | buf[dataoff + 1]!;
  } else if (hasPorts(protocol)) {
    if (dataoff + PORTS_LEN > end) return false;
    out.srcPort = readU16(buf, dataoff);
    out.dstPort = readU16(buf, dataoff + 2);
  } else {
    out.srcPort = 0;
    out.dstPort = 0;
  }
  out.src = readAddr(buf, nhoff + IPV4_SRC);
  out.dst = readAddr(buf, nhoff + IPV4_DST);
  out.protocol = protocol;
  return true;
}

/** l4Offset then fillTuple (nf_ct_get_tuplepr): the transport offset, or -1. */
export function extractTuple(buf: Uint8Array, nhoff: number, end: number, out: Tuple): number {
  const dataoff = l4Offset(buf, nhoff, end);
  if (dataoff < 0 || !fillTuple(buf, nhoff, dataoff, end, out)) return -1;
  return dataoff;
}

/** The IPv4 address at `at`, unsigned. */
export function readAddr(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

/**
 * The ICMP type a request/reply pair maps to, plus one; 0 where no pair exists (the kernel's
 * invmap in nf_conntrack_proto_icmp.c).
 */
const ICMP_INVMAP = new Uint8Array(NR_ICMP_TYPES + 1);
ICMP_INVMAP[ICMP_ECHO] = ICMP_ECHOREPLY + 1;
ICMP_INVMAP[ICMP_ECHOREPLY] = ICMP_ECHO + 1;
ICMP_INVMAP[ICMP_TIMESTAMP] = ICMP_TIMESTAMPREPLY + 1;
ICMP_INVMAP[ICMP_TIMESTAMPREPLY] = ICMP_TIMESTAMP + 1;
ICMP_INVMAP[ICMP_INFO_REQUEST] = ICMP_INFO_REPLY + 1;
ICMP_INVMAP[ICMP_INFO_REPLY] = ICMP_INFO_REQUEST + 1;
ICMP_INVMAP[ICMP_ADDRESS] = ICMP_ADDRESSREPLY + 1;
ICMP_INVMAP[ICMP_ADDRESSREPLY] = ICMP_ADDRESS + 1;

/**
 * Writes the tuple of the other direction into `out` (which may be `orig`); false when there is
 * none, i.e. an ICMP type without a request/reply partner. Mirrors nf_ct_invert_tuple and
 * nf_conntrack_invert_icmp_tuple (echo request 8 <-> echo reply 0, same id and code).
 */
export function invertTuple(orig: Tuple, out: Tuple): boolean {
  const src = orig.src;
  const dst = orig.dst;
  const srcPort = orig.srcPort;
  const dstPort = orig.dstPort;
  if (orig.protocol === IPPROTO_ICMP) {
    const type = dstPort >>> 8;
    const mapped = type < ICMP_INVMAP.length ? ICMP_INVMAP[type]! : 0;
    if (mapped === 0) return false;
    out.srcPort = srcPort;
    out.dstPort = ((mapped - 1) << 8) | (dstPort & 0xff);
  } else {
    out.srcPort = dstPort;
    out.dstPort = srcPort;
  }
  out.src = dst;
  out.dst = src;
  out.protocol = orig.protocol;
  return true;
}

/** nf_ct_tuple_equal. */
export function tupleEquals(a: Tuple, b: Tuple): boolean {
  return (
    a.src === b.src &&
    a.dst === b.dst &&
    a.protocol === b.protocol &&
    a.srcPort === b.srcPort &&
    a.dstPort === b.dstPort
  );
}

export function copyTuple(from: Tuple, to: Tuple): Tuple {
  to.src = from.src;
  to.dst = from.dst;
  to.protocol = from.protocol;
  to.srcPort = from.srcPort;
  to.dstPort = from.dstPort;
  return to;
}
