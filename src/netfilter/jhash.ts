// Bob Jenkins' lookup3 word hash as the kernel's jhash2 computes it, and reciprocal_scale; used only where the kernel's choice must be reproduced bit for bit (the NAT address pick, ipset's buckets), not as a general-purpose hash.
//
// Mirrors include/linux/jhash.h (jhash2, __jhash_mix, __jhash_final, JHASH_INITVAL) and
// include/linux/kernel.h (reciprocal_scale). Written from the published algorithm; all
// arithmetic is on unsigned 32-bit values as in C.

const JHASH_INITVAL = 0xdeadbeef;

function rol32(word: number, shift: number): number {
  return (word << shift) | (word >>> (32 - shift));
}

/** jhash2: hashes `length` 32-bit words of `key` (as the CPU reads them) with `initval`. */
export function jhash2(key: ArrayLike<number>, length: number, initval: number): number {
  let a = (JHASH_INITVAL + (length << 2) + initval) | 0;
  let b = a;
  let c = a;
  let k = 0;
  let left = length;
  while (left > 3) {
    a = (a + key[k]!) | 0;
    b = (b + key[k + 1]!) | 0;
    c = (c + key[k + 2]!) | 0;
    // __jhash_mix
    a = (a - c) | 0;
    a ^= rol32(c, 4);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rol32(a, 6);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rol32(b, 8);
    b = (b + a) | 0;
    a = (a - c) | 0;
    a ^= rol32(c, 16);
    c = (c + b) | 0;
    b = (b - a) | 0;
    b ^= rol32(a, 19);
    a = (a + c) | 0;
    c = (c - b) | 0;
    c ^= rol32(b, 4);
    b = (b + a) | 0;
    left -= 3;
    k += 3;
  }
  if (left === 0) return c >>> 0;
  if (left === 3) c = (c + key[k + 2]!) | 0;
  if (left >= 2) b = (b + key[k + 1]!) | 0;
  a = (a + key[k]!) | 0;
  // __jhash_final
  c ^= b;
  c = (c - rol32(b, 14)) | 0;
  a ^= c;
  a = (a - rol32(c, 11)) | 0;
  b ^= a;
  b = (b - rol32(a, 25)) | 0;
  c ^= b;
  c = (c - rol32(b, 16)) | 0;
  a ^= c;
  a = (a - rol32(c, 4)) | 0;
  b ^= a;
  b = (b - rol32(a, 14)) | 0;
  c ^= b;
  c = (c - rol32(b, 24)) | 0;
  return c >>> 0;
}

/** reciprocal_scale: maps a 32-bit `value` onto [0, range) as ((u64)value * range) >> 32, exactly. */
export function reciprocalScale(value: number, range: number): number {
  const v = value >>> 0;
  const r = range >>> 0;
  // Split the 64-bit product so every partial product stays below 2^53.
  const high = v * (r >>> 16);
  const low = v * (r & 0xffff);
  return Math.floor((high + Math.floor(low / 0x10000)) / 0x10000) >>> 0;
}

/** The 32-bit word a little-endian CPU reads from a network-order IPv4 address (`addr` in host order). */
export function rawAddressWord(addr: number): number {
  return (
    (((addr & 0xff) << 24) |
      (((addr >>> 8) & 0xff) << 16) |
      (((addr >>> 16) & 0xff) << 8) |
      (addr >>> 24)) >>>
    0
  );
}

/** The 32-bit word a little-endian CPU reads from four bytes in memory order (an element struct's fields). */
export function elementWord(byte0: number, byte1: number, byte2: number, byte3: number): number {
  return ((byte0 & 0xff) | ((byte1 & 0xff) << 8) | ((byte2 & 0xff) << 16) | ((byte3 & 0xff) << 24)) >>> 0;
}
