// Bob Jenkins' lookup3 hash over 32-bit words as the kernel's jhash2 computes it (include/linux/jhash.h): what
// ipset's hash types key their buckets with, so that a set lists its members in the kernel's order for one initval.

/** JHASH_INITVAL, an arbitrary value. */
const JHASH_INITVAL = 0xdeadbeef;

function rol32(word: number, shift: number): number {
  return ((word << shift) | (word >>> (32 - shift))) >>> 0;
}

/**
 * mirrors jhash.h:jhash2: `length` words of `key` from `offset`, with `initval`; the result as an unsigned
 * 32-bit number. The words are what the kernel reads from its element struct (on a little-endian machine a
 * __be32 address reads byte-swapped: elementWord() builds them).
 */
export function jhash2(key: ArrayLike<number>, offset: number, length: number, initval: number): number {
  let a = (JHASH_INITVAL + (length << 2) + initval) | 0;
  let b = a;
  let c = a;
  let k = offset;
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
  // The last one to three words (the kernel's switch with fall-through), then __jhash_final.
  if (left === 0) return c >>> 0;
  if (left === 3) c = (c + key[k + 2]!) | 0;
  if (left >= 2) b = (b + key[k + 1]!) | 0;
  a = (a + key[k]!) | 0;
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

/** The 32-bit word a little-endian CPU reads from four bytes in memory order. */
export function elementWord(byte0: number, byte1: number, byte2: number, byte3: number): number {
  return ((byte0 & 0xff) | ((byte1 & 0xff) << 8) | ((byte2 & 0xff) << 16) | ((byte3 & 0xff) << 24)) >>> 0;
}

/** A host-order IPv4 address as the word the kernel hashes (its __be32 read little-endian). */
export function addressWord(addr: number): number {
  return elementWord(addr >>> 24, addr >>> 16, addr >>> 8, addr);
}
