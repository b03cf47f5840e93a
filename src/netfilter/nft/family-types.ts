// The nft datatypes of the bridge, netdev, arp and ip6 families' fields (proto.c: proto_eth, proto_vlan, proto_arp,
// proto_ip6, proto_icmp6; meta.c for ibrname/obrname): each field's type and bit width, and the symbols of the
// types they add (arp operations, ICMPv6 types and codes). Not modelled: IPv6 address arithmetic (masks, ranges).

import type { FamilyField } from '../ir.ts';
import type { NftType } from './types.ts';

export const FAMILY_FIELD_TYPE: Readonly<Record<FamilyField, NftType>> = {
  'ether type': 'ether_type',
  'vlan id': 'integer',
  'vlan pcp': 'integer',
  'vlan dei': 'integer',
  'vlan type': 'ether_type',
  'arp htype': 'integer',
  'arp ptype': 'ether_type',
  'arp hlen': 'integer',
  'arp plen': 'integer',
  'arp operation': 'arp_op',
  'arp saddr ether': 'ether_addr',
  'arp saddr ip': 'ipv4_addr',
  'arp daddr ether': 'ether_addr',
  'arp daddr ip': 'ipv4_addr',
  'meta ibrname': 'ifname',
  'meta obrname': 'ifname',
  'ip6 saddr': 'ipv6_addr',
  'ip6 daddr': 'ipv6_addr',
  'ip6 nexthdr': 'inet_proto',
  'ip6 hoplimit': 'integer',
  'icmpv6 type': 'icmpv6_type',
  'icmpv6 code': 'icmpv6_code',
};

/** How many bits each field reads (range checks: `vlan id 5000` exceeds 0-4095). */
export const FAMILY_FIELD_BITS: Readonly<Record<FamilyField, number>> = {
  'ether type': 16,
  'vlan id': 12,
  'vlan pcp': 3,
  'vlan dei': 1,
  'vlan type': 16,
  'arp htype': 16,
  'arp ptype': 16,
  'arp hlen': 8,
  'arp plen': 8,
  'arp operation': 16,
  'arp saddr ether': 48,
  'arp saddr ip': 32,
  'arp daddr ether': 48,
  'arp daddr ip': 32,
  'meta ibrname': 128,
  'meta obrname': 128,
  'ip6 saddr': 128,
  'ip6 daddr': 128,
  'ip6 nexthdr': 8,
  'ip6 hoplimit': 8,
  'icmpv6 type': 8,
  'icmpv6 code': 8,
};

/** arpop_type (proto.c). */
export const ARP_OPS: readonly (readonly [string, number])[] = [
  ['request', 1],
  ['reply', 2],
  ['rrequest', 3],
  ['rreply', 4],
  ['inrequest', 8],
  ['inreply', 9],
  ['nak', 10],
];

/** icmp6_type (proto.c). */
export const ICMPV6_TYPES: readonly (readonly [string, number])[] = [
  ['destination-unreachable', 1],
  ['packet-too-big', 2],
  ['time-exceeded', 3],
  ['parameter-problem', 4],
  ['echo-request', 128],
  ['echo-reply', 129],
  ['mld-listener-query', 130],
  ['mld-listener-report', 131],
  ['mld-listener-done', 132],
  ['mld-listener-reduction', 132],
  ['nd-router-solicit', 133],
  ['nd-router-advert', 134],
  ['nd-neighbor-solicit', 135],
  ['nd-neighbor-advert', 136],
  ['nd-redirect', 137],
  ['router-renumbering', 138],
  ['ind-neighbor-solicit', 141],
  ['ind-neighbor-advert', 142],
  ['mld2-listener-report', 143],
];

/** icmpv6_code_type (proto.c). */
export const ICMPV6_CODES: readonly (readonly [string, number])[] = [
  ['no-route', 0],
  ['admin-prohibited', 1],
  ['addr-unreachable', 3],
  ['port-unreachable', 4],
  ['policy-fail', 5],
  ['reject-route', 6],
];
