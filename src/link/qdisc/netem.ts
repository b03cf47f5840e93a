// The network emulator qdisc (net/sched/sch_netem.c): delay with jitter and correlation from a distribution table,
// random loss, duplication, corruption, reordering with a gap, a rate limit and a packet limit; no Gilbert-Elliott or
// 4-state loss models, no ECN marking, no slots, no child qdisc.
//
// netem_enqueue decides, in the kernel's order, with one correlated random stream per
// decision (get_crandom): duplicate, then loss, then corrupt (one bit flipped at a random byte
// of the frame, after the checksums are complete), then the limit, then either reorder (the
// frame jumps to the head of the queue, sent at once) or delay (time_to_send = now + tabledist,
// plus the serialisation time at `rate` after the last queued frame) into the time-ordered
// tfifo. Every draw comes from the seeded rng the qdisc is given.

import type { Packet } from '../../core/packet.ts';
import type { Rng } from '../../core/rng.ts';
import { distributionTable, NETEM_DIST_SCALE, type NetemDistribution, rint } from './netem-tables.ts';
import { Qdisc } from './qdisc.ts';

const UINT32_MAX = 0xffff_ffff;
const INT32_MAX = 0x7fff_ffff;

/** What `tc qdisc add ... netem` gives the kernel, in the kernel's units (probabilities scaled to 2^32 - 1). */
export interface NetemConfig {
  /** Packets the qdisc holds (default 1000). */
  readonly limit: number;
  readonly latencyNs: number;
  readonly jitterNs: number;
  readonly delayCorrelation: number;
  readonly distribution: NetemDistribution | null;
  readonly loss: number;
  readonly lossCorrelation: number;
  readonly duplicate: number;
  readonly duplicateCorrelation: number;
  readonly reorder: number;
  readonly reorderCorrelation: number;
  /** Reorder one frame in `gap` (tc sets 1 when reorder is given without a gap). */
  readonly gap: number;
  readonly corrupt: number;
  readonly corruptCorrelation: number;
  /** Bytes per second, 0 for no rate. */
  readonly rate: number;
  readonly packetOverhead: number;
  readonly cellSize: number;
  readonly cellOverhead: number;
}

/** A percentage as netem's u32 probability (iproute2's set_percent: rint(p * UINT32_MAX)). */
export function percentToProbability(percent: number): number {
  return rint((percent / 100) * UINT32_MAX);
}

/** The configuration `tc qdisc add dev X root netem` alone gives: limit 1000 and nothing else. */
export const NETEM_DEFAULTS: NetemConfig = {
  limit: 1000,
  latencyNs: 0,
  jitterNs: 0,
  delayCorrelation: 0,
  distribution: null,
  loss: 0,
  lossCorrelation: 0,
  duplicate: 0,
  duplicateCorrelation: 0,
  reorder: 0,
  reorderCorrelation: 0,
  gap: 0,
  corrupt: 0,
  corruptCorrelation: 0,
  rate: 0,
  packetOverhead: 0,
  cellSize: 0,
  cellOverhead: 0,
};

/** struct crndstate: a correlated uniform 32-bit stream (get_crandom). */
class CorrelatedRandom {
  private last: number;
  private readonly rho: number;

  constructor(
    private readonly rng: Rng,
    rho: number,
  ) {
    this.rho = rho;
    // init_crandom: last = get_random_u32().
    this.last = rng.u32();
  }

  /** get_crandom: with rho = 0 a fresh draw; else (value * (2^32 - (rho+1)) + last * (rho+1)) >> 32. */
  next(): number {
    const value = this.rng.u32();
    if (this.rho === 0) return value;
    const rho = BigInt(this.rho) + 1n;
    const answer = Number(
      ((BigInt(value) * ((1n << 32n) - rho) + BigInt(this.last) * rho) >> 32n) & 0xffff_ffffn,
    );
    this.last = answer;
    return answer;
  }
}

export class Netem extends Qdisc {
  readonly kind = 'netem' as const;
  private config: NetemConfig = NETEM_DEFAULTS;
  private readonly rng: Rng;
  /** The kernel's get_random_u32_below for the corrupted byte and bit (not the netem prng). */
  private readonly corruptRng: Rng;
  private delayCor!: CorrelatedRandom;
  private lossCor!: CorrelatedRandom;
  private dupCor!: CorrelatedRandom;
  private reorderCor!: CorrelatedRandom;
  private corruptCor!: CorrelatedRandom;
  private table: Int16Array | null = null;
  private jitter = 0;
  /** q->counter: frames delayed since the last reordered one. */
  private counter = 0;
  /** While a duplicate is enqueued, duplication is off (the kernel's dupsave). */
  private duplicating = true;
  /** sch->q: frames to send at once (reordered), in order. */
  private readonly head: Packet[] = [];
  private readonly headTimes: number[] = [];
  /** The tfifo: the in-order list (t_head..t_tail) and the sorted "rbtree" for frames that arrive out of order. */
  private readonly list: Packet[] = [];
  private readonly listTimes: number[] = [];
  private readonly tree: Packet[] = [];
  private readonly treeTimes: number[] = [];

  constructor(handle: number, config: NetemConfig, rng: Rng) {
    super(handle);
    this.rng = rng.fork('prng');
    this.corruptRng = rng.fork('corrupt');
    this.change(config);
  }

  get settings(): NetemConfig {
    return this.config;
  }

  /** netem_change: new parameters (correlation states re-seeded, counter reset); queued frames stay. */
  change(config: NetemConfig): void {
    this.config = config;
    this.jitter = Math.min(Math.abs(config.jitterNs), INT32_MAX);
    this.table = config.distribution === null ? null : distributionTable(config.distribution);
    this.counter = 0;
    this.delayCor = new CorrelatedRandom(this.rng, config.delayCorrelation);
    this.lossCor = new CorrelatedRandom(this.rng, config.lossCorrelation);
    this.dupCor = new CorrelatedRandom(this.rng, config.duplicateCorrelation);
    this.reorderCor = new CorrelatedRandom(this.rng, config.reorderCorrelation);
    this.corruptCor = new CorrelatedRandom(this.rng, config.corruptCorrelation);
  }

  enqueue(pkt: Packet): void {
    const q = this.config;
    let count = 1;
    if (this.duplicating && q.duplicate !== 0 && q.duplicate >= this.dupCor.next()) count++;
    if (q.loss !== 0 && q.loss >= this.lossCor.next()) count--;
    if (count === 0) {
      this.drop(pkt);
      return;
    }
    const duplicate = count > 1 ? pkt.clone() : null;
    if (q.corrupt !== 0 && q.corrupt >= this.corruptCor.next()) {
      const at = pkt.start + this.corruptRng.int(pkt.length);
      pkt.buf[at]! ^= 1 << this.corruptRng.int(8);
    }
    // sch->q.qlen >= sch->limit: every queued frame counts, the tfifo's and those sent at once.
    if (this.stats.qlen >= q.limit) {
      this.drop(pkt);
      if (duplicate !== null) this.discard(duplicate);
      return;
    }
    if (duplicate !== null) {
      // Re-inserted at the root (this qdisc) with duplication off, before the original.
      this.duplicating = false;
      this.enqueue(duplicate);
      this.duplicating = true;
    }
    this.stats.backlog += pkt.length;
    this.stats.qlen++;
    const now = this.now;
    if (q.gap === 0 || this.counter < q.gap - 1 || q.reorder < this.reorderCor.next()) {
      let delay = this.tabledist();
      let from = now;
      if (q.rate !== 0) {
        const last = this.lastTimeToSend();
        if (last >= 0) {
          delay = Math.max(0, delay - (last - now));
          from = last;
        }
        delay += this.packetTimeNs(pkt.length);
      }
      this.counter++;
      this.tfifoEnqueue(pkt, from + delay);
    } else {
      // Reorder: to the head of the queue, due now.
      this.counter = 0;
      this.head.unshift(pkt);
      this.headTimes.unshift(now);
      this.stats.requeues++;
    }
  }

  dequeue(): Packet | null {
    if (this.head.length > 0) {
      this.headTimes.shift();
      return this.deliver(this.head.shift()!);
    }
    const fromTree = this.peekFromTree();
    const times = fromTree ? this.treeTimes : this.listTimes;
    if (times.length === 0) return null;
    const due = times[0]!;
    if (due <= this.now) {
      const pkt = fromTree ? this.tree.shift()! : this.list.shift()!;
      times.shift();
      return this.deliver(pkt);
    }
    this.scheduleWatchdog(due);
    return null;
  }

  protected reset(): void {
    this.head.length = 0;
    this.headTimes.length = 0;
    this.list.length = 0;
    this.listTimes.length = 0;
    this.tree.length = 0;
    this.treeTimes.length = 0;
    this.stats.backlog = 0;
    this.stats.qlen = 0;
  }

  private deliver(pkt: Packet): Packet {
    this.stats.backlog -= pkt.length;
    this.stats.qlen--;
    this.stats.bytes += pkt.length;
    this.stats.packets++;
    return pkt;
  }

  /** netem_peek: the tree's first frame goes first only when strictly earlier than the list's head. */
  private peekFromTree(): boolean {
    if (this.treeTimes.length === 0) return false;
    if (this.listTimes.length === 0) return true;
    return this.treeTimes[0]! < this.listTimes[0]!;
  }

  /** tfifo_enqueue: append when not earlier than the list's tail, else insert in the tree after equal times. */
  private tfifoEnqueue(pkt: Packet, timeToSend: number): void {
    const tail = this.listTimes.length === 0 ? -1 : this.listTimes[this.listTimes.length - 1]!;
    if (this.listTimes.length === 0 || timeToSend >= tail) {
      this.list.push(pkt);
      this.listTimes.push(timeToSend);
      return;
    }
    let lo = 0;
    let hi = this.treeTimes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (timeToSend >= this.treeTimes[mid]!) lo = mid + 1;
      else hi = mid;
    }
    this.tree.splice(lo, 0, pkt);
    this.treeTimes.splice(lo, 0, timeToSend);
  }

  /** The latest time_to_send among the reorder queue's tail, the tree's last and the list's tail (-1: empty). */
  private lastTimeToSend(): number {
    let last = -1;
    if (this.headTimes.length > 0) last = this.headTimes[this.headTimes.length - 1]!;
    if (this.treeTimes.length > 0) last = Math.max(last, this.treeTimes[this.treeTimes.length - 1]!);
    if (this.listTimes.length > 0) last = Math.max(last, this.listTimes[this.listTimes.length - 1]!);
    return last;
  }

  /** tabledist: mu, or mu +- sigma uniformly, or from the distribution table (C integer arithmetic). */
  private tabledist(): number {
    const mu = this.config.latencyNs;
    const sigma = this.jitter;
    if (sigma === 0) return mu;
    const rnd = this.delayCor.next();
    const table = this.table;
    if (table === null) return (rnd % (2 * sigma)) + mu - sigma;
    const t = table[rnd % table.length]!;
    let x = (sigma % NETEM_DIST_SCALE) * t;
    x += x >= 0 ? NETEM_DIST_SCALE / 2 : -NETEM_DIST_SCALE / 2;
    return Math.trunc(x / NETEM_DIST_SCALE) + Math.trunc(sigma / NETEM_DIST_SCALE) * t + mu;
  }

  /** packet_time_ns: the frame's serialisation time at `rate`, with overhead and cells. */
  private packetTimeNs(frameLen: number): number {
    const q = this.config;
    let len = frameLen + q.packetOverhead;
    if (q.cellSize !== 0) {
      let cells = Math.floor(len / q.cellSize);
      if (len > cells * q.cellSize) cells++;
      len = cells * (q.cellSize + q.cellOverhead);
    }
    return Math.floor((len * 1e9) / q.rate);
  }
}
