// Linux cooked captures v1 and v2 (print-sll.c): interface and direction, then the payload by protocol; no LLC, IPX or radiotap payloads.

import { defaultPrint } from './ascii.ts';
import {
  ETHERTYPE_8021Q,
  ethertypeName,
  ethertypePrint,
  MAX_ETHERNET_LENGTH_VAL,
  vlanTciText,
} from './ether.ts';
import { type Dissector, hex4, TRUNCATED } from './netdissect.ts';

const SLL2_HEADER_LEN = 20;

export const SLL_PACKET_TYPES = new Map<number, string>([
  [0, 'In'],
  [1, 'B'],
  [2, 'M'],
  [3, 'P'],
  [4, 'Out'],
]);

/** Linux cooked capture v2 (print-sll.c's sll2_if_print and sll2_print). */
export function sll2Print(d: Dissector, at: number, length: number): void {
  d.protocol = 'sll2';
  const caplen = d.bytes.length - at;
  // A cut cooked header ends the whole walk (the -x dump then shows every byte).
  if (caplen < SLL2_HEADER_LEN) throw TRUNCATED;
  d.llHdrLen = SLL2_HEADER_LEN;
  const protocol = d.u16(at);
  const ifIndex = d.u32(at + 4);
  const packetType = d.u8(at + 10);
  const addrLen = d.u8(at + 11);
  const name = d.options.ifName?.(ifIndex) ?? '?';
  d.print(`${name.padEnd(5, ' ')} `);
  d.print(`${(SLL_PACKET_TYPES.get(packetType) ?? '?').padEnd(3, ' ')} `);
  const header = (wireLength: number) => {
    d.print(`ifindex ${ifIndex} `);
    if (addrLen === 6) d.print(`${d.macAt(at + 12)} `);
    if (d.qflag) return;
    if (protocol === 0x0001) d.print('802.3');
    else if (protocol === 0x0004) d.print('802.2');
    else d.print(`ethertype ${ethertypeName(protocol)} (0x${hex4(protocol)})`);
    d.print(`, length ${wireLength}: `);
  };
  if (d.eflag) header(length);
  let type = protocol;
  let cursor = at + SLL2_HEADER_LEN;
  let remaining = length - SLL2_HEADER_LEN;
  while (type === ETHERTYPE_8021Q) {
    if (d.bytes.length - cursor < 4 || remaining < 4) {
      d.llHdrLen = d.bytes.length;
      d.protocol = 'vlan';
      d.printTrunc();
      return;
    }
    const tci = d.u16(cursor);
    type = d.u16(cursor + 2);
    if (type <= MAX_ETHERNET_LENGTH_VAL) type = 0x0004;
    if (d.eflag) d.print(`${vlanTciText(tci)}, `);
    if (!d.qflag) d.print(`ethertype ${ethertypeName(type)}, `);
    cursor += 4;
    remaining -= 4;
    d.llHdrLen += 4;
  }
  if (type <= MAX_ETHERNET_LENGTH_VAL || !ethertypePrint(d, type, cursor, remaining)) {
    if (!d.eflag && type > MAX_ETHERNET_LENGTH_VAL) header(remaining + SLL2_HEADER_LEN);
    defaultPrint(d, cursor, d.bytes.length - cursor);
  }
}

const SLL_HEADER_LEN = 16;
const LINUX_SLL_P_802_3 = 0x0001;
const LINUX_SLL_P_802_2 = 0x0004;

/**
 * Linux cooked capture v1 (print-sll.c's sll_if_print and sll_print): nothing of the header
 * without -e; with it the direction right-aligned, the source address and the protocol.
 */
export function sllPrint(d: Dissector, at: number, length: number): void {
  d.protocol = 'sll';
  const caplen = d.bytes.length - at;
  // A cut cooked header ends the whole walk (the -x dump then shows every byte).
  if (caplen < SLL_HEADER_LEN) throw TRUNCATED;
  d.llHdrLen = SLL_HEADER_LEN;
  const packetType = d.u16(at);
  const addrLen = d.u16(at + 4);
  const protocol = d.u16(at + 14);
  const header = (wireLength: number) => {
    d.print(`${(SLL_PACKET_TYPES.get(packetType) ?? '?').padStart(3, ' ')} `);
    if (addrLen === 6) d.print(`${d.macAt(at + 6)} `);
    if (d.qflag) return;
    if (protocol === LINUX_SLL_P_802_3) d.print('802.3');
    else if (protocol === LINUX_SLL_P_802_2) d.print('802.2');
    else if (protocol <= MAX_ETHERNET_LENGTH_VAL) d.print(`ethertype Unknown (0x${hex4(protocol)})`);
    else d.print(`ethertype ${ethertypeName(protocol)} (0x${hex4(protocol)})`);
    d.print(`, length ${wireLength}: `);
  };
  if (d.eflag) header(length);
  let type = protocol;
  let cursor = at + SLL_HEADER_LEN;
  let remaining = length - SLL_HEADER_LEN;
  while (type === ETHERTYPE_8021Q) {
    if (d.bytes.length - cursor < 4) {
      d.llHdrLen = d.bytes.length;
      d.protocol = 'vlan';
      d.printTrunc();
      return;
    }
    const tci = d.u16(cursor);
    type = d.u16(cursor + 2);
    if (type <= MAX_ETHERNET_LENGTH_VAL) type = LINUX_SLL_P_802_2;
    if (d.eflag) d.print(`${vlanTciText(tci)}, `);
    if (!d.qflag) d.print(`ethertype ${ethertypeName(type)}, `);
    cursor += 4;
    remaining -= 4;
    d.llHdrLen += 4;
  }
  // 802.3 (IPX) and 802.2 (LLC) payloads are not decoded: raw bytes, as for an unknown type.
  if (type <= MAX_ETHERNET_LENGTH_VAL || !ethertypePrint(d, type, cursor, remaining)) {
    if (!d.eflag && type > MAX_ETHERNET_LENGTH_VAL) header(remaining + SLL_HEADER_LEN);
    defaultPrint(d, cursor, d.bytes.length - cursor);
  }
}
