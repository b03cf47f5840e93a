// The Internet checksum: RFC 1071 sums, the IPv4 pseudo-header, and RFC 1624 incremental updates.

import type { Ipv4Addr } from './address.ts';

/**
 * Adds the bytes in [start, end) as big-endian 16-bit words to `initial` without folding
 * (an odd trailing byte is padded with zero). The result stays exact below 2^53.
 */
export function sumWords(bytes: Uint8Array, start: number, end: number, initial = 0): number {
  let sum = initial;
  let at = start;
  for (; at + 1 < end; at += 2) sum += (bytes[at]! << 8) | bytes[at + 1]!;
  if (at < end) sum += bytes[at]! << 8;
  return sum;
}

/** Folds a running sum to 16 bits with end-around carry. */
export function foldSum(sum: number): number {
  let folded = sum;
  while (folded > 0xffff) folded = (folded & 0xffff) + Math.floor(folded / 0x10000);
  return folded;
}

/** The checksum field value for bytes [start, end) plus an optional pseudo-header sum. */
export function internetChecksum(bytes: Uint8Array, start: number, end: number, initial = 0): number {
  return ~foldSum(sumWords(bytes, start, end, initial)) & 0xffff;
}

/** True when [start, end), checksum field included, sums to 0xffff (RFC 1071 verification). */
export function checksumIsValid(bytes: Uint8Array, start: number, end: number, initial = 0): boolean {
  return foldSum(sumWords(bytes, start, end, initial)) === 0xffff;
}

/** The unfolded sum of the IPv4 pseudo-header used by TCP and UDP (RFC 793, RFC 768). */
export function pseudoHeaderSum(
  srcAddr: Ipv4Addr,
  dstAddr: Ipv4Addr,
  protocol: number,
  length: number,
): number {
  return (srcAddr >>> 16) + (srcAddr & 0xffff) + (dstAddr >>> 16) + (dstAddr & 0xffff) + protocol + length;
}

/** RFC 1624 equation 3: HC' = ~(~HC + ~m + m') for one 16-bit word changing from m to m'. */
export function updateChecksum16(checksum: number, oldWord: number, newWord: number): number {
  const sum = (~checksum & 0xffff) + (~oldWord & 0xffff) + (newWord & 0xffff);
  return ~foldSum(sum) & 0xffff;
}

/** RFC 1624 update for a 32-bit field (an IPv4 address) changing from oldValue to newValue. */
export function updateChecksum32(checksum: number, oldValue: number, newValue: number): number {
  const sum =
    (~checksum & 0xffff) +
    (~(oldValue >>> 16) & 0xffff) +
    (~oldValue & 0xffff) +
    ((newValue >>> 16) & 0xffff) +
    (newValue & 0xffff);
  return ~foldSum(sum) & 0xffff;
}

/**
 * The UDP flavour of the 16-bit update: a zero checksum means "none" and stays zero
 * (RFC 768), and a computed zero is sent as 0xffff (the kernel's `CSUM_MANGLED_0`).
 */
export function updateUdpChecksum16(checksum: number, oldWord: number, newWord: number): number {
  if (checksum === 0) return 0;
  return updateChecksum16(checksum, oldWord, newWord) || 0xffff;
}

/** The UDP flavour of the 32-bit update (see updateUdpChecksum16). */
export function updateUdpChecksum32(checksum: number, oldValue: number, newValue: number): number {
  if (checksum === 0) return 0;
  return updateChecksum32(checksum, oldValue, newValue) || 0xffff;
}
