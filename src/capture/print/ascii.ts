// Raw bytes as tcpdump prints them (print-ascii.c): hex and ASCII (hex_and_ascii_print, -X and the default print of undecoded bytes), hex only (hex_print, -x) and ASCII only (ascii_print, -A); 16 bytes a line with their offset.

import { type Dissector, hex2, hex4, TRUNCATED } from './netdissect.ts';

/** ND_ASCII_ISGRAPH: a printable character other than space. */
function graphic(c: number): string {
  return c > 0x20 && c <= 0x7e ? String.fromCharCode(c) : '.';
}

/**
 * hex_and_ascii_print: `prefix0x0000:  4745 5420 ...  GET.`, 16 bytes a line, the hex padded
 * to 40 columns. Bytes past the capture end the walk after what was captured is printed.
 */
export function hexAndAsciiPrint(d: Dissector, prefix: string, at: number, length: number): void {
  const available = d.available(at);
  const end = at + Math.min(length, available);
  for (let line = at; line < end; line += 16) {
    let hexPart = '';
    let ascii = '';
    const lineEnd = Math.min(line + 16, end);
    for (let i = line; i < lineEnd; i += 2) {
      hexPart += i + 1 < lineEnd ? ` ${hex2(d.bytes[i]!)}${hex2(d.bytes[i + 1]!)}` : ` ${hex2(d.bytes[i]!)}`;
    }
    for (let i = line; i < lineEnd; i++) ascii += graphic(d.bytes[i]!);
    d.print(`${prefix}0x${hex4(line - at)}: ${hexPart.padEnd(40, ' ')}  ${ascii}`);
  }
  if (length > available) throw TRUNCATED;
}

/** hex_print: `prefix0x0000:  4745 5420 ...`, 16 bytes a line, no padding, no ASCII. */
export function hexPrint(d: Dissector, prefix: string, at: number, length: number): void {
  const available = d.available(at);
  const end = at + Math.min(length, available);
  for (let line = at; line < end; line += 16) {
    let hexPart = '';
    const lineEnd = Math.min(line + 16, end);
    for (let i = line; i < lineEnd; i += 2) {
      hexPart += i + 1 < lineEnd ? ` ${hex2(d.bytes[i]!)}${hex2(d.bytes[i + 1]!)}` : ` ${hex2(d.bytes[i]!)}`;
    }
    d.print(`${prefix}0x${hex4(line - at)}: ${hexPart}`);
  }
  if (length > available) throw TRUNCATED;
}

/**
 * ascii_print: a line break, then the bytes as text: non-printing characters as `.`, a CR
 * dropped before LF and at the end, tabs, spaces and line feeds kept.
 */
export function asciiPrint(d: Dissector, at: number, length: number): void {
  const available = d.available(at);
  const n = Math.min(length, available);
  let text = '\n';
  for (let i = 0; i < n; i++) {
    const c = d.bytes[at + i]!;
    const left = n - i - 1;
    if (c === 0x0d) {
      if (left > 1 && d.bytes[at + i + 1] !== 0x0a) text += '.';
    } else if ((c > 0x20 && c <= 0x7e) || c === 0x09 || c === 0x20 || c === 0x0a) {
      text += String.fromCharCode(c);
    } else {
      text += '.';
    }
  }
  d.print(text);
  if (length > available) throw TRUNCATED;
}

/** ND_DEFAULTPRINT: undecoded bytes as hex and ASCII after a tab, unless -x or -X dumps the packet anyway. */
export function defaultPrint(d: Dissector, at: number, length: number): void {
  if (d.suppressDefaultPrint) return;
  hexAndAsciiPrint(d, '\n\t', at, length);
}
