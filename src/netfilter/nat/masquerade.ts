// MASQUERADE's choice of source address: the egress device's address toward the next hop, put into the rule's range; no masq_index bookkeeping (connections are not flushed when the device or address goes away).
//
// Mirrors net/netfilter/nf_nat_masquerade.c:nf_nat_masquerade_ipv4: a connection whose
// original source is 0.0.0.0 is left alone, a device without an address drops the packet
// ("<dev> ate my IP address"), otherwise the range becomes that one address (flags and ports
// kept, NF_NAT_RANGE_MAP_IPS added) and goes to nf_nat_setup_info as a SRC manip.

import type { NetfilterHost } from '../host.ts';
import { type NatRange2, NF_NAT_RANGE_MAP_IPS } from './range.ts';

/** What nf_nat_masquerade_ipv4 decided before nf_nat_setup_info. */
export type MasqueradeStep = 'setup' | 'accept' | 'drop';

/**
 * Rewrites `range` for a masquerade of a connection whose original source is `origSrc`,
 * leaving on `oif` toward `daddr` (the packet's destination after routing).
 */
export function masqueradeRange(
  host: NetfilterHost,
  range: NatRange2,
  origSrc: number,
  oif: number,
  daddr: number,
): MasqueradeStep {
  // A locally generated packet with source 0.0.0.0 is probably not meant to be masqueraded.
  if (origSrc === 0) return 'accept';
  const newSrc = host.masqueradeAddress(oif, daddr);
  if (newSrc === undefined || newSrc === 0) {
    host.log(`${host.ifname(oif) ?? `if${oif}`} ate my IP address`);
    return 'drop';
  }
  range.flags |= NF_NAT_RANGE_MAP_IPS;
  range.minAddr = newSrc >>> 0;
  range.maxAddr = newSrc >>> 0;
  return 'setup';
}
