// Reads the header fields of the bridge, netdev, arp and ip6 families' expressions (nft_payload on the link and
// network headers, nft_meta_bridge for ibrname/obrname): the Ethernet type, an 802.1Q tag written in the frame,
// ARP's header, IPv6's fixed header and ICMPv6's type and code. A field the packet does not have is undefined (the
// kernel's NFT_BREAK). Not modelled: VLAN tags carried out of band (skb->vlan_tci), IPv6 addresses (packetlab
// has no IPv6 packets: `ip6 saddr` never matches), IPv6 extension headers.

import type { FamilyField } from '../ir.ts';
import type { PacketState } from '../packet-state.ts';

const ETH_P_8021Q = 0x8100;
const ETH_P_ARP = 0x0806;
const ETH_P_IPV6 = 0x86dd;
const IPPROTO_ICMPV6 = 58;

function u16(buf: Uint8Array, at: number): number {
  return (buf[at]! << 8) | buf[at + 1]!;
}

function u32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

function mac(buf: Uint8Array, at: number): number {
  return u16(buf, at) * 0x1_0000_0000 + u32(buf, at + 2);
}

/** The link header's offset, or -1 when the packet has none here (locally generated, at output/postrouting). */
function linkHeader(state: PacketState): number {
  if (state.linkOffset >= 0) return state.linkOffset;
  const at = state.pkt.network - 14;
  if (state.pkt.iif === 0 || at < 0 || state.hook === 'output' || state.hook === 'postrouting') return -1;
  return at;
}

/** A field of the 802.1Q tag in the frame (payload @ link header + 14 / + 16), when the frame carries one. */
function vlan(
  state: PacketState,
  field: 'vlan id' | 'vlan pcp' | 'vlan dei' | 'vlan type',
): number | undefined {
  const link = linkHeader(state);
  const buf = state.pkt.buf;
  if (link < 0 || link + 18 > state.pkt.end || u16(buf, link + 12) !== ETH_P_8021Q) return undefined;
  const tci = u16(buf, link + 14);
  switch (field) {
    case 'vlan id':
      return tci & 0x0fff;
    case 'vlan pcp':
      return tci >>> 13;
    case 'vlan dei':
      return (tci >>> 12) & 1;
    case 'vlan type':
      return u16(buf, link + 16);
  }
}

/** An ARP header field at the network header (arp_hdr; the addresses for Ethernet and IPv4, hlen 6 and plen 4). */
function arp(state: PacketState, offset: number, bytes: 1 | 2 | 4 | 6): number | undefined {
  const { buf, network, end } = state.pkt;
  if (state.l2Protocol !== ETH_P_ARP || network + offset + bytes > end) return undefined;
  const at = network + offset;
  switch (bytes) {
    case 1:
      return buf[at]!;
    case 2:
      return u16(buf, at);
    case 4:
      return u32(buf, at);
    case 6:
      return mac(buf, at);
  }
}

/** The name of the bridge a port belongs to (nft_meta_bridge_get_eval: br_port_get_rcu(dev)->br->dev->name). */
function bridgeName(state: PacketState, side: 'in' | 'out'): string | undefined {
  const dev = side === 'in' ? state.inDev : state.outDev;
  if (dev === undefined || dev.masterIndex === 0) return undefined;
  return state.host.ifname(dev.masterIndex);
}

export function readFamilyField(state: PacketState, field: FamilyField): number | string | undefined {
  const { buf, network, end } = state.pkt;
  switch (field) {
    case 'ether type': {
      const link = linkHeader(state);
      return link < 0 ? undefined : u16(buf, link + 12);
    }
    case 'vlan id':
    case 'vlan pcp':
    case 'vlan dei':
    case 'vlan type':
      return vlan(state, field);
    case 'arp htype':
      return arp(state, 0, 2);
    case 'arp ptype':
      return arp(state, 2, 2);
    case 'arp hlen':
      return arp(state, 4, 1);
    case 'arp plen':
      return arp(state, 5, 1);
    case 'arp operation':
      return arp(state, 6, 2);
    case 'arp saddr ether':
      return arp(state, 8, 6);
    case 'arp saddr ip':
      return arp(state, 14, 4);
    case 'arp daddr ether':
      return arp(state, 18, 6);
    case 'arp daddr ip':
      return arp(state, 24, 4);
    case 'meta ibrname':
      return bridgeName(state, 'in');
    case 'meta obrname':
      return bridgeName(state, 'out');
    case 'ip6 nexthdr':
      return state.l2Protocol === ETH_P_IPV6 && network + 40 <= end ? buf[network + 6]! : undefined;
    case 'ip6 hoplimit':
      return state.l2Protocol === ETH_P_IPV6 && network + 40 <= end ? buf[network + 7]! : undefined;
    case 'icmpv6 type':
    case 'icmpv6 code': {
      if (state.l2Protocol !== ETH_P_IPV6 || network + 42 > end || buf[network + 6] !== IPPROTO_ICMPV6)
        return undefined;
      return buf[network + 40 + (field === 'icmpv6 type' ? 0 : 1)]!;
    }
    case 'ip6 saddr':
    case 'ip6 daddr':
      return undefined;
  }
}
