// CUBIC with HyStart, Linux's default congestion control (net/ipv4/tcp_cubic.c), in the kernel's own
// integer arithmetic: u32 wrap-around, the table-and-Newton cube root, time in 1/1024 s (BICTCP_HZ),
// jiffies at HZ=1000 and HyStart's microsecond clock. Module parameters are the defaults
// (/sys/module/tcp_cubic/parameters on 6.18: beta 717, bic_scale 41, fast_convergence 1,
// tcp_friendliness 1, hystart 1, hystart_detect 3, hystart_low_window 16, hystart_ack_delta_us 2000,
// initial_ssthresh 0); changing them is not supported.

import { congAvoidAi, slowStart } from './reno.ts';
import type { AckSample, CaEvent, CaState, CongestionOps, CwndState } from './types.ts';
import { inSlowStart } from './types.ts';

const HZ = 1000;
/** BICTCP_BETA_SCALE and beta (717/1024, about 0.7). */
const BETA_SCALE = 1024;
const BETA = 717;
/** BICTCP_HZ: time in the cubic function counts 2^10 units a second. */
const BICTCP_HZ = 10;
const BIC_SCALE = 41;
/** cubictcp_register: beta_scale = 8*(1024+beta)/3/(1024-beta) = 15 (tcp_friendliness' Reno estimate). */
const BETA_SCALE_FRIENDLY = Math.floor(Math.floor((8 * (BETA_SCALE + BETA)) / 3) / (BETA_SCALE - BETA));
/** cube_rtt_scale = bic_scale * 10 = 410 (1024*c/rtt, rtt 100 ms). */
const CUBE_RTT_SCALE = BIC_SCALE * 10;
/** cube_factor = 2^(10+3*BICTCP_HZ) / (bic_scale * 10) = 2^40 / 410. */
const CUBE_FACTOR = Math.floor(2 ** (10 + 3 * BICTCP_HZ) / (BIC_SCALE * 10));

const HYSTART_ACK_TRAIN = 1;
const HYSTART_DELAY = 2;
const HYSTART_DETECT = HYSTART_ACK_TRAIN | HYSTART_DELAY;
/** HYSTART_MIN_SAMPLES, HYSTART_DELAY_MIN, HYSTART_DELAY_MAX (µs). */
const HYSTART_MIN_SAMPLES = 8;
const HYSTART_DELAY_MIN = 4000;
const HYSTART_DELAY_MAX = 16000;
const HYSTART_LOW_WINDOW = 16;
const HYSTART_ACK_DELTA_US = 2000;

/** cbrt(x) MSB values for x in [0..63] (cubic_root's table: v = cbrt(x << 18) - 1). */
const CBRT_TABLE = [
  0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164, 168, 170, 173,
  176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221,
  222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
];

/** fls64: the 1-based position of the highest set bit, 0 for 0 (a < 2^53). */
function fls64(a: number): number {
  let bits = 0;
  while (a >= 1) {
    a = Math.floor(a / 2);
    bits++;
  }
  return bits;
}

/** cubic_root: a table lookup then one Newton-Raphson step (average error about 0.2%). */
export function cubicRoot(a: number): number {
  let b = fls64(a);
  if (b < 7) return (CBRT_TABLE[a]! + 35) >>> 6;
  b = ((b * 84) >>> 8) - 1;
  const shift = Math.floor(a / 2 ** (b * 3));
  let x = (((CBRT_TABLE[shift]! + 10) << b) >>> 0) >>> 6;
  x = (2 * x + Math.floor(a / (x * (x - 1)))) >>> 0;
  return Math.floor((x * 341) / 1024) >>> 0;
}

/** (cube_rtt_scale * offs^3) >> 40 as a u32, exact in 64 bits (BigInt once a double would round). */
function cubeDelta(offs: number): number {
  if (offs < 20_000) return Math.floor((CUBE_RTT_SCALE * offs * offs * offs) / 2 ** 40) >>> 0;
  const big = BigInt(offs);
  return Number(((BigInt(CUBE_RTT_SCALE) * big * big * big) >> 40n) & 0xffffffffn);
}

/** usecs_to_jiffies at HZ=1000: rounds up. */
function usecsToJiffies(us: number): number {
  return Math.ceil(us / 1000);
}

export class Cubic implements CongestionOps {
  readonly name = 'cubic';

  // struct bictcp.
  /** Increase cwnd by one after cnt ACKed segments. */
  cnt = 0;
  lastMaxCwnd = 0;
  lastCwnd = 0;
  lastTime = 0;
  bicOriginPoint = 0;
  /** Time to the origin point from the epoch's start, in 1/1024 s. */
  bicK = 0;
  /** Minimum delay (µs). */
  delayMin = 0;
  /** Beginning of an epoch (jiffies); 0 for none. */
  epochStart = 0;
  ackCnt = 0;
  /** Estimated Reno cwnd (tcp_friendliness). */
  tcpCwnd = 0;
  sampleCnt = 0;
  /** HyStart found the exit point. */
  found = false;
  roundStart = 0;
  endSeq = 0;
  lastAck = 0;
  /** Minimum RTT of the current round (µs). */
  currRtt = 0;

  /** bictcp_reset: the fields before `unused`, and found. */
  private reset(): void {
    this.cnt = 0;
    this.lastMaxCwnd = 0;
    this.lastCwnd = 0;
    this.lastTime = 0;
    this.bicOriginPoint = 0;
    this.bicK = 0;
    this.delayMin = 0;
    this.epochStart = 0;
    this.ackCnt = 0;
    this.tcpCwnd = 0;
    this.found = false;
  }

  /** bictcp_hystart_reset: a new round starts at snd_nxt. */
  private hystartReset(tp: CwndState): void {
    this.roundStart = tp.nowUs >>> 0;
    this.lastAck = this.roundStart;
    this.endSeq = tp.sndNxt;
    this.currRtt = 0xffffffff;
    this.sampleCnt = 0;
  }

  /** cubictcp_init (initial_ssthresh 0 leaves snd_ssthresh infinite). */
  init(tp: CwndState): void {
    this.reset();
    this.hystartReset(tp);
  }

  /** cubictcp_cwnd_event: after an idle period the epoch shifts, so growth stays on the curve. */
  cwndEvent(tp: CwndState, event: CaEvent): void {
    if (event !== 'TX_START') return;
    const now = tp.jiffies >>> 0;
    const delta = (now - tp.lsndtime) | 0;
    if (this.epochStart !== 0 && delta > 0) {
      this.epochStart = (this.epochStart + delta) >>> 0;
      if (((now - this.epochStart) | 0) < 0) this.epochStart = now;
    }
  }

  /** bictcp_update: the cubic target for now and the ACKs per increment (ca->cnt). */
  private update(tp: CwndState, cwnd: number, acked: number): void {
    const now = tp.jiffies >>> 0;
    this.ackCnt = (this.ackCnt + acked) >>> 0;
    if (this.lastCwnd === cwnd && ((now - this.lastTime) | 0) <= Math.floor(HZ / 32)) return;
    // At most once per jiffy; a reduction zeroes epoch_start and forces a recalculation.
    if (!(this.epochStart !== 0 && now === this.lastTime)) {
      this.lastCwnd = cwnd;
      this.lastTime = now;
      if (this.epochStart === 0) {
        this.epochStart = now;
        this.ackCnt = acked;
        this.tcpCwnd = cwnd;
        if (this.lastMaxCwnd <= cwnd) {
          this.bicK = 0;
          this.bicOriginPoint = cwnd;
        } else {
          this.bicK = cubicRoot(CUBE_FACTOR * (this.lastMaxCwnd - cwnd));
          this.bicOriginPoint = this.lastMaxCwnd;
        }
      }
      let t = (now - this.epochStart) | 0;
      t += usecsToJiffies(this.delayMin);
      t = Math.floor((t * 2 ** BICTCP_HZ) / HZ);
      const offs = t < this.bicK ? this.bicK - t : t - this.bicK;
      const delta = cubeDelta(offs);
      const bicTarget = (t < this.bicK ? this.bicOriginPoint - delta : this.bicOriginPoint + delta) >>> 0;
      if (bicTarget > cwnd) this.cnt = Math.floor(cwnd / ((bicTarget - cwnd) >>> 0));
      else this.cnt = (100 * cwnd) >>> 0;
      // The initial growth may be too conservative while the bandwidth is unknown: 5% per RTT at least.
      if (this.lastMaxCwnd === 0 && this.cnt > 20) this.cnt = 20;
    }
    // tcp_friendliness: never slower than the Reno estimate.
    const step = (cwnd * BETA_SCALE_FRIENDLY) >>> 3;
    while (this.ackCnt > step) {
      this.ackCnt -= step;
      this.tcpCwnd++;
    }
    if (this.tcpCwnd > cwnd) {
      const maxCnt = Math.floor(cwnd / (this.tcpCwnd - cwnd));
      if (this.cnt > maxCnt) this.cnt = maxCnt;
    }
    // At most one segment per two ACKed: 1.5x per RTT.
    this.cnt = Math.max(this.cnt, 2);
  }

  /** cubictcp_cong_avoid. */
  congAvoid(tp: CwndState, _ack: number, acked: number, cwndLimited: boolean): void {
    if (!cwndLimited) return;
    if (inSlowStart(tp)) {
      acked = slowStart(tp, acked);
      if (acked === 0) return;
    }
    this.update(tp, tp.cwnd, acked);
    congAvoidAi(tp, this.cnt, acked);
  }

  /** cubictcp_recalc_ssthresh: the epoch ends; W_max with fast convergence; beta * cwnd. */
  ssthresh(tp: CwndState): number {
    this.epochStart = 0;
    if (tp.cwnd < this.lastMaxCwnd)
      this.lastMaxCwnd = Math.floor((tp.cwnd * (BETA_SCALE + BETA)) / (2 * BETA_SCALE));
    else this.lastMaxCwnd = tp.cwnd;
    return Math.max(Math.floor((tp.cwnd * BETA) / BETA_SCALE), 2);
  }

  /** cubictcp_state: an RTO (Loss) forgets everything. */
  setState(tp: CwndState, state: CaState): void {
    if (state === 'Loss') {
      this.reset();
      this.hystartReset(tp);
    }
  }

  /** tcp_reno_undo_cwnd. */
  undoCwnd(tp: CwndState): number {
    return Math.max(tp.cwnd, tp.priorCwnd);
  }

  /** hystart_ack_delay: a TSO/GRO cushion, 4 GSO packets at the pacing rate, at most 1 ms. */
  private ackDelay(tp: CwndState): number {
    if (tp.pacingRate === 0) return 0;
    return Math.min(1000, Math.floor((tp.gsoMaxSize * 4 * 1_000_000) / tp.pacingRate));
  }

  /** hystart_update: leave slow start on an ACK train longer than delay_min/2 or on RTT growth. */
  private hystartUpdate(tp: CwndState, delay: number): void {
    if (((tp.sndUna - this.endSeq) | 0) > 0) this.hystartReset(tp);
    if (HYSTART_DETECT & HYSTART_ACK_TRAIN) {
      const now = tp.nowUs >>> 0;
      if (((now - this.lastAck) | 0) <= HYSTART_ACK_DELTA_US) {
        this.lastAck = now;
        // Without pacing (no fq qdisc: SK_PACING_NONE) the train must last past delay_min / 2.
        const threshold = (this.delayMin + this.ackDelay(tp)) >>> 1;
        if (((now - this.roundStart) | 0) > threshold) {
          this.found = true;
          tp.ssthresh = tp.cwnd;
        }
      }
    }
    if (HYSTART_DETECT & HYSTART_DELAY) {
      if (this.currRtt > delay) this.currRtt = delay;
      if (this.sampleCnt < HYSTART_MIN_SAMPLES) this.sampleCnt++;
      else {
        const thresh = Math.min(Math.max(this.delayMin >>> 3, HYSTART_DELAY_MIN), HYSTART_DELAY_MAX);
        if (this.currRtt > this.delayMin + thresh) {
          this.found = true;
          tp.ssthresh = tp.cwnd;
        }
      }
    }
  }

  /** cubictcp_acked: tracks delay_min and runs HyStart in slow start from hystart_low_window on. */
  pktsAcked(tp: CwndState, sample: AckSample): void {
    if (sample.rttUs < 0) return;
    // Discard delay samples right after fast recovery.
    if (this.epochStart !== 0 && (((tp.jiffies >>> 0) - this.epochStart) | 0) < HZ) return;
    const delay = sample.rttUs === 0 ? 1 : sample.rttUs;
    if (this.delayMin === 0 || this.delayMin > delay) this.delayMin = delay;
    if (!this.found && inSlowStart(tp) && tp.cwnd >= HYSTART_LOW_WINDOW) this.hystartUpdate(tp, delay);
  }
}
