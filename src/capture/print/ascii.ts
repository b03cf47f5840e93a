// tcpdump's default print of bytes it does not decode (print-ascii.c's hex_and_ascii_print after "\n\t"): hex and ASCII, 16 bytes a line.

import { type Dissector, hex2, hex4 } from './netdissect.ts';

/** tcpdump's default print of undecoded bytes: a hex and ASCII dump, 16 bytes a line. */
export function defaultPrint(d: Dissector, at: number, length: number): void {
  const end = at + Math.min(length, d.available(at));
  for (let line = at; line < end; line += 16) {
    let hexPart = '';
    let ascii = '';
    const lineEnd = Math.min(line + 16, end);
    for (let i = line; i < lineEnd; i += 2) {
      hexPart += i + 1 < lineEnd ? ` ${hex2(d.bytes[i]!)}${hex2(d.bytes[i + 1]!)}` : ` ${hex2(d.bytes[i]!)}`;
    }
    for (let i = line; i < lineEnd; i++) {
      const c = d.bytes[i]!;
      ascii += c > 0x20 && c <= 0x7e ? String.fromCharCode(c) : '.';
    }
    d.print(`\n\t0x${hex4(line - at)}: ${hexPart.padEnd(40, ' ')}  ${ascii}`);
  }
}
