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
