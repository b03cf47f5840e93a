// The packet scheduler's units (include/net/pkt_sched.h, net/sched/sch_api.c): psched ticks of 64 ns and a rate's
// bytes-to-nanoseconds conversion by multiply and shift; no ATM link layer, no overhead or mpu.

/** PSCHED_SHIFT: a psched tick is 2^6 = 64 ns. */
export const PSCHED_SHIFT = 6;
/** tc's tick_in_usec from /proc/net/psched (1000 ns per us over 64 ns per tick = 15.625 ticks per microsecond). */
export const TICKS_PER_US = 1000 / 2 ** PSCHED_SHIFT;

/** PSCHED_TICKS2NS. */
export function ticksToNs(ticks: number): number {
  return ticks * 2 ** PSCHED_SHIFT;
}

/** PSCHED_NS2TICKS (a right shift: truncates). */
export function nsToTicks(ns: number): number {
  return Math.floor(ns / 2 ** PSCHED_SHIFT);
}

/** struct psched_ratecfg: a rate in bytes per second and the mult/shift pair psched_l2t_ns uses. */
export class RateCfg {
  readonly bytesPerSec: number;
  readonly mult: number;
  readonly shift: number;

  /** psched_ratecfg_precompute__: the largest mult = 2^shift * 1e9 / rate below 2^32 (bit 31 set). */
  constructor(bytesPerSec: number) {
    this.bytesPerSec = bytesPerSec;
    let mult = 1n;
    let shift = 0;
    if (bytesPerSec > 0) {
      const rate = BigInt(bytesPerSec);
      let factor = 1_000_000_000n;
      for (;;) {
        mult = factor / rate;
        if ((mult & (1n << 31n)) !== 0n || (factor & (1n << 63n)) !== 0n) break;
        factor <<= 1n;
        shift++;
      }
    }
    this.mult = Number(mult & 0xffff_ffffn);
    this.shift = shift;
  }

  /** psched_l2t_ns: nanoseconds to send `len` bytes at this rate ((len * mult) >> shift). */
  lengthToNs(len: number): number {
    const product = len * this.mult;
    if (product <= Number.MAX_SAFE_INTEGER) return Math.floor(product / 2 ** this.shift);
    return Number((BigInt(len) * BigInt(this.mult)) >> BigInt(this.shift));
  }
}
