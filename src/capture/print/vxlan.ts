// VXLAN (print-vxlan.c): flags and VNI, a line break, then the inner Ethernet frame; no VXLAN-GPE.

import { etherInnerPrint } from './ether.ts';
import { type Dissector, hex2 } from './netdissect.ts';

/** VXLAN (print-vxlan.c): flags and VNI, a line break, then the inner Ethernet frame. */
export function vxlanPrint(d: Dissector, at: number, length: number): void {
  d.protocol = 'vxlan';
  d.print('VXLAN');
  if (length < 8) {
    d.print(' (invalid)');
    return;
  }
  const flags = d.u8(at);
  d.print(`, flags [${(flags & 0x08) !== 0 ? 'I' : 'invalid'}] (0x${hex2(flags)}), `);
  d.print(`vni ${d.u24(at + 4)}\n`);
  d.need(at + 7, 1);
  etherInnerPrint(d, at + 8, length - 8);
}
