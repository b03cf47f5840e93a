// REDIRECT's choice of destination address: 127.0.0.1 for locally generated packets, else the primary address of the device the packet came in on; IPv4 only.
//
// Mirrors net/netfilter/nf_nat_redirect.c:nf_nat_redirect_ipv4 and nf_nat_redirect: the
// range becomes that one address (flags and ports kept, NF_NAT_RANGE_MAP_IPS added) and goes
// to nf_nat_setup_info as a DST manip; no address on the incoming device drops the packet.

import type { NetfilterHost } from '../host.ts';
import { type NatRange2, NF_NAT_RANGE_MAP_IPS } from './range.ts';

/** INADDR_LOOPBACK. */
export const INADDR_LOOPBACK = 0x7f000001;

/**
 * Rewrites `range` for a redirect of a packet received on `iif` (0: locally generated, the
 * OUTPUT hook); false when the packet must be dropped.
 */
export function redirectRange(host: NetfilterHost, range: NatRange2, iif: number): boolean {
  let newDst = INADDR_LOOPBACK;
  if (iif !== 0) {
    newDst = host.redirectAddress?.(iif) ?? 0;
    if (newDst === 0) return false;
  }
  range.flags |= NF_NAT_RANGE_MAP_IPS;
  range.minAddr = newDst >>> 0;
  range.maxAddr = newDst >>> 0;
  return true;
}
