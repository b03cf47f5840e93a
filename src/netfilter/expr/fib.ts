// nft_fib for IPv4 (mirrors nft_fib_ipv4.c: nft_fib4_eval_type, nft_fib4_eval, nft_fib_store_result): the address
// type of saddr or daddr, and the output device of the route toward daddr (or back toward saddr, the rpfilter
// form). Not modelled: VRFs (l3mdev), multipath next hops other than the first, `fib ... type` restricted to the
// iif/oif device (inet_dev_addr_type reads as inet_addr_type), and policy rules keyed on iif in the forward hook.

import type { FibSelector } from '../ir.ts';
import type { PacketState } from '../packet-state.ts';

/** RTN_* numbers, which nft's `fib ... type` compares against. */
export const ADDRESS_TYPE_NUMBER = {
  unspec: 0,
  unicast: 1,
  local: 2,
  broadcast: 3,
  anycast: 4,
  multicast: 5,
  blackhole: 6,
  unreachable: 7,
  prohibit: 8,
} as const;

function u32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

const isMulticast = (addr: number): boolean => addr >>> 28 === 0xe;
const isLimitedBroadcast = (addr: number): boolean => addr === 0xffff_ffff;
/** ipv4_is_local_multicast: 224.0.0.0/24. */
const isLocalMulticast = (addr: number): boolean => addr >>> 8 === 0xe0_0000;

/** get_saddr: no route is looked up from a multicast, broadcast or zeronet source. */
function lookupSource(addr: number): number {
  return isMulticast(addr) || isLimitedBroadcast(addr) || addr >>> 24 === 0 ? 0 : addr;
}

/** The register nft_fib leaves: an RTN_* type, an ifindex, a device name, or 1/0 for `exists`/`missing`. */
export function fibValue(state: PacketState, selector: FibSelector): number | string | undefined {
  const { buf } = state.pkt;
  const ip = state.pkt.network;
  const saddr = u32(buf, ip + 12);
  const daddr = u32(buf, ip + 16);
  const byDaddr = selector.flags.includes('daddr');
  if (selector.result === 'type') return ADDRESS_TYPE_NUMBER[state.host.addressType(byDaddr ? daddr : saddr)];
  const iif = selector.flags.includes('iif');
  const oif = selector.flags.includes('oif') ? state.outDev : iif ? state.inDev : undefined;
  // nft_fib_is_loopback: in prerouting a looped-back packet, or one received on lo, routes via its in device.
  if (state.hook === 'prerouting' && state.inDev?.kind === 'loopback') return store(selector, state.inDev);
  if (saddr === 0 && (isLimitedBroadcast(daddr) || isLocalMulticast(daddr)))
    return store(selector, state.inDev);
  const mark = selector.flags.includes('mark') ? state.pkt.mark : 0;
  const tos = buf[ip + 1]! & 0xfc; // DSCP_BITS
  const route = byDaddr
    ? state.host.reverseRoute?.(daddr, lookupSource(saddr), mark, tos)
    : state.host.reverseRoute?.(saddr, lookupSource(daddr), mark, tos);
  // fib_lookup failed (no route, blackhole, unreachable, prohibit) or found a local route: the register is 0.
  if (route === undefined || route.type === 'local') return store(selector, undefined);
  if (oif === undefined)
    return store(selector, { ifindex: route.oif, name: state.host.ifname(route.oif) ?? '' });
  // fib_info_nh_uses_dev: the route must leave through the packet's own iif (or oif).
  return store(selector, route.oif === oif.ifindex ? oif : undefined);
}

/** nft_fib_store_result: the device's index or name, `exists` as 1, no device as 0 (or the empty name). */
function store(
  selector: FibSelector,
  dev: { readonly ifindex: number; readonly name: string } | undefined,
): number | string {
  if (selector.present === true) return dev === undefined ? 0 : 1;
  if (selector.result === 'oifname') return dev?.name ?? '';
  return dev?.ifindex ?? 0;
}
