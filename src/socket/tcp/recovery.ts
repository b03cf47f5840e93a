// The sender's loss-recovery state machine (tcp_input.c: tcp_ack's loss path, tcp_fastretrans_alert with
// Open/Disorder/CWR/Recovery/Loss, PRR's tcp_cwnd_reduction (RFC 6937), the undo heuristics on D-SACK and
// timestamps, tcp_enter_loss with F-RTO, tcp_process_tlp_ack, tcp_xmit_retransmit_queue's choice), as
// Linux 6.18 runs it with RACK (tcp_recovery = 1): losses come from RACK; duplicate ACKs count only for
// a peer without SACK (NewReno, tcp_newreno_mark_lost). Not modelled: ECN (CWR entered on ECE), MTU
// probing, SACK reneging's delayed timer (tcp_check_sack_reneging), RFC 6675's dupthresh marking.

import type { CaState, CongestionOps, CwndState } from './congestion/types.ts';
import { inCwndReduction, TCP_INFINITE_SSTHRESH } from './congestion/types.ts';
import type { Rack } from './rack.ts';
import {
  AckState,
  FLAG_ACKED,
  FLAG_CA_ALERT,
  FLAG_DATA_ACKED,
  FLAG_DATA_SACKED,
  FLAG_DSACK_TLP,
  FLAG_DSACKING_ACK,
  FLAG_ECE,
  FLAG_FORWARD_PROGRESS,
  FLAG_LOST_RETRANS,
  FLAG_NOT_DUP,
  FLAG_ORIG_SACK_ACKED,
  FLAG_SET_XMIT_TIMER,
  FLAG_SND_UNA_ADVANCED,
  LOST,
  SACKED_ACKED,
  SACKED_RETRANS,
  type Scoreboard,
  TCP_FASTRETRANS_THRESH,
  type TxSegment,
} from './scoreboard.ts';
import { seqAfter, seqBefore } from './seq.ts';

/** REXMIT_NONE, REXMIT_LOST, REXMIT_NEW: what tcp_xmit_recovery sends after the ACK. */
export type Rexmit = 'none' | 'lost' | 'new';

/** One incoming ACK, as the socket saw it (filled in place: one object per connection). */
export class AckInput {
  ack = 0;
  /** FLAG_DATA (the segment carried data), FLAG_WIN_UPDATE, FLAG_ECE as tcp_ack set them. */
  flag = 0;
  sackEdges: ArrayLike<number> = [];
  sackCount = 0;
  /** The echoed timestamp less our offset, in ms; 0 without one. */
  tsEcrMs = 0;
  nowUs = 0;
  /** tcp_is_cwnd_limited for the congestion-avoidance step. */
  cwndLimited = true;
}

/** What the socket does next (one object per connection). */
export class AckOutcome {
  rexmit: Rexmit = 'none';
  /** FLAG_SET_XMIT_TIMER: re-arm the loss probe (lossProbeTimeout) or else the RTO (tcp_set_xmit_timer). */
  setXmitTimer = false;
  /** Arm the RACK reordering timer this many jiffies from now (0: no). */
  reoTimeout = 0;
  /** Newly delivered segments (tcp_newly_delivered). */
  delivered = 0;
  /** The ACK was older than snd_una (tcp_ack's old_ack path). */
  old = false;
  flag = 0;
}

/** The socket's side of the exchange. */
export interface RecoveryHost {
  /** tcp_ack_update_rtt's sample, taken before recovery runs (tcp_rtt_estimator, tcp_set_rto). */
  rttSample(seqRttUs: number): void;
  /** srtt in µs after this ACK's sample; 0 before any. */
  readonly srttUs: number;
  /** tcp_is_sack. */
  readonly sackOk: boolean;
}

export class LossRecovery {
  /** prior_ssthresh: ssthresh before the reduction (0: undo impossible). */
  priorSsthresh = 0;
  prrDelivered = 0;
  prrOut = 0;
  /** F-RTO (RFC 5682) under way after an RTO (net.ipv4.tcp_frto = 2). */
  frto = false;
  /** The loss probe retransmitted (tlp_retrans) rather than sent new data. */
  tlpRetrans = false;
  /** icsk_retransmits, as the RTO handler keeps it. */
  retransmits = 0;
  private readonly state = new AckState();
  /** The echoed timestamp of the ACK being processed (tcp_packet_delayed). */
  private lastTsEcrMs = 0;
  readonly outcome = new AckOutcome();

  constructor(
    readonly tp: CwndState,
    readonly ca: CongestionOps,
    readonly sb: Scoreboard,
    readonly rack: Rack,
    private readonly host: RecoveryHost,
  ) {}

  /** tcp_set_ca_state. */
  setState(state: CaState): void {
    this.ca.setState(this.tp, state);
    this.tp.caState = state;
  }

  /**
   * tcp_ack from the SACK tagging on: tags and cleans the queue, runs RACK and the state machine,
   * then tcp_cong_control (PRR in CWR/Recovery, else cong_avoid). The socket has checked the ACK
   * against snd_nxt and updates its window; snd_una advances here (sb.sndUna).
   */
  onAck(input: AckInput): AckOutcome {
    const sb = this.sb;
    const tp = this.tp;
    const out = this.outcome;
    const state = this.state;
    out.rexmit = 'none';
    out.setXmitTimer = false;
    out.reoTimeout = 0;
    out.delivered = 0;
    out.old = false;
    const priorSndUna = sb.sndUna;
    const ack = input.ack >>> 0;
    let flag = input.flag;
    state.reset(sb.sndNxt);
    tp.nowUs = input.nowUs;
    this.lastTsEcrMs = input.tsEcrMs;
    const priorDelivered = sb.delivered;
    const priorLost = sb.lost;
    if (seqBefore(ack, priorSndUna)) {
      // old_ack: SACK information may still be fresh.
      out.old = true;
      if (input.sackCount > 0) {
        flag |= sb.sacktag(input.sackEdges, input.sackCount, ack, priorSndUna, input.nowUs, state);
        sb.delivered += state.sackDelivered;
        this.fastretransAlert(priorSndUna, 0, flag, input.nowUs);
        out.delivered = sb.delivered - priorDelivered;
      }
      out.flag = flag;
      return out;
    }
    if (seqAfter(ack, priorSndUna)) {
      flag |= FLAG_SND_UNA_ADVANCED;
      this.retransmits = 0;
    }
    const priorFack = this.host.sackOk ? sb.highestSackSeq() : sb.sndUna;
    const priorPackets = sb.packetsOut;
    // tcp_ack_update_window has moved snd_una before the SACK blocks are read.
    sb.sndUna = ack;
    if (input.sackCount > 0 && this.host.sackOk)
      flag |= sb.sacktag(input.sackEdges, input.sackCount, ack, priorSndUna, input.nowUs, state);
    if (state.sackDelivered > 0) sb.delivered += state.sackDelivered;
    if (priorPackets === 0) {
      // no_queue: a D-SACK may still undo a reduction.
      if (flag & FLAG_DSACKING_ACK) this.fastretransAlert(priorSndUna, 0, flag, input.nowUs);
      if (sb.tlpHighSeq !== 0) this.processTlpAck(ack, flag);
      out.delivered = sb.delivered - priorDelivered;
      out.flag = flag;
      return out;
    }
    flag |= sb.cleanRtxQueue(priorFack, input.nowUs, input.tsEcrMs, state);
    if (!this.host.sackOk && flag & FLAG_ACKED) this.removeRenoSacks(state.pktsAcked);
    if (state.seqRttUs >= 0) this.host.rttSample(state.seqRttUs);
    this.ca.pktsAcked(tp, { pktsAcked: state.pktsAcked, rttUs: state.caRttUs });
    this.rack.updateReoWnd(state.priorDelivered, sb.delivered);
    if (sb.tlpHighSeq !== 0) this.processTlpAck(ack, flag);
    if (this.ackIsDubious(flag)) {
      const numDupack = flag & (FLAG_SND_UNA_ADVANCED | FLAG_NOT_DUP | FLAG_DSACKING_ACK) ? 0 : 1;
      flag = this.fastretransAlert(priorSndUna, numDupack, flag, input.nowUs);
    }
    out.setXmitTimer = (flag & FLAG_SET_XMIT_TIMER) !== 0;
    const delivered = sb.delivered - priorDelivered;
    out.delivered = delivered;
    this.congControl(ack, delivered, sb.lost - priorLost, flag, input.cwndLimited);
    out.flag = flag;
    return out;
  }

  /** tcp_ack_is_dubious. */
  private ackIsDubious(flag: number): boolean {
    return !(flag & FLAG_NOT_DUP) || (flag & FLAG_CA_ALERT) !== 0 || this.tp.caState !== 'Open';
  }

  /** tcp_cong_control without cong_control: PRR while reducing, else growth when allowed. */
  private congControl(
    ack: number,
    delivered: number,
    newlyLost: number,
    flag: number,
    cwndLimited: boolean,
  ): void {
    if (inCwndReduction(this.tp)) this.cwndReduction(delivered, newlyLost, flag);
    else if (this.mayRaiseCwnd(flag)) {
      this.ca.congAvoid(this.tp, ack, delivered, cwndLimited);
      this.tp.cwndStamp = this.tp.jiffies;
    }
  }

  /** tcp_may_raise_cwnd: in-order delivery only, unless reordering is known to be high. */
  private mayRaiseCwnd(flag: number): boolean {
    if (this.sb.reordering > TCP_FASTRETRANS_THRESH) return (flag & FLAG_FORWARD_PROGRESS) !== 0;
    return (flag & FLAG_DATA_ACKED) !== 0;
  }

  // ---- PRR ------------------------------------------------------------------------------

  /** tcp_init_cwnd_reduction. */
  initCwndReduction(): void {
    this.sb.highSeq = this.sb.sndNxt;
    this.sb.tlpHighSeq = 0;
    this.tp.cwndCnt = 0;
    this.tp.priorCwnd = this.tp.cwnd;
    this.prrDelivered = 0;
    this.prrOut = 0;
    this.tp.ssthresh = this.ca.ssthresh(this.tp);
  }

  /**
   * tcp_cwnd_reduction (PRR, RFC 6937): above ssthresh, sends ssthresh/prior_cwnd of what is
   * delivered; at or below, as much as delivered (one more when snd_una advanced without new
   * losses), up to ssthresh. At least one segment on entering recovery (the fast retransmit).
   */
  cwndReduction(newlyAckedSacked: number, newlyLost: number, flag: number): void {
    const tp = this.tp;
    const delta = tp.ssthresh - this.sb.inFlight;
    if (newlyAckedSacked <= 0 || tp.priorCwnd === 0) return;
    this.prrDelivered += newlyAckedSacked;
    let sndcnt: number;
    if (delta < 0) {
      const dividend = tp.ssthresh * this.prrDelivered + tp.priorCwnd - 1;
      sndcnt = Math.floor(dividend / tp.priorCwnd) - this.prrOut;
    } else {
      sndcnt = Math.max(this.prrDelivered - this.prrOut, newlyAckedSacked);
      if (flag & FLAG_SND_UNA_ADVANCED && newlyLost === 0) sndcnt++;
      sndcnt = Math.min(delta, sndcnt);
    }
    sndcnt = Math.max(sndcnt, this.prrOut > 0 ? 0 : 1);
    tp.cwnd = this.sb.inFlight + sndcnt;
  }

  /** tcp_end_cwnd_reduction: cwnd back to ssthresh when CWR or a not-undone recovery ends. */
  endCwndReduction(): void {
    const tp = this.tp;
    if (tp.ssthresh < TCP_INFINITE_SSTHRESH && (tp.caState === 'CWR' || this.sb.undoMarker !== 0)) {
      tp.cwnd = tp.ssthresh;
      tp.cwndStamp = tp.jiffies;
    }
    this.ca.cwndEvent(tp, 'COMPLETE_CWR');
  }

  /** tcp_enter_recovery. */
  enterRecovery(eceAck: boolean): void {
    this.priorSsthresh = 0;
    this.sb.initUndo();
    if (!inCwndReduction(this.tp)) {
      if (!eceAck) this.priorSsthresh = this.currentSsthresh();
      this.initCwndReduction();
    }
    this.setState('Recovery');
  }

  private currentSsthresh(): number {
    const tp = this.tp;
    if (inCwndReduction(tp)) return tp.ssthresh;
    return Math.max(tp.ssthresh, (tp.cwnd >>> 1) + (tp.cwnd >>> 2));
  }

  // ---- undo -----------------------------------------------------------------------------

  /** tcp_packet_delayed: the echoed timestamp predates the first retransmission. */
  private packetDelayed(tsEcrMs: number): boolean {
    return this.sb.retransStampMs !== 0 && tsEcrMs !== 0 && seqBefore(tsEcrMs, this.sb.retransStampMs);
  }

  /** tcp_may_undo: every retransmission D-SACKed, or the timestamps show the originals arrived. */
  private mayUndo(): boolean {
    return this.sb.undoMarker !== 0 && (this.sb.undoRetrans === 0 || this.packetDelayed(this.lastTsEcrMs));
  }

  /** tcp_undo_cwnd_reduction. */
  private undoCwndReduction(unmarkLoss: boolean): void {
    const sb = this.sb;
    if (unmarkLoss) {
      for (const segment of sb.queue) segment.sacked &= ~LOST;
      sb.lostOut = 0;
    }
    if (this.priorSsthresh !== 0) {
      this.tp.cwnd = this.ca.undoCwnd(this.tp);
      if (this.priorSsthresh > this.tp.ssthresh) this.tp.ssthresh = this.priorSsthresh;
    }
    this.tp.cwndStamp = this.tp.jiffies;
    sb.undoMarker = 0;
    this.rack.advanced = true;
  }

  /** tcp_is_non_sack_preventing_reopen. */
  private nonSackPreventingReopen(): boolean {
    if (this.sb.sndUna === this.sb.highSeq && !this.host.sackOk) {
      if (!this.sb.anyRetransDone()) this.sb.retransStampMs = 0;
      return true;
    }
    return false;
  }

  /** tcp_try_undo_recovery: recovery is over; undo it if it was spurious. True: hold the state (NewReno). */
  private tryUndoRecovery(): boolean {
    if (this.mayUndo()) this.undoCwndReduction(false);
    else if (this.rack.reoWndPersist > 0) this.rack.reoWndPersist--;
    if (this.nonSackPreventingReopen()) return true;
    this.setState('Open');
    return false;
  }

  /** tcp_try_undo_dsack: D-SACKs covered every retransmission. */
  private tryUndoDsack(): boolean {
    if (this.sb.undoMarker !== 0 && this.sb.undoRetrans === 0) {
      this.rack.reoWndPersist = Math.min(16, this.rack.reoWndPersist + 1);
      this.undoCwndReduction(false);
      return true;
    }
    return false;
  }

  /** tcp_try_undo_loss: after an RTO, on a partial ACK or F-RTO's verdict. */
  private tryUndoLoss(frtoUndo: boolean): boolean {
    if (frtoUndo || this.mayUndo()) {
      this.undoCwndReduction(true);
      this.retransmits = 0;
      if (this.nonSackPreventingReopen()) return true;
      if (frtoUndo || this.host.sackOk) this.setState('Open');
      return true;
    }
    return false;
  }

  /** tcp_try_undo_partial: a partial ACK in recovery; true to stop processing this ACK. */
  private tryUndoPartial(priorSndUna: number): boolean {
    const sb = this.sb;
    if (sb.undoMarker !== 0 && this.packetDelayed(this.lastTsEcrMs)) {
      // The hole was filled by a delayed packet, not the retransmission: reordering.
      sb.checkSackReordering(priorSndUna);
      if (sb.retransOut > 0) return true;
      if (!sb.anyRetransDone()) sb.retransStampMs = 0;
      this.undoCwndReduction(true);
      this.tryKeepOpen();
    }
    // Otherwise RFC 6675's forced fast retransmit (do_lost), which only matters without RACK.
    return false;
  }

  /** tcp_try_keep_open. */
  private tryKeepOpen(): void {
    const state: CaState = this.sb.leftOut > 0 || this.sb.anyRetransDone() ? 'Disorder' : 'Open';
    if (this.tp.caState !== state) {
      this.setState(state);
      this.sb.highSeq = this.sb.sndNxt;
    }
  }

  /** tcp_try_to_open (no ECN: CWR is never entered from here). */
  private tryToOpen(): void {
    if (!this.sb.anyRetransDone()) this.sb.retransStampMs = 0;
    if (this.tp.caState !== 'CWR') this.tryKeepOpen();
  }

  // ---- NewReno (a peer without SACK) ----------------------------------------------------

  /** tcp_add_reno_sack: each duplicate ACK stands for one segment delivered out of order. */
  private addRenoSack(numDupack: number): void {
    if (numDupack === 0) return;
    const sb = this.sb;
    const prior = sb.sackedOut;
    sb.sackedOut += numDupack;
    this.checkRenoReordering(0);
    const delivered = sb.sackedOut - prior;
    if (delivered > 0) sb.delivered += delivered;
  }

  /** tcp_remove_reno_sacks. */
  private removeRenoSacks(acked: number): void {
    const sb = this.sb;
    if (acked > 0) {
      // One ACK acked the hole; the rest were counted as duplicate ACKs.
      sb.delivered += Math.max(acked - sb.sackedOut, 1);
      if (acked - 1 >= sb.sackedOut) sb.sackedOut = 0;
      else sb.sackedOut -= acked - 1;
    }
    this.checkRenoReordering(acked);
  }

  /** tcp_check_reno_reordering with tcp_limit_reno_sacked. */
  private checkRenoReordering(addend: number): void {
    const sb = this.sb;
    const holes = Math.min(Math.max(sb.lostOut, 1), sb.packetsOut);
    if (sb.sackedOut + holes <= sb.packetsOut) return;
    sb.sackedOut = sb.packetsOut - holes;
    sb.reordering = Math.min(sb.packetsOut + addend, 300);
    sb.reordSeen++;
  }

  /** tcp_newreno_mark_lost: the head is lost after `reordering` duplicate ACKs, or on a partial ACK in recovery. */
  private newrenoMarkLost(sndUnaAdvanced: boolean): void {
    const state = this.tp.caState;
    const early = state === 'Open' || state === 'Disorder' || state === 'CWR';
    if ((early && this.sb.sackedOut >= this.sb.reordering) || (state === 'Recovery' && sndUnaAdvanced)) {
      const head = this.sb.queue[0];
      if (head === undefined || head.sacked & LOST) return;
      this.sb.markLost(head);
    }
  }

  // ---- the state machine ----------------------------------------------------------------

  /** tcp_time_to_recover: with RACK, only a proven loss. */
  private timeToRecover(): boolean {
    return this.sb.lostOut > 0;
  }

  /** tcp_identify_packet_loss. */
  private identifyPacketLoss(flag: number, nowUs: number): number {
    const sb = this.sb;
    if (sb.queue.length === 0) return flag;
    if (!this.host.sackOk) {
      this.newrenoMarkLost((flag & FLAG_SND_UNA_ADVANCED) !== 0);
      return flag;
    }
    const priorRetrans = sb.retransOut;
    const timeout = this.rack.markLost(sb, nowUs, this.tp.caState, this.host.srttUs);
    if (timeout > 0) {
      this.outcome.reoTimeout = timeout;
      flag &= ~FLAG_SET_XMIT_TIMER;
    }
    if (priorRetrans > sb.retransOut) flag |= FLAG_LOST_RETRANS;
    return flag;
  }

  /**
   * tcp_fastretrans_alert: the state machine for a dubious ACK. Sets outcome.rexmit; returns the
   * flags (RACK may clear FLAG_SET_XMIT_TIMER when it arms its own timer).
   */
  fastretransAlert(priorSndUna: number, numDupack: number, flag: number, nowUs: number): number {
    const sb = this.sb;
    const tp = this.tp;
    const out = this.outcome;
    const eceAck = (flag & FLAG_ECE) !== 0;
    if (sb.packetsOut === 0 && sb.sackedOut > 0) sb.sackedOut = 0;
    if (eceAck) this.priorSsthresh = 0;
    // D. State exit once high_seq is ACKed.
    if (tp.caState === 'Open') sb.retransStampMs = 0;
    else if (!seqBefore(sb.sndUna, sb.highSeq)) {
      if (tp.caState === 'CWR') {
        if (sb.sndUna !== sb.highSeq) {
          this.endCwndReduction();
          this.setState('Open');
        }
      } else if (tp.caState === 'Recovery') {
        if (!this.host.sackOk) sb.sackedOut = 0;
        if (this.tryUndoRecovery()) return flag;
        this.endCwndReduction();
      }
    }
    // E. Process the state.
    switch (tp.caState) {
      case 'Recovery': {
        if (!(flag & FLAG_SND_UNA_ADVANCED)) {
          if (!this.host.sackOk) this.addRenoSack(numDupack);
        } else {
          if (this.tryUndoPartial(priorSndUna)) return flag;
        }
        if (this.tryUndoDsack()) this.tryKeepOpen();
        flag = this.identifyPacketLoss(flag, nowUs);
        if (this.tp.caState !== 'Recovery') {
          if (!this.timeToRecover()) return flag;
          this.enterRecovery(eceAck);
        }
        break;
      }
      case 'Loss': {
        this.processLoss(flag, numDupack);
        flag = this.identifyPacketLoss(flag, nowUs);
        if (!(this.tp.caState === 'Open' || flag & FLAG_LOST_RETRANS)) return flag;
        // Undone, or retransmissions lost: on as in Open.
        flag = this.openOrDisorder(flag, numDupack, eceAck, nowUs);
        if (this.tp.caState !== 'Recovery') return flag;
        break;
      }
      default: {
        flag = this.openOrDisorder(flag, numDupack, eceAck, nowUs);
        if (this.tp.caState !== 'Recovery') return flag;
        break;
      }
    }
    out.rexmit = 'lost';
    return flag;
  }

  /** The default branch of tcp_fastretrans_alert: Open, Disorder, CWR (and Loss once undone). */
  private openOrDisorder(flag: number, numDupack: number, eceAck: boolean, nowUs: number): number {
    if (!this.host.sackOk) {
      if (flag & FLAG_SND_UNA_ADVANCED) this.sb.sackedOut = 0;
      this.addRenoSack(numDupack);
    }
    if (this.tp.caState === 'Open' || this.tp.caState === 'Disorder') this.tryUndoDsack();
    flag = this.identifyPacketLoss(flag, nowUs);
    if (!this.timeToRecover()) {
      this.tryToOpen();
      return flag;
    }
    this.enterRecovery(eceAck);
    return flag;
  }

  /** tcp_process_loss: an ACK in Loss; F-RTO decides whether the RTO was spurious. */
  private processLoss(flag: number, numDupack: number): void {
    const sb = this.sb;
    const recovered = !seqBefore(sb.sndUna, sb.highSeq);
    if (flag & FLAG_SND_UNA_ADVANCED && this.tryUndoLoss(false)) return;
    if (this.frto) {
      // Step 3.b: spurious if never-retransmitted data was (S)ACKed.
      if (flag & FLAG_ORIG_SACK_ACKED && this.tryUndoLoss(true)) return;
      if (seqAfter(sb.sndNxt, sb.highSeq)) {
        if (flag & FLAG_DATA_SACKED || numDupack > 0) this.frto = false; // Step 3.a: the loss was real.
      } else if (flag & FLAG_SND_UNA_ADVANCED && !recovered) {
        sb.highSeq = sb.sndNxt;
        // Step 2.b: try new data; the socket falls back to retransmitting when it has none to send.
        this.outcome.rexmit = 'new';
        return;
      }
    }
    if (recovered) {
      this.tryUndoRecovery();
      return;
    }
    if (!this.host.sackOk) {
      if (seqAfter(sb.sndNxt, sb.highSeq) && numDupack > 0) this.addRenoSack(numDupack);
      else if (flag & FLAG_SND_UNA_ADVANCED) sb.sackedOut = 0;
    }
    this.outcome.rexmit = 'lost';
  }

  /**
   * tcp_enter_loss with tcp_timeout_mark_lost, from the retransmission timer: everything
   * outstanding is lost (RACK spares what was sent within the last RTT), ssthresh drops unless
   * already reduced in this window, cwnd becomes what is in flight plus one, F-RTO arms.
   */
  enterLoss(nowUs: number, frtoEnabled: boolean): void {
    const sb = this.sb;
    const tp = this.tp;
    const newRecovery = tp.caState === 'Open' || tp.caState === 'Disorder' || tp.caState === 'CWR';
    const head = sb.queue[0];
    const isReneg = head !== undefined && (head.sacked & SACKED_ACKED) !== 0;
    if (isReneg) sb.sackedOut = 0;
    else if (!this.host.sackOk) sb.sackedOut = 0;
    for (const segment of sb.queue) {
      if (isReneg) segment.sacked &= ~SACKED_ACKED;
      else if (segment !== head && this.rack.rttUs - (nowUs - segment.xmitUs) > 0) continue; // tcp_rack_skb_timeout
      sb.markLost(segment);
    }
    if (
      tp.caState === 'Open' ||
      tp.caState === 'Disorder' ||
      !seqAfter(sb.highSeq, sb.sndUna) ||
      (tp.caState === 'Loss' && this.retransmits === 0)
    ) {
      this.priorSsthresh = this.currentSsthresh();
      tp.priorCwnd = tp.cwnd;
      tp.ssthresh = this.ca.ssthresh(tp);
      this.ca.cwndEvent(tp, 'LOSS');
      sb.initUndo();
    }
    tp.cwnd = sb.inFlight + 1;
    tp.cwndCnt = 0;
    tp.cwndStamp = tp.jiffies;
    if ((tp.caState === 'Open' || tp.caState === 'Disorder') && sb.sackedOut >= TCP_FASTRETRANS_THRESH)
      sb.reordering = Math.min(sb.reordering, TCP_FASTRETRANS_THRESH);
    this.setState('Loss');
    sb.highSeq = sb.sndNxt;
    this.frto = frtoEnabled && (newRecovery || this.retransmits > 0);
  }

  /**
   * tcp_rack_reo_timeout's reaction once detection marked more lost (Rack.detectLoss): enter
   * recovery with a PRR step of one. Returns true when the lost segments should be retransmitted.
   */
  reoTimeout(nowUs: number): boolean {
    const priorInFlight = this.sb.inFlight;
    const priorLost = this.sb.lost;
    this.rack.detectLoss(this.sb, nowUs, this.tp.caState, this.host.srttUs);
    if (priorInFlight === this.sb.inFlight) return false;
    if (this.tp.caState !== 'Recovery') {
      this.enterRecovery(false);
      this.cwndReduction(1, this.sb.lost - priorLost, 0);
    }
    return true;
  }

  /** tcp_process_tlp_ack: the loss probe's episode ends; a loss it repaired still reduces cwnd. */
  processTlpAck(ack: number, flag: number): void {
    const sb = this.sb;
    if (seqBefore(ack, sb.tlpHighSeq)) return;
    if (!this.tlpRetrans) sb.tlpHighSeq = 0;
    else if (flag & FLAG_DSACK_TLP) sb.tlpHighSeq = 0;
    else if (seqAfter(ack, sb.tlpHighSeq)) {
      this.initCwndReduction();
      this.setState('CWR');
      this.endCwndReduction();
      this.tryKeepOpen();
    } else if (!(flag & (FLAG_SND_UNA_ADVANCED | FLAG_NOT_DUP | FLAG_DATA_SACKED))) sb.tlpHighSeq = 0;
  }

  /** A loss probe went out (tcp_send_loss_probe's probe_sent). */
  probeSent(retransmitted: boolean): void {
    this.tlpRetrans = retransmitted;
    this.sb.tlpHighSeq = this.sb.sndNxt;
  }

  /**
   * tcp_xmit_retransmit_queue's next pick: the first segment marked lost and not yet retransmitted,
   * while cwnd has room and some lost ones are not retransmitted; undefined to stop.
   */
  nextRetransmit(): TxSegment | undefined {
    const sb = this.sb;
    for (const segment of sb.queue) {
      if (this.tp.cwnd - sb.inFlight <= 0) return undefined;
      if (sb.retransOut >= sb.lostOut) return undefined;
      if (!(segment.sacked & LOST)) continue;
      if (segment.sacked & (SACKED_ACKED | SACKED_RETRANS)) continue;
      return segment;
    }
    return undefined;
  }

  /** The socket retransmitted `segment` (tcp_retransmit_skb), `tsMs` its TSval clock. */
  retransmitted(segment: TxSegment, nowUs: number, tsMs: number): void {
    this.sb.retransmitted(segment, nowUs, tsMs);
    if (inCwndReduction(this.tp)) this.prrOut++;
  }

  /** tcp_write_xmit sent `count` new segments: PRR counts them while reducing. */
  newDataSent(count: number): void {
    if (inCwndReduction(this.tp)) this.prrOut += count;
  }
}
