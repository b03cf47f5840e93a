// The generic tracker for every protocol without its own (GRE, SCTP, UDP-Lite, DCCP, IGMP, ESP...): addresses and protocol only, 600 s.
//
// Mirrors generic_packet (net/netfilter/nf_conntrack_core.c) with nf_conntrack_generic_timeout.
// Deviation: Linux has trackers of its own for GRE, SCTP, UDP-Lite and DCCP; here their tuples
// keep the ports (as nf_ct_get_tuple extracts them) but their state is the generic one.

import { type ConnTable, TRACK_ACCEPT } from './table.ts';

export const GENERIC_DEFAULT_TIMEOUT_SEC = 600;

export function genericPacket(table: ConnTable, index: number, timeoutNs: number, now: number): number {
  table.refresh(index, timeoutNs, now);
  return TRACK_ACCEPT;
}
