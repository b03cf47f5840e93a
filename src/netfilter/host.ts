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

/** What xt_socket and xt_TPROXY read of a local socket (inet_sk, sk_mark, sk_state). */
export interface SocketInfo {
  /** inet_rcv_saddr: the bound address, 0 for a listener on any. */
  readonly boundAddr: number;
  readonly boundPort: number;
  /** IP_TRANSPARENT (inet_sk_transparent; tw_transparent for TIME_WAIT). */
  readonly transparent: boolean;
  /** SO_MARK. */
  readonly mark: number;
  readonly listening: boolean;
  readonly timeWait: boolean;
}

/** Which sockets a lookup considers (nf_tproxy_lookup_t; 'any' is nf_sk_lookup_slow_v4's established-then-listener). */
export type SocketLookup = 'any' | 'established' | 'listener';

export interface NetfilterHost {
  readonly rng: Rng;
  now(): number;
  ifname(ifindex: number): string | undefined;
  /** if_nametoindex: the index of the device called `name` (nft resolves `iif "eth0"` with it). */
  ifindex?(name: string): number | undefined;
  /** inet_addr_type / fib lookup of `addr` in table local then main, as nft_fib and xt_addrtype do. */
  addressType(addr: number): AddressType;
  /**
   * fib_lookup toward `dst` from `src` with `mark` and `tos`, as ipt_rpfilter's reverse lookup makes it (iif
   * loopback, FIB_LOOKUP_IGNORE_LINKSTATE): the route's type and output device, undefined on a miss. Absent: no
   * route is found (rpfilter then fails).
   */
  reverseRoute?(
    dst: number,
    src: number,
    mark: number,
    tos: number,
  ): { type: AddressType; oif: number } | undefined;
  /** The address MASQUERADE takes on `oif` toward `dst` (inet_select_addr on the egress device). */
  masqueradeAddress(oif: number, dst: number): number | undefined;
  /**
   * The address REDIRECT sends a packet received on `iif` to: the first (primary) IPv4 address
   * of that device, as nf_nat_redirect_ipv4 reads ifa_list; undefined when it has none (the
   * packet is then dropped).
   */
  redirectAddress(iif: number): number | undefined;
  /**
   * The local socket for a packet's 4-tuple (`saddr:sport` the remote end, `daddr:dport` the local one), as
   * nf_socket_get_sock_v4 and nf_tproxy_get_sock_v4 find it; absent: the namespace has none.
   */
  socketLookup?(
    proto: number,
    saddr: number,
    sport: number,
    daddr: number,
    dport: number,
    kind: SocketLookup,
  ): SocketInfo | undefined;
  /** The MTU of the route toward `dst` (TCPMSS --clamp-mss-to-pmtu); absent or undefined: the out device's. */
  routeMtu?(dst: number): number | undefined;
  /** rt_nexthop of the route toward `dst`: its gateway, or `dst` on a link route; undefined without a route. */
  routeNexthop?(dst: number): number | undefined;
  /** Sends the answer REJECT asks for (nf_send_reset / nf_send_unreach) for the packet being rejected. */
  reject(pkt: Packet, how: RejectWith, hook: string): void;
  /** The kernel log (dmesg): LOG target lines and conntrack's "table full". */
  log(line: string): void;
  /** net_ratelimit(): whether a rate-limited message ("table full") may be logged now; absent, always. */
  netRatelimit?(): boolean;
  /** The namespace's inode number (net->ns.inum), which conntrack's "table full" names. */
  readonly netnsInum: number;
  /** The receive backlog's frame numbering, for conntrack's model of parallel softirqs (absent: one CPU). */
  readonly softirq?: SoftirqClock;
}

/** Which receive frame is being processed: the simulation's backlog (link/backlog.ts) answers. */
export interface SoftirqClock {
  /** The number of the frame being delivered (0, 1, ... in delivery order), or -1 in process context. */
  frame(): number;
  /** How many frames were already queued when the current one was taken off the backlog. */
  queuedBehind(): number;
}
