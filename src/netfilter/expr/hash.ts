// The hash expressions on packets (nft_hash.c): `jhash EXPR mod N [seed S] [offset O]` hashes the loaded values with
// Bob Jenkins' lookup3 hash as the kernel's jhash() does, and `symhash mod N` hashes the flow's addresses and ports
// the same in both directions. Where the kernel draws a random seed (jhash without `seed`, symhash's hashrnd) the
// seed comes from the simulation's rng, so it is deterministic per seed but not the kernel's value.

import type { Rng } from '../../core/rng.ts';
import type { HashSelector, Value } from '../ir.ts';

const JHASH_INITVAL = 0xdeadbeef;

function rol32(word: number, shift: number): number {
  return ((word << shift) | (word >>> (32 - shift))) >>> 0;
}

/** The 32-bit little-endian word at `at` (the kernel's __get_unaligned_cpu32 on x86). */
function le32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** include/linux/jhash.h: jhash — lookup3's hashlittle over `length` bytes. */
export function jhash(bytes: Uint8Array, length: number, initval: number): number {
  let a = (JHASH_INITVAL + length + initval) >>> 0;
  let b = a;
  let c = a;
  let k = 0;
  let left = length;
  while (left > 12) {
    a = (a + le32(bytes, k)) >>> 0;
    b = (b + le32(bytes, k + 4)) >>> 0;
    c = (c + le32(bytes, k + 8)) >>> 0;
    // __jhash_mix
    a = (a - c) >>> 0;
    a = (a ^ rol32(c, 4)) >>> 0;
    c = (c + b) >>> 0;
    b = (b - a) >>> 0;
    b = (b ^ rol32(a, 6)) >>> 0;
    a = (a + c) >>> 0;
    c = (c - b) >>> 0;
    c = (c ^ rol32(b, 8)) >>> 0;
    b = (b + a) >>> 0;
    a = (a - c) >>> 0;
    a = (a ^ rol32(c, 16)) >>> 0;
    c = (c + b) >>> 0;
    b = (b - a) >>> 0;
    b = (b ^ rol32(a, 19)) >>> 0;
    a = (a + c) >>> 0;
    c = (c - b) >>> 0;
    c = (c ^ rol32(b, 4)) >>> 0;
    b = (b + a) >>> 0;
    left -= 12;
    k += 12;
  }
  if (left === 0) return c;
  // The tail, byte by byte into c, b, a as the switch's fall-through adds them.
  for (let i = left - 1; i >= 0; i--) {
    const byte = bytes[k + i]!;
    const shift = (i % 4) * 8;
    if (i >= 8) c = (c + byte * 2 ** shift) >>> 0;
    else if (i >= 4) b = (b + byte * 2 ** shift) >>> 0;
    else a = (a + byte * 2 ** shift) >>> 0;
  }
  // __jhash_final
  c = (c ^ b) >>> 0;
  c = (c - rol32(b, 14)) >>> 0;
  a = (a ^ c) >>> 0;
  a = (a - rol32(c, 11)) >>> 0;
  b = (b ^ a) >>> 0;
  b = (b - rol32(a, 25)) >>> 0;
  c = (c ^ b) >>> 0;
  c = (c - rol32(b, 16)) >>> 0;
  a = (a ^ c) >>> 0;
  a = (a - rol32(c, 4)) >>> 0;
  b = (b ^ a) >>> 0;
  b = (b - rol32(a, 14)) >>> 0;
  c = (c ^ b) >>> 0;
  c = (c - rol32(b, 24)) >>> 0;
  return c;
}

/** include/linux/kernel.h: reciprocal_scale — maps a 32-bit hash onto [0, modulus). */
export function reciprocalScale(hash: number, modulus: number): number {
  return Math.floor((hash * modulus) / 0x1_0000_0000);
}

/** The per-expression seeds the kernel draws at init (get_random_bytes), drawn here on first use. */
const seeds = new WeakMap<HashSelector, number>();

export function hashSeed(selector: HashSelector, rng: Rng): number {
  if (selector.seed !== undefined) return selector.seed;
  let seed = seeds.get(selector);
  if (seed === undefined) {
    seed = rng.u32();
    seeds.set(selector, seed);
  }
  return seed;
}

/** The registers a jhash reads, reused for every packet: its inputs' bytes, each padded to 4 (NFT_REG32_SIZE). */
const scratch = new Uint8Array(64);

/** How a loaded value sits in its register: payload and conntrack tuple fields in network order, others host order. */
function networkOrder(value: Value): boolean {
  const selector = value.selector;
  if (selector.kind === 'payload') return true;
  return selector.kind === 'ct' && selector.dir !== undefined;
}

/**
 * nft_jhash_eval: jhash over the inputs as the kernel's registers hold them, scaled to the modulus, plus the offset;
 * `read` loads one input for `state` (undefined ends the rule).
 */
export function jhashValue<S>(
  selector: HashSelector,
  rng: Rng,
  state: S,
  read: (state: S, value: Value) => number | string | undefined,
): number | undefined {
  let length = 0;
  for (let n = 0; n < selector.inputs.length; n++) {
    const input = selector.inputs[n]!;
    const raw = read(state, input);
    if (raw === undefined) return undefined;
    const size = selector.sizes[n]!;
    const padded = (size + 3) & ~3;
    if (length + padded > scratch.length) return undefined;
    scratch.fill(0, length, length + padded);
    if (typeof raw === 'string') {
      for (let i = 0; i < Math.min(raw.length, size); i++) scratch[length + i] = raw.charCodeAt(i) & 0xff;
    } else if (networkOrder(input)) {
      for (let i = 0; i < size; i++) scratch[length + i] = Math.floor(raw / 2 ** (8 * (size - 1 - i))) & 0xff;
    } else for (let i = 0; i < size; i++) scratch[length + i] = Math.floor(raw / 2 ** (8 * i)) & 0xff;
    length += padded;
  }
  return reciprocalScale(jhash(scratch, length, hashSeed(selector, rng)), selector.mod) + selector.offset;
}

/**
 * nft_symhash_eval with __skb_get_hash_symmetric's idea: the flow's addresses and ports, the lower of each pair first,
 * hashed so both directions agree.
 */
export function symhashValue(
  selector: HashSelector,
  rng: Rng,
  saddr: number,
  daddr: number,
  sport: number,
  dport: number,
): number {
  const low = Math.min(saddr, daddr);
  const high = Math.max(saddr, daddr);
  const swap = saddr > daddr || (saddr === daddr && sport > dport);
  const first = swap ? dport : sport;
  const second = swap ? sport : dport;
  for (let i = 0; i < 4; i++) {
    scratch[i] = (low >>> (24 - 8 * i)) & 0xff;
    scratch[4 + i] = (high >>> (24 - 8 * i)) & 0xff;
  }
  scratch[8] = first >>> 8;
  scratch[9] = first & 0xff;
  scratch[10] = second >>> 8;
  scratch[11] = second & 0xff;
  return reciprocalScale(jhash(scratch, 12, hashSeed(selector, rng)), selector.mod) + selector.offset;
}
