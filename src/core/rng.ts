// The one seeded random source: deterministic 32-bit integers, bounded integers, floats and bytes, with labelled child streams; not for cryptography.
//
// The generator is seedrandom's Alea (Baagøe's multiply-with-carry, period ~2^116, reported to
// pass BigCrush) rather than its default ARC4: Alea is several times faster per draw, which
// matters on the NAT port and ephemeral port paths, its whole state is four numbers, and
// nothing here needs a cryptographic stream. Every value is a pure function of the seed and
// the number of draws, so the same seed gives the same bytes on any JS engine.

import seedrandom from 'seedrandom';

const TWO_POW_32 = 0x1_0000_0000;
const TWO_POW_53 = 2 ** 53;

/** A deterministic random stream; fork one per consumer so consumers do not shift each other. */
export class Rng {
  /** The text the stream was seeded from (a fork's path is `parent/label`). */
  readonly seed: string;
  /** Alea seeded at the first draw: most streams (one per namespace, socket table...) never draw. */
  private next: (() => number) | undefined = undefined;
  private forkedLabels: Set<string> | undefined = undefined;

  constructor(seed: string | number) {
    if (typeof seed === 'number' && !Number.isFinite(seed)) throw new RangeError(`Rng: bad seed ${seed}`);
    this.seed = String(seed);
  }

  /** A uniform unsigned 32-bit integer. */
  u32(): number {
    // Alea's raw output is k / 2^32 for an integer k, so scaling back up gives exact 32-bit draws.
    this.next ??= seedrandom.alea(this.seed);
    return (this.next() * TWO_POW_32) >>> 0;
  }

  /** A uniform integer in [0, maxExclusive), without modulo bias; maxExclusive in [1, 2^32]. */
  int(maxExclusive: number): number {
    if (!Number.isInteger(maxExclusive) || maxExclusive < 1 || maxExclusive > TWO_POW_32) {
      throw new RangeError(`Rng.int: bound must be an integer in [1, 2^32], got ${maxExclusive}`);
    }
    // Reject draws from the incomplete last block of size maxExclusive, so what remains
    // divides evenly and every result is equally likely.
    const limit = TWO_POW_32 - (TWO_POW_32 % maxExclusive);
    let draw = this.u32();
    while (draw >= limit) draw = this.u32();
    return draw % maxExclusive;
  }

  /** A uniform integer in [min, max], both inclusive (as the kernel picks a port in a range). */
  intBetween(min: number, max: number): number {
    if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) {
      throw new RangeError(`Rng.intBetween: need integers min <= max, got ${min}, ${max}`);
    }
    return min + this.int(max - min + 1);
  }

  /** A uniform float in [0, 1) with 53 random bits (two draws). */
  float(): number {
    const high = this.u32() >>> 5; // 27 bits
    const low = this.u32() >>> 6; // 26 bits
    return (high * 0x400_0000 + low) / TWO_POW_53;
  }

  /** True with probability `p` (0 never, 1 always). */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** `n` random bytes, four per 32-bit draw. */
  bytes(n: number): Uint8Array {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Rng.bytes: bad length ${n}`);
    const out = new Uint8Array(n);
    for (let at = 0; at < n; at += 4) {
      const draw = this.u32();
      out[at] = draw >>> 24;
      if (at + 1 < n) out[at + 1] = (draw >>> 16) & 0xff;
      if (at + 2 < n) out[at + 2] = (draw >>> 8) & 0xff;
      if (at + 3 < n) out[at + 3] = draw & 0xff;
    }
    return out;
  }

  /**
   * An independent child stream named `label`. It is derived from this stream's seed and the
   * label only, not from how many values were drawn, so adding draws or forks elsewhere never
   * shifts it. Forking the same label twice from one parent would give two identical streams,
   * which is a programmer error, and so is a label containing '/' (the path separator).
   */
  fork(label: string): Rng {
    if (label.includes('/')) throw new Error(`Rng.fork: label '${label}' must not contain '/'`);
    this.forkedLabels ??= new Set();
    if (this.forkedLabels.has(label))
      throw new Error(`Rng.fork: label '${label}' already forked from '${this.seed}'`);
    this.forkedLabels.add(label);
    return new Rng(`${this.seed}/${label}`);
  }
}
