// NAT of an ICMP error RELATED to a NATed connection: the quoted datagram is translated back to what its sender saw and the outer header follows the connection, so PMTU discovery and traceroute work through NAT; IPv4 only.
//
// Mirrors net/netfilter/nf_nat_proto.c:nf_nat_icmp_reply_translation (called by
// nf_nat_ipv4_fn for IP_CT_RELATED / IP_CT_RELATED_REPLY ICMP before any nat chain):
//   - a redirect is dropped unless the connection has both NAT bindings and no NAT at all;
//   - nothing happens unless this hook's manip applies to the error's direction;
//   - the quoted header gets the inverse manip towards the other direction's tuple, then the
//     whole ICMP checksum is recomputed (the quote's own checksums were updated incrementally);
//   - the outer header gets this hook's manip, like a reply to the connection would.
// The ICMP checksum is verified first only when conntrack verifies checksums: nf_ip_checksum
// does nothing for the CHECKSUM_UNNECESSARY skbs packetlab models by default.

import { checksumIsValid, internetChecksum } from '../../wire/checksum.ts';
import type { Conntrack } from '../conntrack/conntrack.ts';
import { IPS_DST_NAT, IPS_NAT_DONE_MASK, IPS_NAT_MASK, IPS_SRC_NAT } from '../conntrack/table.ts';
import { createTuple, ICMP_REDIRECT, IPPROTO_ICMP } from '../conntrack/tuple.ts';
import { manipIpv4 } from './manip.ts';
import type { Manip } from './range.ts';

const ICMP_HEADER_LEN = 8;
const ICMP_CHECKSUM = 2;
const IPV4_MIN_HEADER_LEN = 20;

export class IcmpReplyTranslator {
  private readonly other = createTuple();
  private readonly target = createTuple();

  constructor(private readonly conntrack: Conntrack) {}

  /**
   * Translates the ICMP error at `nhoff` (ending at `end`) related to entry `index`, seen in
   * direction `dir` (0 original, 1 reply) at a hook whose manip is `manip`. False means drop.
   */
  translate(buf: Uint8Array, nhoff: number, end: number, index: number, dir: number, manip: Manip): boolean {
    const conntrack = this.conntrack;
    const hdrlen = (buf[nhoff]! & 0x0f) * 4;
    const icmpoff = nhoff + hdrlen;
    // skb_ensure_writable(skb, hdrlen + sizeof(struct icmphdr) + sizeof(struct iphdr))
    if (icmpoff + ICMP_HEADER_LEN + IPV4_MIN_HEADER_LEN > end) return false;
    if (conntrack.settings.checksum && !checksumIsValid(buf, icmpoff, end)) return false;

    const status = conntrack.status(index);
    if (buf[icmpoff] === ICMP_REDIRECT) {
      // Redirects on NATed connections make no sense.
      if ((status & IPS_NAT_DONE_MASK) !== IPS_NAT_DONE_MASK) return false;
      if ((status & IPS_NAT_MASK) !== 0) return false;
    }
    let statusBit = manip === 'src' ? IPS_SRC_NAT : IPS_DST_NAT;
    if (dir === 1) statusBit ^= IPS_NAT_MASK;
    if ((status & statusBit) === 0) return true;

    // The quoted datagram travelled the other way: give it the other direction's tuple, with the opposite manip.
    const other = conntrack.tuple(index, 1 - dir, this.other);
    if (!manipIpv4(buf, icmpoff + ICMP_HEADER_LEN, end, other, manip === 'src' ? 'dst' : 'src')) return false;
    buf[icmpoff + ICMP_CHECKSUM] = 0;
    buf[icmpoff + ICMP_CHECKSUM + 1] = 0;
    const sum = internetChecksum(buf, icmpoff, end);
    buf[icmpoff + ICMP_CHECKSUM] = sum >>> 8;
    buf[icmpoff + ICMP_CHECKSUM + 1] = sum & 0xff;

    // The outer header looks like a reply to the other direction: nf_ct_invert_tuple, protocol ICMP.
    const target = this.target;
    target.src = other.dst;
    target.dst = other.src;
    target.srcPort = 0;
    target.dstPort = 0;
    target.protocol = IPPROTO_ICMP;
    return manipIpv4(buf, nhoff, end, target, manip);
  }
}
