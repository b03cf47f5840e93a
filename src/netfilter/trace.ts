// What `nft monitor trace` and `xtables-monitor --trace` receive: one event per rule that matched, per chain return
// and per policy, for packets whose nftrace flag is set (net/netfilter/nf_tables_trace.c: nft_trace_notify).

import type { Chain, Family, Rule, Table, Verdict } from './ir.ts';

/** The packet as the first event of each base-chain run carries it (NFTA_TRACE_*_HEADER, iif, oif, mark). */
export interface TracedPacket {
  readonly iifname: string | undefined;
  readonly oifname: string | undefined;
  readonly mark: number;
  /** The Ethernet header when one was received with the packet (prerouting, input, forward), else undefined. */
  readonly linkHeader: Uint8Array | undefined;
  /** NFTA_TRACE_IIFTYPE is ARPHRD_ETHER (false for lo, whose header nft prints raw, `@ll,0,112 0x800`); absent: true. */
  readonly linkEthernet?: boolean;
  /** The IPv4 header and everything after it (copied: the packet goes on changing). */
  readonly network: Uint8Array;
}

export interface NftTraceEvent {
  /** Ties together the events of one packet (`trace id 5eeeed57`). */
  readonly id: number;
  readonly family: Family;
  readonly table: Table;
  readonly chain: Chain;
  readonly type: 'rule' | 'return' | 'policy';
  /** The rule that matched (type rule). */
  readonly rule: Rule | undefined;
  readonly verdict: Verdict;
  /** Set on the first event of each base-chain run, as the kernel dumps headers once per chain. */
  readonly packet: TracedPacket | undefined;
  /** The mark at the time of the event (nft prints `meta mark 0x...` with the rule line when set). */
  readonly mark: number;
  /** The hook the base chain runs at, for xtables-monitor's `raw:PREROUTING`-style names. */
  readonly hook: string;
}

export type TraceListener = (event: NftTraceEvent) => void;

/**
 * The id of a packet's trace events, as nf_tables_trace.c's __nft_trace_get_id makes it: a hash of the skb's
 * address, skb->hash and skb->skb_iif. `skb` is the packet's own random number (Packet.traceId, drawn once, as
 * an address is fixed once the skb exists); skb->hash is not modelled. The id changes when the packet is received
 * again on another device: a frame bridged up to cni0 (br_pass_frame_up) has one id at the bridge port's
 * PREROUTING (br_netfilter) and another at FORWARD and POSTROUTING, and so does a packet after VXLAN decap.
 */
export function traceIdOf(skb: number, skbIif: number): number {
  // murmur3's fmix32 over the two words: any well-mixed hash will do, the ids are compared by their runs only.
  let h = (skb ^ Math.imul(skbIif + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
