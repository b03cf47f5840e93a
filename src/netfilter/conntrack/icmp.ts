// The ICMP tracker: echo (and the other request/reply pairs) tracked by identifier for 30 s, and ICMP errors matched to the connection of the datagram they quote (RELATED) without creating an entry; no ICMPv6.
//
// Mirrors net/netfilter/nf_conntrack_proto_icmp.c: nf_conntrack_icmp_packet (only a request
// type may create a connection: echo, timestamp, info request, address mask request),
// nf_conntrack_icmpv4_error and nf_conntrack_inet_error (the quoted header's tuple, inverted,
// must name a confirmed connection whose destination in that direction is the error's outer
// destination). NAT of the quoted header (nf_nat_icmp_reply_translation) is the NAT module's.

import { checksumIsValid } from '../../wire/checksum.ts';
import { type ConnTable, DIR_ORIGINAL, TRACK_ACCEPT, TRACK_INVALID } from './table.ts';
import {
  extractTuple,
  ICMP_ADDRESS,
  ICMP_ECHO,
  ICMP_INFO_REQUEST,
  ICMP_TIMESTAMP,
  invertTuple,
  isIcmpError,
  NR_ICMP_TYPES,
  readAddr,
  type Tuple,
} from './tuple.ts';

export const ICMP_DEFAULT_TIMEOUT_SEC = 30;

const ICMP_HEADER_LEN = 8;
const IPV4_DST = 16;

/** nf_conntrack_icmpv4_error found no error message: track the packet normally. */
export const ICMP_NOT_AN_ERROR = -2;
/** nf_conntrack_icmpv4_error refused the packet (counted as `error`; ctstate INVALID). */
export const ICMP_ERROR_INVALID = -1;

/**
 * nf_conntrack_icmp_packet: an entry can exist only when its original direction is a request
 * type; then its timeout is refreshed (the entry is not deleted on the first reply, so that
 * duplicate replies still match).
 */
export function icmpPacket(table: ConnTable, index: number, timeoutNs: number, now: number): number {
  const type = (table.ports(index, DIR_ORIGINAL) >>> 8) & 0xff;
  if (type !== ICMP_ECHO && type !== ICMP_TIMESTAMP && type !== ICMP_INFO_REQUEST && type !== ICMP_ADDRESS) {
    return TRACK_INVALID;
  }
  table.refresh(index, timeoutNs, now);
  return TRACK_ACCEPT;
}

/**
 * nf_conntrack_icmpv4_error for the ICMP message at `dataoff` of the IPv4 packet at `nhoff`.
 * Returns ICMP_NOT_AN_ERROR for queries, ICMP_ERROR_INVALID for a short message, an unknown
 * type (> NR_ICMP_TYPES), a bad checksum (when `verifyChecksum`) or an error about no known
 * connection; otherwise `index << 1 | direction` of the connection it is RELATED to.
 * `inner` and `inverse` are scratch tuples.
 */
export function icmpError(
  table: ConnTable,
  buf: Uint8Array,
  nhoff: number,
  dataoff: number,
  end: number,
  verifyChecksum: boolean,
  inner: Tuple,
  inverse: Tuple,
  now: number,
): number {
  if (end - dataoff < ICMP_HEADER_LEN) return ICMP_ERROR_INVALID; // short packet
  if (verifyChecksum && !checksumIsValid(buf, dataoff, end)) return ICMP_ERROR_INVALID;
  const type = buf[dataoff]!;
  // RFC 1122 3.2.2: unknown message types must be silently discarded.
  if (type > NR_ICMP_TYPES) return ICMP_ERROR_INVALID;
  if (!isIcmpError(type)) return ICMP_NOT_AN_ERROR;

  // nf_conntrack_inet_error: are they talking about one of our connections?
  if (extractTuple(buf, dataoff + ICMP_HEADER_LEN, end, inner) < 0) return ICMP_ERROR_INVALID;
  // The quoted datagram travelled the other way: its tuple inverted is ours.
  if (!invertTuple(inner, inverse)) return ICMP_ERROR_INVALID;
  const ref = table.lookup(inverse, now);
  if (ref < 0) return ICMP_ERROR_INVALID;
  // A bogus error could name a connection it has nothing to do with: its outer destination must
  // be the destination of the connection in the direction found.
  if (table.tupleDst(ref >>> 1, ref & 1) !== readAddr(buf, nhoff + IPV4_DST)) return ICMP_ERROR_INVALID;
  return ref;
}
