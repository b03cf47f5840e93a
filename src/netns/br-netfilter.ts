// br_netfilter for bridged IPv4 (net/bridge/br_netfilter_hooks.c): with net.bridge.bridge-nf-call-iptables=1, an IPv4
// frame entering a bridge port meets PREROUTING at bridge level (br_nf_pre_routing), with the bridge as in device;
// a frame bridged on to another port then meets FORWARD and POSTROUTING (br_nf_forward_ip, br_nf_post_routing), so
// conntrack and NAT see pod-to-pod traffic; a frame for the host goes up to ip_rcv, which skips the PREROUTING it
// already had (ip_sabotage_in).
//
// A DNAT at bridge level re-routes the frame (br_nf_pre_routing_finish): toward an address behind the same bridge
// it stays bridged, its destination MAC the neighbour's (hairpin traffic keeps its TTL and source MAC); toward
// anything else it goes up to the host to be routed. Not modelled: arptables, ip6tables, VLAN-tagged frames.

import { PacketType } from '../core/packet.ts';
import type { BridgeForwardHook, BridgePreRoutingHook } from '../link/bridge.ts';
import { readMac, writeMac } from '../wire/address.ts';
import { readU16 } from '../wire/bytes.ts';
import { ETHERNET_HEADER_LEN, ETHERTYPE_IPV4 } from '../wire/ethernet.ts';
import { Ipv4View } from '../wire/ipv4.ts';
import type { Namespace } from './namespace.ts';

export const BRIDGE_NF_CALL_IPTABLES = 'net.bridge.bridge-nf-call-iptables';

/** br_validate_ipv4: the IPv4 header of a bridged frame, or undefined when it is not IPv4; a bad header is an error. */
function ipv4Of(pkt: Parameters<BridgeForwardHook>[1]): Ipv4View | 'not-ipv4' | 'bad' {
  if (pkt.length < ETHERNET_HEADER_LEN || readU16(pkt.buf, pkt.start + 12) !== ETHERTYPE_IPV4)
    return 'not-ipv4';
  const bytes = pkt.end === pkt.buf.length ? pkt.buf : pkt.buf.subarray(0, pkt.end);
  const view = Ipv4View.checked(bytes, pkt.start + ETHERNET_HEADER_LEN);
  return view instanceof Ipv4View && view.verifyChecksum() ? view : 'bad';
}

/** br_nf_pre_routing and br_nf_pre_routing_finish. */
export function brNetfilterPreRouting(ns: Namespace): BridgePreRoutingHook {
  return (bridge, pkt, inPort) => {
    if (ns.sysctls.int(BRIDGE_NF_CALL_IPTABLES) === 0) return 'continue';
    const view = ipv4Of(pkt);
    if (view === 'not-ipv4') return 'continue';
    if (view === 'bad') {
      ns.ipv4.drop(pkt, 'IP_INHDR', inPort);
      return 'drop';
    }
    const daddrBefore = view.dstAddr;
    pkt.network = view.offset;
    pkt.physIn = inPort.ifindex;
    const reason = ns.netfilter.run('PREROUTING', pkt, bridge, undefined);
    pkt.network = -1;
    if (reason !== undefined) {
      ns.ipv4.drop(pkt, reason, inPort);
      return 'drop';
    }
    pkt.brPrerouted = true;
    const daddr = view.dstAddr;
    if (daddr === daddrBefore) return 'continue';
    // A DNAT took place: where does the new destination go?
    const route = ns.ipv4.router.input(daddr, view.srcAddr, bridge.ifindex, pkt.mark, ns.bridgeDnatRoute);
    if (route.ok && route.type === 'unicast' && route.ifindex === bridge.ifindex) {
      // br_nf_pre_routing_finish_bridge: stay bridged, to the neighbour's MAC. A resolved neighbour
      // (its header cached) is used at once; otherwise neigh->output resolves it and br_dev_xmit
      // hands the frame back to the bridge as if from its port (Bridge.xmit).
      const nextHop = route.gateway !== 0 ? route.gateway : daddr;
      const neigh = ns.ipv4.neighbours.get(bridge.ifindex, nextHop);
      if (neigh?.lladdr !== undefined && neigh.state !== 'STALE' && neigh.state !== 'INCOMPLETE') {
        writeMac(pkt.buf, pkt.start, neigh.lladdr);
        return 'continue';
      }
      pkt.brDnatPort = inPort.ifindex;
      pkt.brDnatSrcMac = readMac(pkt.buf, pkt.start + 6);
      pkt.start += ETHERNET_HEADER_LEN;
      pkt.network = pkt.start;
      ns.ipv4.neighbours.output(bridge.ifindex, nextHop, pkt);
      return 'taken';
    }
    // To the host, or routed elsewhere: up through the bridge device as a frame for this host (the bridge's
    // address in the header, skb->pkt_type = PACKET_HOST).
    writeMac(pkt.buf, pkt.start, bridge.mac);
    pkt.pktType = PacketType.Host;
    return 'up';
  };
}

/** br_nf_forward (NF_BR_PRI_BRNF) for a frame bridged from port to port: FORWARD (PREROUTING first, if it was missed). */
export function brNetfilterHook(ns: Namespace): BridgeForwardHook {
  return (bridge, pkt, inPort, outPort) => {
    if (ns.sysctls.int(BRIDGE_NF_CALL_IPTABLES) === 0) return true;
    const view = ipv4Of(pkt);
    if (view === 'not-ipv4') return true;
    if (view === 'bad') {
      ns.ipv4.drop(pkt, 'IP_INHDR', inPort);
      return false;
    }
    pkt.network = view.offset;
    pkt.physIn = inPort.ifindex;
    pkt.physOut = outPort.ifindex;
    const netfilter = ns.netfilter;
    const reason =
      (pkt.brPrerouted ? undefined : netfilter.run('PREROUTING', pkt, bridge, undefined)) ??
      netfilter.run('FORWARD', pkt, bridge, bridge);
    pkt.network = -1;
    // Still being bridged: the POSTROUTING trace names no input device (br_nf_post_routing passes none).
    pkt.brPrerouted = true;
    if (reason === undefined) return true;
    ns.ipv4.drop(pkt, reason, inPort);
    return false;
  };
}

/**
 * br_nf_post_routing, at NF_BR_PRI_LAST of the bridge's postrouting: POSTROUTING for a bridged IPv4 frame, after
 * the bridge family's postrouting chains, with no input device.
 */
export function brNetfilterPostRouting(ns: Namespace): BridgeForwardHook {
  return (bridge, pkt, inPort) => {
    if (ns.sysctls.int(BRIDGE_NF_CALL_IPTABLES) === 0) return true;
    const view = ipv4Of(pkt);
    if (view === 'not-ipv4') return true;
    if (view === 'bad') {
      ns.ipv4.drop(pkt, 'IP_INHDR', inPort);
      return false;
    }
    pkt.network = view.offset;
    const reason = ns.netfilter.run('POSTROUTING', pkt, undefined, bridge);
    pkt.network = -1;
    if (reason === undefined) return true;
    ns.ipv4.drop(pkt, reason, inPort);
    return false;
  };
}
