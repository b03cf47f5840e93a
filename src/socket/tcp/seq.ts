// 32-bit sequence-space arithmetic (before(), after(), between() in include/net/tcp.h); no 64-bit sequence spaces.

/** a precedes b modulo 2^32: (s32)(a - b) < 0. */
export function seqBefore(a: number, b: number): boolean {
  return ((a - b) | 0) < 0;
}

/** a follows b modulo 2^32. */
export function seqAfter(a: number, b: number): boolean {
  return ((b - a) | 0) < 0;
}

/** low <= seq <= high in sequence space (between()). */
export function seqBetween(seq: number, low: number, high: number): boolean {
  return (high - low) >>> 0 >= (seq - low) >>> 0;
}

/** a + n, wrapped to an unsigned 32-bit sequence number. */
export function seqAdd(a: number, n: number): number {
  return (a + n) >>> 0;
}

/** b - a as an unsigned distance (b at or after a). */
export function seqDistance(a: number, b: number): number {
  return (b - a) >>> 0;
}
