// Linux cooked capture v2 (print-sll.c's sll2_if_print and sll2_print): interface, direction, then the payload by protocol.

import { defaultPrint } from './ascii.ts';
import {
  ETHERTYPE_8021Q,
  ethertypeName,
  ethertypePrint,
  MAX_ETHERNET_LENGTH_VAL,
  vlanTciText,
} from './ether.ts';
import { type Dissector, hex4 } from './netdissect.ts';

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
  if (caplen < SLL2_HEADER_LEN) {
    d.printTrunc();
    return;
  }
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
      d.protocol = 'vlan';
      d.printTrunc();
      return;
    }
    const tci = d.u16(cursor);
    type = d.u16(cursor + 2);
    if (type <= MAX_ETHERNET_LENGTH_VAL) type = 0x0004;
    if (d.eflag) d.print(`${vlanTciText(tci)}, `);
    d.print(`ethertype ${ethertypeName(type)}, `);
    cursor += 4;
    remaining -= 4;
  }
  if (type <= MAX_ETHERNET_LENGTH_VAL || !ethertypePrint(d, type, cursor, remaining)) {
    if (!d.eflag && type > MAX_ETHERNET_LENGTH_VAL) header(remaining + SLL2_HEADER_LEN);
    defaultPrint(d, cursor, d.bytes.length - cursor);
  }
}
