// Rewriting one IPv4 header and its transport header in place so that one side (source or destination) matches a NAT target tuple, with incremental checksum updates; no IPv6, no GRE (PPTP), no checksum offload state.
//
// Mirrors net/netfilter/nf_nat_proto.c: nf_nat_ipv4_manip_pkt, l4proto_manip_pkt,
// tcp_manip_pkt, __udp_manip_pkt (UDP checksum 0 stays 0, a computed 0 is sent as 0xffff,
// CSUM_MANGLED_0; UDP-Lite always), sctp_manip_pkt (CRC32c recomputed), icmp_manip_pkt (echo-
// style ids only), dccp_manip_pkt (removed from Linux 6.16 with DCCP; kept because conntrack
// here still tracks DCCP ports), nf_nat_ipv4_csum_update. The checksum arithmetic is RFC 1624's,
// as csum_replace4 / inet_proto_csum_replace2 do it when the skb is not CHECKSUM_PARTIAL.
//
// As in the kernel, a transport header of which only 8 bytes are present (the quote inside an
// ICMP error) gets its ports rewritten but not its checksum, which lies beyond them.

import { readU16, readU32, writeU16, writeU32 } from '../../wire/bytes.ts';
import { updateChecksum16, updateChecksum32 } from '../../wire/checksum.ts';
import {
  ICMP_ADDRESS,
  ICMP_ADDRESSREPLY,
  ICMP_ECHO,
  ICMP_ECHOREPLY,
  ICMP_INFO_REPLY,
  ICMP_INFO_REQUEST,
  ICMP_TIMESTAMP,
  ICMP_TIMESTAMPREPLY,
  IPPROTO_DCCP,
  IPPROTO_ICMP,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  IPPROTO_UDP,
  IPPROTO_UDPLITE,
  type Tuple,
} from '../conntrack/tuple.ts';
import type { Manip } from './range.ts';
import { fillSctpChecksum, SCTP_COMMON_HEADER_LEN } from './sctp-checksum.ts';

// IPv4 header fields.
const IPV4_CHECKSUM = 10;
const IPV4_SRC = 12;
const IPV4_DST = 16;
const IPV4_MIN_HEADER_LEN = IPV4_DST + 4;
// Transport fields.
const SRC_PORT = 0;
const DST_PORT = 2;
const UDP_CHECKSUM = 6;
const UDP_HEADER_LEN = UDP_CHECKSUM + 2;
const TCP_CHECKSUM = 16;
const TCP_HEADER_LEN = 20;
const DCCP_CHECKSUM = 6;
const DCCP_HEADER_LEN = 12;
const ICMP_CHECKSUM = 2;
const ICMP_ID = 4;
const ICMP_HEADER_LEN = 8;
/** What conntrack guarantees of any transport header it tracked: the ports. */
const GUARANTEED_L4_LEN = 8;

/**
 * nf_nat_ipv4_manip_pkt: makes the header at `iphdroff` carry `target`'s source (`manip`
 * 'src') or destination ('dst') address and port. `end` is where the packet's bytes end.
 * False when the headers are cut short (the kernel's skb_ensure_writable failing: NF_DROP).
 */
export function manipIpv4(
  buf: Uint8Array,
  iphdroff: number,
  end: number,
  target: Tuple,
  manip: Manip,
): boolean {
  if (iphdroff + IPV4_MIN_HEADER_LEN > end) return false;
  const hdroff = iphdroff + (buf[iphdroff]! & 0x0f) * 4;
  if (!manipL4(buf, iphdroff, hdroff, end, target, manip)) return false;
  const at = iphdroff + (manip === 'src' ? IPV4_SRC : IPV4_DST);
  const oldAddr = readU32(buf, at);
  const newAddr = (manip === 'src' ? target.src : target.dst) >>> 0;
  const checkAt = iphdroff + IPV4_CHECKSUM;
  writeU16(buf, checkAt, updateChecksum32(readU16(buf, checkAt), oldAddr, newAddr));
  writeU32(buf, at, newAddr);
  return true;
}

/** l4proto_manip_pkt: the transport part, before the address changes (the pseudo-header update reads the old one). */
function manipL4(
  buf: Uint8Array,
  iphdroff: number,
  hdroff: number,
  end: number,
  target: Tuple,
  manip: Manip,
): boolean {
  switch (target.protocol) {
    case IPPROTO_TCP:
      return manipPorts(buf, iphdroff, hdroff, end, target, manip, TCP_HEADER_LEN, TCP_CHECKSUM);
    case IPPROTO_DCCP:
      return manipPorts(buf, iphdroff, hdroff, end, target, manip, DCCP_HEADER_LEN, DCCP_CHECKSUM);
    case IPPROTO_UDP:
    case IPPROTO_UDPLITE:
      return manipUdp(buf, iphdroff, hdroff, end, target, manip);
    case IPPROTO_SCTP:
      return manipSctp(buf, hdroff, end, target, manip);
    case IPPROTO_ICMP:
      return manipIcmp(buf, hdroff, end, target);
    default:
      // Unknown protocol (GRE without a PPTP helper included): only the address changes.
      return true;
  }
}

/** The address word the manip replaces, and its new value, as nf_nat_ipv4_csum_update reads them. */
function oldAddress(buf: Uint8Array, iphdroff: number, manip: Manip): number {
  return readU32(buf, iphdroff + (manip === 'src' ? IPV4_SRC : IPV4_DST));
}

function newAddress(target: Tuple, manip: Manip): number {
  return (manip === 'src' ? target.src : target.dst) >>> 0;
}

/**
 * tcp_manip_pkt (and dccp_manip_pkt, the same shape): 8 bytes must be there; the checksum,
 * beyond them, is updated only when the whole header is.
 */
function manipPorts(
  buf: Uint8Array,
  iphdroff: number,
  hdroff: number,
  end: number,
  target: Tuple,
  manip: Manip,
  headerLen: number,
  checksumOffset: number,
): boolean {
  const hdrsize = end >= hdroff + headerLen ? headerLen : GUARANTEED_L4_LEN;
  if (hdroff + hdrsize > end) return false;
  const portAt = hdroff + (manip === 'src' ? SRC_PORT : DST_PORT);
  const oldPort = readU16(buf, portAt);
  const newPort = manip === 'src' ? target.srcPort : target.dstPort;
  writeU16(buf, portAt, newPort);
  if (hdrsize < headerLen) return true;
  const checkAt = hdroff + checksumOffset;
  let check = readU16(buf, checkAt);
  check = updateChecksum32(check, oldAddress(buf, iphdroff, manip), newAddress(target, manip));
  check = updateChecksum16(check, oldPort, newPort);
  writeU16(buf, checkAt, check);
  return true;
}

/** __udp_manip_pkt: UDP updates a non-zero checksum only; UDP-Lite always has one. */
function manipUdp(
  buf: Uint8Array,
  iphdroff: number,
  hdroff: number,
  end: number,
  target: Tuple,
  manip: Manip,
): boolean {
  if (hdroff + UDP_HEADER_LEN > end) return false;
  const portAt = hdroff + (manip === 'src' ? SRC_PORT : DST_PORT);
  const oldPort = readU16(buf, portAt);
  const newPort = manip === 'src' ? target.srcPort : target.dstPort;
  const checkAt = hdroff + UDP_CHECKSUM;
  let check = readU16(buf, checkAt);
  if (check !== 0 || target.protocol === IPPROTO_UDPLITE) {
    check = updateChecksum32(check, oldAddress(buf, iphdroff, manip), newAddress(target, manip));
    check = updateChecksum16(check, oldPort, newPort);
    // CSUM_MANGLED_0: zero would mean "no checksum".
    writeU16(buf, checkAt, check === 0 ? 0xffff : check);
  }
  writeU16(buf, portAt, newPort);
  return true;
}

/** sctp_manip_pkt: the port, then the CRC32c over the whole packet when its common header is all there. */
function manipSctp(buf: Uint8Array, hdroff: number, end: number, target: Tuple, manip: Manip): boolean {
  const hdrsize = end >= hdroff + SCTP_COMMON_HEADER_LEN ? SCTP_COMMON_HEADER_LEN : GUARANTEED_L4_LEN;
  if (hdroff + hdrsize > end) return false;
  writeU16(
    buf,
    hdroff + (manip === 'src' ? SRC_PORT : DST_PORT),
    manip === 'src' ? target.srcPort : target.dstPort,
  );
  if (hdrsize < SCTP_COMMON_HEADER_LEN) return true;
  fillSctpChecksum(buf, hdroff, end);
  return true;
}

/** icmp_manip_pkt: the id of the query/reply types, whichever side the manip is (the id names both). */
function manipIcmp(buf: Uint8Array, hdroff: number, end: number, target: Tuple): boolean {
  if (hdroff + ICMP_HEADER_LEN > end) return false;
  switch (buf[hdroff]) {
    case ICMP_ECHO:
    case ICMP_ECHOREPLY:
    case ICMP_TIMESTAMP:
    case ICMP_TIMESTAMPREPLY:
    case ICMP_INFO_REQUEST:
    case ICMP_INFO_REPLY:
    case ICMP_ADDRESS:
    case ICMP_ADDRESSREPLY:
      break;
    default:
      return true;
  }
  const idAt = hdroff + ICMP_ID;
  const oldId = readU16(buf, idAt);
  const checkAt = hdroff + ICMP_CHECKSUM;
  writeU16(buf, checkAt, updateChecksum16(readU16(buf, checkAt), oldId, target.srcPort));
  writeU16(buf, idAt, target.srcPort);
  return true;
}
