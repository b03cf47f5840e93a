// Ethernet II and 802.1Q tags (print-ether.c's ether_print) and the EtherType dispatch; no LLC/SNAP, no IPv6.

import { arpPrint } from './arp.ts';
import { defaultPrint } from './ascii.ts';
import { ipPrint } from './ip.ts';
import { type Dissector, hex4 } from './netdissect.ts';

export const ETHER_HEADER_LEN = 14;
export const MAX_ETHERNET_LENGTH_VAL = 1500;

export const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_ARP = 0x0806;
export const ETHERTYPE_8021Q = 0x8100;
const ETHERTYPE_8021QINQ = 0x88a8;
const ETHERTYPE_8021Q9100 = 0x9100;
const ETHERTYPE_8021Q9200 = 0x9200;

/** EtherType names as tcpdump's ethertype_values table spells them. */
export const ETHERTYPE_NAMES = new Map<number, string>([
  [0x0800, 'IPv4'],
  [0x8847, 'MPLS unicast'],
  [0x8848, 'MPLS multicast'],
  [0x86dd, 'IPv6'],
  [0x8100, '802.1Q'],
  [0x9100, '802.1Q-9100'],
  [0x88a8, '802.1Q-QinQ'],
  [0x9200, '802.1Q-9200'],
  [0x88e5, '802.1AE MACsec'],
  [0x0200, 'PUP'],
  [0x0806, 'ARP'],
  [0x8035, 'Reverse ARP'],
  [0x0600, 'NS'],
  [0x0500, 'Sprite'],
  [0x1000, 'Trail'],
  [0x6001, 'MOP DL'],
  [0x6002, 'MOP RC'],
  [0x6003, 'DN'],
  [0x6004, 'LAT'],
  [0x6007, 'SCA'],
  [0x6558, 'TEB'],
  [0x8038, 'Lanbridge'],
  [0x803c, 'DEC DNS'],
  [0x803e, 'DEC DTS'],
  [0x805b, 'VEXP'],
  [0x805c, 'VPROD'],
  [0x809b, 'Appletalk'],
  [0x80f3, 'Appletalk ARP'],
  [0x8137, 'IPX'],
  [0x880b, 'PPP'],
  [0x8808, 'MPCP'],
  [0x8809, 'Slow Protocols'],
  [0x8863, 'PPPoE D'],
  [0x8864, 'PPPoE S'],
  [0x888e, 'EAPOL'],
  [0x8899, 'Realtek protocols'],
  [0x886f, 'MS NLB heartbeat'],
  [0x8870, 'Jumbo'],
  [0x894f, 'NSH'],
  [0x9000, 'Loopback'],
  [0xfefe, 'OSI'],
  [0x00fe, 'GRE-OSI'],
  [0xabcd, 'CFM (old)'],
  [0x8902, 'CFM'],
  [0x893a, 'IEEE1905.1'],
  [0x88cc, 'LLDP'],
  [0x88ca, 'TIPC'],
  [0x0707, 'GeoNet (old)'],
  [0x8947, 'GeoNet'],
  [0x1111, 'CALM FAST'],
  [0x88a2, 'AoE'],
  [0x88f7, 'PTP'],
  [0xd28b, 'Arista Vendor Specific Protocol'],
]);

export function ethertypeName(type: number): string {
  return ETHERTYPE_NAMES.get(type) ?? 'Unknown';
}

/** Ethernet II with 802.1Q tags (print-ether.c's ether_print); `length` is the wire length. */
export function etherPrint(d: Dissector, at: number, length: number, caplen: number): void {
  d.protocol = 'ether';
  if (length < caplen) {
    // Only an encapsulated frame can claim less than was captured (a VXLAN payload).
    d.print(`[length ${length} < caplen ${caplen}] (invalid)`);
    return;
  }
  const end = at + caplen;
  // The capture's own link header (at 0, not a tunnel's inner frame) is what -x leaves out.
  const outermost = at === 0;
  if (caplen < ETHER_HEADER_LEN || length < ETHER_HEADER_LEN) {
    if (outermost) d.llHdrLen = caplen;
    d.printTrunc();
    return;
  }
  const dst = d.macAt(at);
  const src = d.macAt(at + 6);
  let type = d.u16(at + 12);
  let cursor = at + ETHER_HEADER_LEN;
  let remaining = length - ETHER_HEADER_LEN;
  let first = true;
  const typeText = (t: number) => {
    if (t <= MAX_ETHERNET_LENGTH_VAL) return '802.3';
    if (d.qflag) return ETHERTYPE_NAMES.get(t) ?? `Unknown Ethertype (0x${hex4(t)})`;
    return `ethertype ${ethertypeName(t)} (0x${hex4(t)})`;
  };
  const printType = (t: number) => {
    d.print(`${typeText(t)}${first ? `, length ${length}: ` : ', '}`);
    first = false;
  };
  if (d.eflag) d.print(`${src} > ${dst}, `);
  while (
    type === ETHERTYPE_8021Q ||
    type === ETHERTYPE_8021QINQ ||
    type === ETHERTYPE_8021Q9100 ||
    type === ETHERTYPE_8021Q9200
  ) {
    if (end - cursor < 4 || remaining < 4) {
      if (outermost) d.llHdrLen = caplen;
      d.protocol = 'vlan';
      d.printTrunc();
      return;
    }
    if (d.eflag) printType(type);
    const tci = d.u16(cursor);
    type = d.u16(cursor + 2);
    if (d.eflag) d.print(`${vlanTciText(tci)}, `);
    cursor += 4;
    remaining -= 4;
  }
  if (outermost) d.llHdrLen = cursor;
  if (d.eflag) printType(type);
  if (type <= MAX_ETHERNET_LENGTH_VAL || !ethertypePrint(d, type, cursor, remaining)) {
    // An 802.3 length field (LLC, not decoded here) or an EtherType not decoded: raw bytes.
    if (!d.eflag) d.print(`${src} > ${dst}, ${typeText(type)}, length ${length}: `);
    defaultPrint(d, cursor, end - cursor);
  }
}

/** Dispatches the payload of a known EtherType; false when the type is not decoded. */
export function ethertypePrint(d: Dissector, type: number, at: number, length: number): boolean {
  switch (type) {
    case ETHERTYPE_IPV4:
      ipPrint(d, at, length);
      return true;
    case ETHERTYPE_ARP:
      arpPrint(d, at, length);
      return true;
    default:
      return false;
  }
}

export function etherInnerPrint(d: Dissector, at: number, length: number): void {
  etherPrint(d, at, length, d.available(at));
}

/** An 802.1Q tag as tcpdump prints it: `vlan 100, p 5` and `, DEI` when set. */
export function vlanTciText(tci: number): string {
  return `vlan ${tci & 0x0fff}, p ${tci >>> 13}${(tci & 0x1000) !== 0 ? ', DEI' : ''}`;
}
