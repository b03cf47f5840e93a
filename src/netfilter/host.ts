// What rule evaluation needs from the namespace around it, injected so netfilter/ never imports net/ or netns/.

import type { Packet } from '../core/packet.ts';
import type { Rng } from '../core/rng.ts';
import type { RejectWith } from './ir.ts';

/** The route types `fib daddr type` and `-m addrtype` report (RTN_*), by nft's names. */
export type AddressType =
  | 'unspec'
  | 'unicast'
  | 'local'
  | 'broadcast'
  | 'anycast'
  | 'multicast'
  | 'blackhole'
  | 'unreachable'
  | 'prohibit';

export interface NetfilterHost {
  readonly rng: Rng;
  now(): number;
  ifname(ifindex: number): string | undefined;
  /** inet_addr_type / fib lookup of `addr` in table local then main, as nft_fib and xt_addrtype do. */
  addressType(addr: number): AddressType;
  /** The address MASQUERADE takes on `oif` toward `dst` (inet_select_addr on the egress device). */
  masqueradeAddress(oif: number, dst: number): number | undefined;
  /**
   * The address REDIRECT sends a packet received on `iif` to: the first (primary) IPv4 address
   * of that device, as nf_nat_redirect_ipv4 reads ifa_list; undefined when it has none (the
   * packet is then dropped).
   */
  redirectAddress(iif: number): number | undefined;
  /** Sends the answer REJECT asks for (nf_send_reset / nf_send_unreach) for the packet being rejected. */
  reject(pkt: Packet, how: RejectWith, hook: string): void;
  /** The kernel log (dmesg): LOG target lines and conntrack's "table full". */
  log(line: string): void;
  /** The namespace's inode number (net->ns.inum), which conntrack's "table full" names. */
  readonly netnsInum: number;
}
