// OTV (print-otv.c), which is what tcpdump calls UDP port 8472 (Linux's VXLAN default): flags, overlay, instance, then the inner frame.

import { etherInnerPrint } from './ether.ts';
import { type Dissector, hex2 } from './netdissect.ts';

/** OTV (print-otv.c), which is what tcpdump calls UDP port 8472 (Linux's VXLAN default). */
export function otvPrint(d: Dissector, at: number, length: number): void {
  d.protocol = 'otv';
  d.print('OTV, ');
  if (length < 8) {
    d.print(`[length ${length} < 8] (invalid)`);
    return;
  }
  const flags = d.u8(at);
  d.print(`flags [${(flags & 0x08) !== 0 ? 'I' : '.'}] (0x${hex2(flags)}), `);
  d.print(`overlay ${d.u24(at + 1)}, `);
  d.print(`instance ${d.u24(at + 4)}\n`);
  d.u8(at + 7);
  etherInnerPrint(d, at + 8, length - 8);
}
