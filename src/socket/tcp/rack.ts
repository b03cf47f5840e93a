// RACK-TLP loss detection (tcp_recovery.c: tcp_rack_advance, tcp_rack_reo_wnd, tcp_rack_detect_loss,
// tcp_rack_mark_lost, tcp_rack_reo_timeout's detection, tcp_rack_update_reo_wnd) and the tail loss
// probe's timing and choice (tcp_output.c: tcp_schedule_loss_probe, tcp_send_loss_probe), as Linux 6.18
// runs them with net.ipv4.tcp_recovery = 1 and tcp_early_retrans = 3. Time is in microseconds
// (tcp_mstamp), timers in jiffies at HZ=1000. Not modelled: TCP_RACK_STATIC_REO_WND and
// TCP_RACK_NO_DUPTHRESH (tcp_recovery bits 2 and 4), pacing's host-queue check (skb_still_in_host_queue).

import type { CaState } from './congestion/types.ts';
import { LOST, RETRANS, SACKED_RETRANS, type Scoreboard, type TxSegment } from './scoreboard.ts';
import { seqAfter, seqBefore } from './seq.ts';

/** TCP_RACK_RECOVERY_THRESH: recoveries a widened reordering window persists for. */
export const TCP_RACK_RECOVERY_THRESH = 16;
/** TCP_TIMEOUT_MIN (2 jiffies) and TCP_TIMEOUT_INIT (1 s), in jiffies. */
export const TCP_TIMEOUT_MIN = 2;
export const TCP_TIMEOUT_INIT = 1000;
/** TCP_TIMEOUT_MIN_US and TCP_RTO_MIN in µs. */
const TIMEOUT_MIN_US = 2000;
const RTO_MIN_US = 200_000;

/** usecs_to_jiffies at HZ=1000 (rounds up). */
export function usecsToJiffies(us: number): number {
  return Math.ceil(us / 1000);
}

/** tcp_skb_sent_after: t1 later than t2, a tie broken by sequence. */
function sentAfter(t1: number, t2: number, seq1: number, seq2: number): boolean {
  return t1 > t2 || (t1 === t2 && seqAfter(seq1, seq2));
}

/** tp->rack. */
export class Rack {
  /** Send time and end of the most recently sent segment that was (S)ACKed. */
  mstampUs = 0;
  endSeq = 0;
  /** RTT of that segment. */
  rttUs = 0;
  /** A newer segment was delivered: the queue is worth scanning. */
  advanced = false;
  /** The reordering window in steps of min_rtt/4, grown by D-SACKs. */
  reoWndSteps = 1;
  reoWndPersist = 0;
  dsackSeen = false;
  lastDelivered = 0;

  /**
   * tcp_rack_advance: a (S)ACKed segment sent at `xmitUs`. A retransmitted one ACKed sooner than
   * min_rtt after it left is ambiguous (the original may have arrived) and is ignored.
   */
  advance(sacked: number, endSeq: number, xmitUs: number, nowUs: number, minRttUs: number): void {
    const rttUs = nowUs - xmitUs;
    if (rttUs < minRttUs && sacked & RETRANS) return;
    this.advanced = true;
    this.rttUs = rttUs;
    if (sentAfter(xmitUs, this.mstampUs, endSeq, this.endSeq)) {
      this.mstampUs = xmitUs;
      this.endSeq = endSeq;
    }
  }

  /**
   * tcp_rack_reo_wnd: without reordering seen, none during recovery or once sacked_out reaches
   * the dupthresh (`reordering`); otherwise min_rtt/4 per step, at most srtt.
   */
  reoWnd(sb: Scoreboard, caState: CaState, srttUs: number): number {
    if (sb.reordSeen === 0) {
      if (caState === 'Recovery' || caState === 'Loss') return 0;
      if (sb.sackedOut >= sb.reordering) return 0;
    }
    return Math.min(Math.floor(sb.minRttUs / 4) * this.reoWndSteps, srttUs);
  }

  /**
   * tcp_rack_detect_loss: every segment sent before the latest delivered one and not (S)ACKed
   * within rack.rtt + reo_wnd is lost. Returns the longest wait left for the others (µs, 0: none).
   */
  detectLoss(sb: Scoreboard, nowUs: number, caState: CaState, srttUs: number): number {
    let reoTimeout = 0;
    const reoWnd = this.reoWnd(sb, caState, srttUs);
    const tsorted = sb.tsorted;
    for (let i = 0; i < tsorted.length; ) {
      const segment: TxSegment = tsorted[i]!;
      // Skip ones marked lost but not yet retransmitted.
      if (segment.sacked & LOST && !(segment.sacked & SACKED_RETRANS)) {
        i++;
        continue;
      }
      if (!sentAfter(this.mstampUs, segment.xmitUs, this.endSeq, segment.endSeq)) break;
      const remaining = this.rttUs + reoWnd - (nowUs - segment.xmitUs);
      if (remaining <= 0) {
        sb.markLost(segment);
        tsorted.splice(i, 1);
        continue;
      }
      reoTimeout = Math.max(reoTimeout, remaining);
      i++;
    }
    return reoTimeout;
  }

  /**
   * tcp_rack_mark_lost: scans only after an advance. Returns the reordering timer to arm in
   * jiffies (ICSK_TIME_REO_TIMEOUT: the wait plus TCP_TIMEOUT_MIN), 0 for none.
   */
  markLost(sb: Scoreboard, nowUs: number, caState: CaState, srttUs: number): number {
    if (!this.advanced) return 0;
    this.advanced = false;
    const timeout = this.detectLoss(sb, nowUs, caState, srttUs);
    return timeout > 0 ? usecsToJiffies(timeout) + TCP_TIMEOUT_MIN : 0;
  }

  /**
   * tcp_rack_update_reo_wnd after each ACK: a D-SACK (at most once a round trip) widens the
   * window by a step and keeps it for 16 recoveries; then it returns to one step.
   */
  updateReoWnd(priorDelivered: number, delivered: number): void {
    if (priorDelivered === 0) return;
    // Disregard a D-SACK if a round trip has not passed since the window was adjusted.
    if (seqBefore(priorDelivered, this.lastDelivered)) this.dsackSeen = false;
    if (this.dsackSeen) {
      this.reoWndSteps = Math.min(0xff, this.reoWndSteps + 1);
      this.dsackSeen = false;
      this.lastDelivered = delivered;
      this.reoWndPersist = TCP_RACK_RECOVERY_THRESH;
    } else if (this.reoWndPersist === 0) {
      this.reoWndSteps = 1;
    }
  }
}

/** What tcp_schedule_loss_probe needs to know. */
export interface ProbeContext {
  readonly caState: CaState;
  readonly sackOk: boolean;
  readonly packetsOut: number;
  /** srtt in µs, 0 before the first sample. */
  readonly srttUs: number;
  /** icsk_rto in jiffies. */
  readonly rtoJiffies: number;
  /** The RTO is being re-armed from now (true) or `rtoDeltaUs` remain of it (tcp_rto_delta_us). */
  readonly advancingRto: boolean;
  readonly rtoDeltaUs: number;
}

/**
 * tcp_schedule_loss_probe: the probe timeout (PTO) in jiffies, or -1 when no probe is due (no
 * SACK, nothing out, in Disorder, Recovery or Loss): 2*srtt, plus TCP_RTO_MIN (the delayed ACK's
 * worst case) with a single packet out or TCP_TIMEOUT_MIN_US otherwise, 1 s before any RTT sample,
 * and never later than the RTO.
 */
export function lossProbeTimeout(ctx: ProbeContext): number {
  if (ctx.packetsOut === 0 || !ctx.sackOk || (ctx.caState !== 'Open' && ctx.caState !== 'CWR')) return -1;
  let timeout: number;
  if (ctx.srttUs > 0) {
    const timeoutUs = 2 * ctx.srttUs + (ctx.packetsOut === 1 ? RTO_MIN_US : TIMEOUT_MIN_US);
    timeout = usecsToJiffies(timeoutUs);
  } else timeout = TCP_TIMEOUT_INIT;
  const rtoDeltaUs = ctx.advancingRto ? ctx.rtoJiffies * 1000 : ctx.rtoDeltaUs;
  if (rtoDeltaUs > 0) timeout = Math.min(timeout, usecsToJiffies(rtoDeltaUs));
  return timeout;
}

/** tcp_send_loss_probe's choice: new data if the window allows one segment, else the last segment again. */
export type LossProbe =
  | { readonly kind: 'none' }
  | { readonly kind: 'new-data' }
  | { readonly kind: 'retransmit'; readonly segment: TxSegment };

/**
 * tcp_send_loss_probe: at most one probe outstanding (tlp_high_seq); new data when there is some
 * the peer's window takes, else the highest sent segment. The caller sends it, then calls
 * probeSent() and re-arms the RTO.
 */
export function chooseLossProbe(sb: Scoreboard, newDataFitsWindow: boolean): LossProbe {
  if (sb.tlpHighSeq !== 0) return { kind: 'none' };
  if (newDataFitsWindow) return { kind: 'new-data' };
  const last = sb.queue[sb.queue.length - 1];
  if (last === undefined) return { kind: 'none' };
  return { kind: 'retransmit', segment: last };
}
