// nft_rt for IPv4 (mirrors nft_rt.c: nft_rt_get_eval, get_tcpmss): the next hop of the packet's route, the TCP MSS
// its path allows and its realm. Not modelled: the route the packet took is looked up again toward daddr (policy
// rules on mark or iif are not applied), and there are no realms (`rt classid` is 0).

import type { Selector } from '../ir.ts';
import type { PacketState } from '../packet-state.ts';

const TCP_MSS_DEFAULT = 536;
const IPV4_TCP_HEADERS = 40; // sizeof(struct iphdr) + sizeof(struct tcphdr)

function u32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

/** The value `rt KEY` reads; undefined (NFT_BREAK) before routing, when the packet has no skb_dst yet. */
export function rtValue(state: PacketState, selector: Extract<Selector, { kind: 'rt' }>): number | undefined {
  if (state.hook === 'prerouting' || state.hook === 'ingress' || state.hook === 'egress') return undefined;
  const { buf } = state.pkt;
  const ip = state.pkt.network;
  const daddr = u32(buf, ip + 16);
  switch (selector.key) {
    case 'classid':
      return 0;
    case 'nexthop':
      // rt_nexthop: the gateway, or daddr itself on a link route (a delivered packet's local route has none).
      if (state.hook === 'input') return daddr;
      return state.host.routeNexthop?.(daddr) ?? daddr;
    case 'mtu': {
      // get_tcpmss: the smaller of dst_mtu and the MTU of the route back to saddr, less the IPv4 and TCP headers.
      const forward = state.host.routeMtu?.(daddr) ?? state.outDev?.mtu ?? 0xffff_ffff;
      const reverse = state.host.routeMtu?.(u32(buf, ip + 12)) ?? 0xffff_ffff;
      const mtu = Math.min(forward, reverse);
      return mtu <= IPV4_TCP_HEADERS || mtu > 0xffff ? TCP_MSS_DEFAULT : mtu - IPV4_TCP_HEADERS;
    }
  }
}
