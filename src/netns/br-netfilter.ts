// br_netfilter for bridged IPv4 (net/bridge/br_netfilter_hooks.c): with net.bridge.bridge-nf-call-iptables=1, a frame
// the bridge forwards from port to port traverses the IPv4 PREROUTING, FORWARD and POSTROUTING hooks, with the
// bridge as in and out device, so conntrack and NAT see it (the reply of a DNATed pod-to-pod connection is
// un-NATed this way).
//
// Frames for the host itself are not hooked here: they go up to ip_rcv, whose PREROUTING sees the
// same bridge as in device (Linux runs that traversal at bridge level and skips it in ip_rcv with
// ip_sabotage_in; the outcome is the same). Not modelled: a DNAT that sends a bridged frame to
// another device (br_nf_pre_routing_finish's re-route), arptables, ip6tables, VLAN-tagged frames.

import type { BridgeForwardHook } from '../link/bridge.ts';
import { readU16 } from '../wire/bytes.ts';
import { ETHERNET_HEADER_LEN, ETHERTYPE_IPV4 } from '../wire/ethernet.ts';
import { Ipv4View } from '../wire/ipv4.ts';
import type { Namespace } from './namespace.ts';

export const BRIDGE_NF_CALL_IPTABLES = 'net.bridge.bridge-nf-call-iptables';

export function brNetfilterHook(ns: Namespace): BridgeForwardHook {
  return (bridge, pkt, inPort) => {
    if (ns.sysctls.int(BRIDGE_NF_CALL_IPTABLES) === 0) return true;
    if (pkt.length < ETHERNET_HEADER_LEN || readU16(pkt.buf, pkt.start + 12) !== ETHERTYPE_IPV4) return true;
    const network = pkt.start + ETHERNET_HEADER_LEN;
    // br_validate_ipv4: a bad header is dropped before the hooks.
    const view = Ipv4View.checked(pkt.buf.subarray(0, pkt.end), network);
    if (!(view instanceof Ipv4View) || !view.verifyChecksum()) {
      ns.ipv4.drop(pkt, 'IP_INHDR', inPort);
      return false;
    }
    pkt.network = network;
    const netfilter = ns.netfilter;
    const reason =
      netfilter.run('PREROUTING', pkt, bridge, undefined) ??
      netfilter.run('FORWARD', pkt, bridge, bridge) ??
      netfilter.run('POSTROUTING', pkt, undefined, bridge);
    pkt.network = -1;
    if (reason === undefined) return true;
    ns.ipv4.drop(pkt, reason, inPort);
    return false;
  };
}
