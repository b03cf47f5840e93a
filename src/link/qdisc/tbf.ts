// The token bucket filter (net/sched/sch_tbf.c): a rate, a bucket of `burst` bytes, an optional peak rate with its own
// one-packet bucket, and a byte-limited FIFO; no GSO segmentation, no offload, no child qdisc other than the bfifo.
//
// Tokens are nanoseconds of transmission time, as in the kernel: the bucket holds at most
// `buffer` ns (the burst at the rate), a packet costs psched_l2t_ns(len), and the clock refills
// the bucket. A packet above the burst is dropped at once; one that does not fit the FIFO's
// byte limit is dropped too; one that waits for tokens makes the watchdog fire when enough
// have accumulated, and counts an overlimit each time the head is found short.

import type { Packet } from '../../core/packet.ts';
import { nsToTicks, RateCfg } from './psched.ts';
import { Qdisc, type QdiscHost } from './qdisc.ts';

/** What `tc qdisc add ... tbf` hands the kernel (struct tc_tbf_qopt plus TCA_TBF_BURST / TCA_TBF_PBURST). */
export interface TbfConfig {
  /** Bytes per second. */
  readonly rate: number;
  /** Bucket size in bytes (TCA_TBF_BURST). */
  readonly burst: number;
  /** Bytes the FIFO may hold (qopt->limit). */
  readonly limit: number;
  /** Peak rate in bytes per second, 0 for none. */
  readonly peakrate: number;
  /** The peak bucket in bytes (TCA_TBF_PBURST, tc's `mtu`/`minburst`), 0 without peakrate. */
  readonly mtu: number;
}

/** What tbf_dump reports (struct tc_tbf_qopt): rates in bytes per second, buckets in psched ticks. */
export interface TbfDump {
  readonly rate: number;
  readonly bufferTicks: number;
  readonly limit: number;
  readonly peakrate: number;
  readonly mtuTicks: number;
}

export class Tbf extends Qdisc {
  readonly kind = 'tbf' as const;
  private config: TbfConfig;
  private rateCfg: RateCfg;
  private peakCfg: RateCfg | null;
  /** q->buffer and q->mtu: the buckets' depths in ns. */
  private bufferNs: number;
  private mtuNs: number;
  /** q->max_size: the largest packet that can ever leave. */
  private maxSize: number;
  private tokens: number;
  private ptokens: number;
  /** q->t_c: when the buckets were last settled. */
  private checkpoint = 0;
  private readonly fifo: (Packet | undefined)[] = [];
  private fifoHead = 0;

  constructor(handle: number, config: TbfConfig) {
    super(handle);
    this.config = config;
    this.rateCfg = new RateCfg(config.rate);
    this.peakCfg = null;
    this.bufferNs = 0;
    this.mtuNs = 0;
    this.maxSize = 0;
    this.tokens = 0;
    this.ptokens = 0;
    this.change(config);
  }

  /** tbf_change: new parameters; the buckets start full (tokens = buffer), the queue is kept. */
  change(config: TbfConfig): void {
    this.config = config;
    this.rateCfg = new RateCfg(config.rate);
    this.bufferNs = this.rateCfg.lengthToNs(config.burst);
    let maxSize = config.burst;
    if (config.peakrate > 0) {
      this.peakCfg = new RateCfg(config.peakrate);
      maxSize = Math.min(maxSize, config.mtu);
      this.mtuNs = this.peakCfg.lengthToNs(config.mtu);
    } else {
      this.peakCfg = null;
      this.mtuNs = 0;
    }
    this.maxSize = maxSize;
    this.tokens = this.bufferNs;
    this.ptokens = this.mtuNs;
  }

  /** tbf_init: the clock checkpoint starts when the qdisc is created. */
  override attach(host: QdiscHost): void {
    super.attach(host);
    this.checkpoint = host.scheduler.now;
  }

  enqueue(pkt: Packet): void {
    const len = pkt.length;
    // tbf_enqueue: above the burst it could never leave; then the bfifo's byte limit (bfifo_enqueue).
    if (len > this.maxSize || this.stats.backlog + len > this.config.limit) {
      this.drop(pkt);
      return;
    }
    this.fifo.push(pkt);
    this.stats.backlog += len;
    this.stats.qlen++;
  }

  dequeue(): Packet | null {
    if (this.fifoHead === this.fifo.length) return null;
    const pkt = this.fifo[this.fifoHead]!;
    const len = pkt.length;
    const now = this.now;
    let toks = Math.min(now - this.checkpoint, this.bufferNs);
    let ptoks = 0;
    if (this.peakCfg !== null) {
      ptoks = Math.min(toks + this.ptokens, this.mtuNs);
      ptoks -= this.peakCfg.lengthToNs(len);
    }
    toks = Math.min(toks + this.tokens, this.bufferNs);
    toks -= this.rateCfg.lengthToNs(len);
    if (toks >= 0 && ptoks >= 0) {
      this.fifo[this.fifoHead] = undefined;
      this.fifoHead++;
      if (this.fifoHead === this.fifo.length) {
        this.fifo.length = 0;
        this.fifoHead = 0;
      } else if (this.fifoHead >= 1024 && this.fifoHead * 2 >= this.fifo.length) {
        // A queue that never empties: drop the sent slots in front now and then.
        this.fifo.splice(0, this.fifoHead);
        this.fifoHead = 0;
      }
      this.checkpoint = now;
      this.tokens = toks;
      this.ptokens = ptoks;
      this.stats.backlog -= len;
      this.stats.qlen--;
      this.stats.bytes += len;
      this.stats.packets++;
      return pkt;
    }
    this.scheduleWatchdog(now + Math.max(-toks, -ptoks));
    this.stats.overlimits++;
    return null;
  }

  protected reset(): void {
    this.fifo.length = 0;
    this.fifoHead = 0;
    this.stats.backlog = 0;
    this.stats.qlen = 0;
    this.tokens = this.bufferNs;
    this.ptokens = this.mtuNs;
    this.checkpoint = this.now;
  }

  /** tbf_dump: struct tc_tbf_qopt as `tc` reads it back (buckets in psched ticks). */
  dump(): TbfDump {
    return {
      rate: this.rateCfg.bytesPerSec,
      bufferTicks: nsToTicks(this.bufferNs),
      limit: this.config.limit,
      peakrate: this.peakCfg === null ? 0 : this.peakCfg.bytesPerSec,
      mtuTicks: nsToTicks(this.mtuNs),
    };
  }
}
