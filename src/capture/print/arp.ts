// ARP (print-arp.c's arp_print) for any hardware and protocol lengths; no ATM ARP.

import { defaultPrint } from './ascii.ts';
import { ETHERTYPE_IPV4, ETHERTYPE_NAMES } from './ether.ts';
import { type Dissector, hex4 } from './netdissect.ts';

const ARP_OPERATIONS = new Map<number, string>([
  [1, 'Request'],
  [2, 'Reply'],
  [3, 'Reverse Request'],
  [4, 'Reverse Reply'],
  [8, 'Inverse Request'],
  [9, 'Inverse Reply'],
  [10, 'NACK Reply'],
]);

const ARP_HARDWARE_NAMES = new Map<number, string>([
  [1, 'Ethernet'],
  [2, 'Experimental Ethernet'],
  [3, 'AX.25'],
  [4, 'ProNET'],
  [5, 'Chaos'],
  [6, 'IEEE 802'],
  [7, 'ARCNet'],
  [15, 'Frame Relay'],
  [19, 'ATM'],
  [24, 'IEEE 1394'],
  [32, 'InfiniBand'],
]);

/** ARP (print-arp.c's arp_print) for any hardware and protocol lengths. */
export function arpPrint(d: Dissector, at: number, length: number): void {
  d.protocol = 'arp';
  d.need(at, 8);
  const hardware = d.u16(at);
  const proto = d.u16(at + 2);
  const hlen = d.u8(at + 4);
  const plen = d.u8(at + 5);
  const op = d.u16(at + 6);
  const sha = at + 8;
  const spa = sha + hlen;
  const tha = spa + plen;
  const tpa = tha + hlen;
  // A cut ARP packet ends the whole walk (the -x dump then shows the link header too).
  d.need(tpa, plen);
  if (!d.eflag) d.print('ARP, ');
  const decodable = (proto === ETHERTYPE_IPV4 || proto === 0x1000) && plen === 4 && hlen !== 0;
  if (!decodable || d.vflag > 0) {
    const hwName = ARP_HARDWARE_NAMES.get(hardware) ?? `Unknown Hardware (${hardware})`;
    const protoName = ETHERTYPE_NAMES.get(proto) ?? `Unknown Protocol (0x${hex4(proto)})`;
    d.print(`${hwName} (len ${hlen}), ${protoName} (len ${plen})`);
    if (!decodable) {
      d.print(`, length ${length}`);
      return;
    }
    d.print(', ');
  }
  d.print(`${ARP_OPERATIONS.get(op) ?? `Unknown (${op})`} `);
  switch (op) {
    case 1: {
      d.print(`who-has ${d.ipv4At(tpa)}`);
      let targetSet = false;
      for (let i = 0; i < hlen; i++) if (d.u8(tha + i) !== 0) targetSet = true;
      if (targetSet) d.print(` (${d.linkAddr(tha, hlen)})`);
      d.print(` tell ${d.ipv4At(spa)}`);
      break;
    }
    case 2:
      d.print(`${d.ipv4At(spa)} is-at ${d.linkAddr(sha, hlen)}`);
      break;
    case 3:
    case 8:
      d.print(`who-is ${d.linkAddr(tha, hlen)} tell ${d.linkAddr(sha, hlen)}`);
      break;
    case 4:
      d.print(`${d.linkAddr(tha, hlen)} at ${d.ipv4At(tpa)}`);
      break;
    case 9:
      d.print(`${d.linkAddr(sha, hlen)} at ${d.ipv4At(spa)}`);
      break;
    default:
      defaultPrint(d, at, d.available(at));
      return;
  }
  d.print(`, length ${length}`);
}
