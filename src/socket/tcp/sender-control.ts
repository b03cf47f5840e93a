// The sender's loss detection and congestion control behind one interface for TcpSocket: the scoreboard,
// RACK-TLP, the recovery state machine and a congestion-control module (CUBIC by default, Reno), fed with
// sequence ranges, ACK fields and the simulation clock in nanoseconds. It decides what may be sent and
// what must be resent; the bytes, the RTT estimator and the timers stay in the socket.

import { Cubic } from './congestion/cubic.ts';
import { Reno } from './congestion/reno.ts';
import { slowStartAfterIdleCheck } from './congestion/restart.ts';
import { type CongestionOps, CwndState, currentSsthresh } from './congestion/types.ts';
import { chooseLossProbe, type LossProbe, lossProbeTimeout, Rack } from './rack.ts';
import { AckInput, type AckOutcome, LossRecovery, type RecoveryHost } from './recovery.ts';
import { Scoreboard, type TxSegment } from './scoreboard.ts';

/** net.ipv4.tcp_congestion_control values modelled. */
export type CongestionName = 'cubic' | 'reno';

export interface SenderOptions {
  readonly congestion: CongestionName;
  readonly mss: number;
  /** The peer's window, largest seen (max_window), bounds D-SACK ranges. */
  readonly maxWindow: number;
  /** tcp_init_cwnd. */
  readonly initialCwnd: number;
}

/** INITIAL_JIFFIES: the kernel's jiffies start 5 minutes before wrapping, so 0 (CUBIC's "no epoch") is rare. */
const INITIAL_JIFFIES = -300_000;

export class SenderControl {
  readonly tp = new CwndState();
  readonly rack = new Rack();
  readonly sb: Scoreboard;
  readonly ca: CongestionOps;
  readonly recovery: LossRecovery;
  private readonly input = new AckInput();
  /** The last transmission's stamp (µs): tcp_wstamp_ns never goes back, and no two transmissions share one here. */
  private lastStampUs = 0;

  constructor(options: SenderOptions, host: RecoveryHost) {
    this.sb = new Scoreboard(this.rack);
    this.sb.mss = options.mss;
    this.sb.maxWindow = options.maxWindow;
    this.sb.sackOk = host.sackOk;
    this.ca = options.congestion === 'cubic' ? new Cubic() : new Reno();
    this.tp.cwnd = options.initialCwnd;
    this.recovery = new LossRecovery(this.tp, this.ca, this.sb, this.rack, host);
  }

  /** tcp_init_transfer: the connection is established with `sndUna` next to be acknowledged. */
  start(sndUna: number, nowNs: number): void {
    this.sb.sndUna = sndUna >>> 0;
    this.sb.sndNxt = sndUna >>> 0;
    this.clock(nowNs);
    this.ca.init(this.tp);
  }

  get cwnd(): number {
    return this.tp.cwnd;
  }

  /** tcp_cwnd_test: room for one more segment in the congestion window. */
  canSend(): boolean {
    return this.sb.inFlight < this.tp.cwnd;
  }

  /**
   * A new segment [seq, endSeq) left (tcp_event_new_data_sent): CA_EVENT_TX_START when nothing was
   * in flight, PRR counts it while reducing.
   */
  sent(seq: number, endSeq: number, nowNs: number): TxSegment {
    this.clock(nowNs);
    if (this.sb.inFlight === 0) this.ca.cwndEvent(this.tp, 'TX_START');
    const segment = this.sb.sent(seq >>> 0, endSeq >>> 0, this.stamp(nowNs));
    this.tp.lsndtime = this.tp.jiffies;
    this.recovery.newDataSent(1);
    return segment;
  }

  /** tcp_ack for an ACK the socket accepted (ack <= snd_nxt): what to resend and whether to re-arm the timer. */
  ack(
    fields: {
      readonly ack: number;
      readonly flag: number;
      readonly sackEdges: ArrayLike<number>;
      readonly sackCount: number;
      readonly tsEcrMs: number;
      readonly cwndLimited: boolean;
    },
    nowNs: number,
  ): AckOutcome {
    this.clock(nowNs);
    const input = this.input;
    input.ack = fields.ack;
    input.flag = fields.flag;
    input.sackEdges = fields.sackEdges;
    input.sackCount = fields.sackCount;
    input.tsEcrMs = fields.tsEcrMs;
    input.nowUs = nowNs / 1000;
    input.cwndLimited = fields.cwndLimited;
    return this.recovery.onAck(input);
  }

  /** tcp_xmit_retransmit_queue: the next segment to resend now, undefined when none (or no room). */
  nextRetransmit(): TxSegment | undefined {
    return this.recovery.nextRetransmit();
  }

  /** The socket resent `segment` (tcp_retransmit_skb); `tsMs` is the TSval clock for the undo checks. */
  retransmitted(segment: TxSegment, nowNs: number, tsMs: number): void {
    this.clock(nowNs);
    this.recovery.retransmitted(segment, this.stamp(nowNs), tsMs);
  }

  /**
   * tcp_retransmit_timer's part: tcp_enter_loss (everything out is lost, cwnd = in flight + 1).
   * The socket then resends the head (retransmitted()) and counts icsk_retransmits.
   */
  retransmitTimeout(nowNs: number, frto: boolean): void {
    this.clock(nowNs);
    this.sb.tlpHighSeq = 0;
    this.recovery.enterLoss(nowNs / 1000, frto);
  }

  /** ICSK_TIME_REO_TIMEOUT fired: true when segments are now lost and nextRetransmit() has work. */
  reoTimeout(nowNs: number): boolean {
    this.clock(nowNs);
    return this.recovery.reoTimeout(nowNs / 1000);
  }

  /** tcp_schedule_loss_probe: jiffies to the probe, or -1 (arm the RTO instead). */
  probeTimeout(srttUs: number, rtoJiffies: number, advancingRto: boolean, rtoDeltaUs: number): number {
    return lossProbeTimeout({
      caState: this.tp.caState,
      sackOk: this.sb.sackOk,
      packetsOut: this.sb.packetsOut,
      srttUs,
      rtoJiffies,
      advancingRto,
      rtoDeltaUs,
    });
  }

  /** tcp_send_loss_probe's choice; after sending, the socket calls probeSent(). */
  lossProbe(newDataFitsWindow: boolean): LossProbe {
    return chooseLossProbe(this.sb, newDataFitsWindow);
  }

  /** The probe went out (`retransmitted`: the last segment again, rather than new data). */
  probeSent(retransmitted: boolean): void {
    this.recovery.probeSent(retransmitted);
  }

  /**
   * tcp_simple_retransmit after the path MTU fell to `mss`: segments longer than it are lost (to be
   * cut again when resent), Loss without a reduction of cwnd and without undo. False when none is.
   */
  simpleRetransmit(mss: number, finSeq: number, nowNs: number): boolean {
    this.clock(nowNs);
    const sb = this.sb;
    sb.mss = mss;
    for (const segment of sb.queue) {
      const fin = finSeq >= 0 && segment.endSeq === (finSeq + 1) >>> 0 ? 1 : 0;
      if (segment.endSeq - segment.seq - fin > mss) sb.markLost(segment);
    }
    if (sb.lostOut === 0) return false;
    if (this.tp.caState !== 'Loss') {
      sb.highSeq = sb.sndNxt;
      this.tp.ssthresh = currentSsthresh(this.tp);
      this.recovery.priorSsthresh = 0;
      sb.undoMarker = 0;
      this.recovery.setState('Loss');
    }
    return true;
  }

  /** tcp_slow_start_after_idle_check before new data is queued (net.ipv4.tcp_slow_start_after_idle). */
  idleCheck(nowNs: number, enabled: boolean, rtoJiffies: number): void {
    this.clock(nowNs);
    slowStartAfterIdleCheck(this.tp, this.ca, { enabled, packetsOut: this.sb.packetsOut, rtoJiffies });
  }

  /** tcp_send_loss_probe resent the last segment (__tcp_retransmit_skb): the probe is out. */
  probeRetransmitted(segment: TxSegment, nowNs: number): void {
    this.clock(nowNs);
    this.sb.probeRetransmitted(segment, this.stamp(nowNs));
    this.recovery.probeSent(true);
  }

  /** tcp_jiffies32 (HZ=1000) and tcp_mstamp from the simulation's nanoseconds. */
  private clock(nowNs: number): void {
    this.tp.jiffies = (Math.floor(nowNs / 1_000_000) + INITIAL_JIFFIES) >>> 0;
    this.tp.nowUs = nowNs / 1000;
  }

  /** A transmission's stamp in µs, 1 ns past the previous one when the clock has not moved. */
  private stamp(nowNs: number): number {
    const us = Math.max(nowNs / 1000, this.lastStampUs + 0.001);
    this.lastStampUs = us;
    return us;
  }
}
