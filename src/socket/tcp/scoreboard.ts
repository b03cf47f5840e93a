// The sender's retransmission-queue scoreboard (tcp_input.c: tcp_sacktag_write_queue, tcp_sacktag_one,
// tcp_check_dsack, tcp_clean_rtx_queue, tcp_mark_skb_lost): per-segment sacked/lost/retransmitted tags and
// the counters packets_in_flight is made of. It works on sequence ranges and send times, one segment per
// packet (no TSO/GSO: tcp_skb_pcount is 1, so no tcp_fragment or SACK shifting), and leaves the bytes
// to the socket. Not modelled: the SACK block cache (recv_sack_cache), NewReno's emulated SACKs for
// peers without SACK, the rate sampler beyond `delivered`.

import type { Rack } from './rack.ts';
import { seqAfter, seqBefore } from './seq.ts';

// TCP_SKB_CB(skb)->sacked tag bits (include/net/tcp.h).
/** TCPCB_SACKED_ACKED: the receiver has it out of order. */
export const SACKED_ACKED = 0x01;
/** TCPCB_SACKED_RETRANS: a retransmission is in flight. */
export const SACKED_RETRANS = 0x02;
/** TCPCB_LOST. */
export const LOST = 0x04;
/** TCPCB_EVER_RETRANS. */
export const EVER_RETRANS = 0x80;
/** TCPCB_RETRANS. */
export const RETRANS = SACKED_RETRANS | EVER_RETRANS;

// The ACK flags of tcp_input.c that the scoreboard and recovery use.
export const FLAG_DATA = 0x01;
export const FLAG_WIN_UPDATE = 0x02;
export const FLAG_DATA_ACKED = 0x04;
export const FLAG_RETRANS_DATA_ACKED = 0x08;
export const FLAG_SYN_ACKED = 0x10;
export const FLAG_DATA_SACKED = 0x20;
export const FLAG_ECE = 0x40;
export const FLAG_LOST_RETRANS = 0x80;
export const FLAG_SLOWPATH = 0x100;
export const FLAG_ORIG_SACK_ACKED = 0x200;
export const FLAG_SND_UNA_ADVANCED = 0x400;
export const FLAG_DSACKING_ACK = 0x800;
export const FLAG_SET_XMIT_TIMER = 0x1000;
export const FLAG_SACK_RENEGING = 0x2000;
export const FLAG_DSACK_TLP = 0x20000;
export const FLAG_ACKED = FLAG_DATA_ACKED | FLAG_SYN_ACKED;
export const FLAG_NOT_DUP = FLAG_DATA | FLAG_WIN_UPDATE | FLAG_ACKED;
export const FLAG_CA_ALERT = FLAG_DATA_SACKED | FLAG_ECE | FLAG_DSACKING_ACK;
export const FLAG_FORWARD_PROGRESS = FLAG_ACKED | FLAG_DATA_SACKED;

/** TCP_FASTRETRANS_THRESH, net.ipv4.tcp_reordering's default. */
export const TCP_FASTRETRANS_THRESH = 3;
/** net.ipv4.tcp_max_reordering. */
const MAX_REORDERING = 300;

/** Swaps entries j and j + 1. */
function swap(array: Uint32Array | Uint8Array, j: number): void {
  const t = array[j]!;
  array[j] = array[j + 1]!;
  array[j + 1] = t;
}

/** One sent segment in the retransmission queue. */
export interface TxSegment {
  readonly seq: number;
  /** Moves back only when the segment is split for a smaller MSS (fragment). */
  endSeq: number;
  /** The tag bits above. */
  sacked: number;
  /** skb_mstamp: when it was last (re)sent, µs. */
  xmitUs: number;
  /** tx.delivered: tp->delivered when it was last sent (tcp_rate_skb_sent). */
  txDelivered: number;
}

/** struct tcp_sacktag_state plus what tcp_clean_rtx_queue reports. */
export class AckState {
  flag = 0;
  /** Lowest never-retransmitted, newly SACKed or ACKed sequence (reordering evidence). */
  reord = 0;
  /** Send time of the first and last never-retransmitted segment SACKed by this ACK (0: none). */
  firstSackt = 0;
  lastSackt = 0;
  /** Segments newly delivered by SACK (D-SACKed ones included). */
  sackDelivered = 0;
  /** Segments cumulatively ACKed. */
  pktsAcked = 0;
  /** RTT from the first ACKed never-retransmitted segment (or SACK), -1 when none (tcp_ack_update_rtt). */
  seqRttUs = -1;
  /** RTT of the last (S)ACKed segment, for congestion control; -1 when none. */
  caRttUs = -1;
  /** rs->prior_delivered: tx.delivered of the most recently sent segment this ACK delivered (0: none). */
  priorDelivered = 0;
  private priorMstamp = 0;
  private priorEndSeq = 0;

  /** tcp_rate_skb_delivered: the most recently sent delivered segment gives prior_delivered. */
  rateDelivered(segment: TxSegment): void {
    if (
      this.priorDelivered === 0 ||
      segment.xmitUs > this.priorMstamp ||
      (segment.xmitUs === this.priorMstamp && seqAfter(segment.endSeq, this.priorEndSeq))
    ) {
      this.priorDelivered = segment.txDelivered;
      this.priorMstamp = segment.xmitUs;
      this.priorEndSeq = segment.endSeq;
    }
  }

  reset(sndNxt: number): void {
    this.flag = 0;
    this.reord = sndNxt;
    this.firstSackt = 0;
    this.lastSackt = 0;
    this.sackDelivered = 0;
    this.pktsAcked = 0;
    this.seqRttUs = -1;
    this.caRttUs = -1;
    this.priorDelivered = 0;
    this.priorMstamp = 0;
    this.priorEndSeq = 0;
  }
}

export class Scoreboard {
  /** The retransmission queue in sequence order (tcp_rtx_queue). */
  readonly queue: TxSegment[] = [];
  /** Sent segments not yet SACKed, oldest transmission first (tsorted_sent_queue). */
  readonly tsorted: TxSegment[] = [];
  packetsOut = 0;
  sackedOut = 0;
  lostOut = 0;
  retransOut = 0;
  /** tp->delivered, tp->lost, tp->total_retrans, tp->dsack_dups. */
  delivered = 0;
  lost = 0;
  totalRetrans = 0;
  dsackDups = 0;
  /** tp->reordering (starts at net.ipv4.tcp_reordering) and tp->reord_seen. */
  reordering = TCP_FASTRETRANS_THRESH;
  reordSeen = 0;
  /** End of the highest SACKed segment (tcp_highest_sack_seq while sacked_out). */
  private highestSackEnd = 0;
  /** undo_marker (0: no undo possible, as in the kernel) and undo_retrans (-1: none outstanding). */
  undoMarker = 0;
  undoRetrans = -1;
  /** high_seq: snd_nxt when recovery or loss began. */
  highSeq = 0;
  /** retrans_stamp: TS clock (ms) of the first retransmission of this episode, 0 for none. */
  retransStampMs = 0;
  /** tlp_high_seq, for D-SACKs of a loss probe. */
  tlpHighSeq = 0;
  /** The send side's current state, kept up to date by the socket. */
  sndUna = 0;
  sndNxt = 0;
  /** mss_cache and max_window. */
  mss = 1448;
  maxWindow = 0;
  /** tcp_min_rtt, µs (a running minimum; ~0 until a sample). */
  minRttUs = 0xffffffff;
  /** tcp_is_sack: without SACK, delivery is counted from duplicate ACKs (the recovery's NewReno path). */
  sackOk = true;

  /** The valid blocks of the ACK being tagged, sorted (sp[] in tcp_sacktag_write_queue). */
  private readonly blockStarts = new Uint32Array(4);
  private readonly blockEnds = new Uint32Array(4);
  private readonly blockDups = new Uint8Array(4);

  constructor(private readonly rack: Rack) {}

  /** tcp_packets_in_flight: packets_out - (sacked_out + lost_out) + retrans_out. */
  get inFlight(): number {
    return this.packetsOut - (this.sackedOut + this.lostOut) + this.retransOut;
  }

  /** tcp_left_out. */
  get leftOut(): number {
    return this.sackedOut + this.lostOut;
  }

  /** tcp_highest_sack_seq. */
  highestSackSeq(): number {
    if (this.sackedOut === 0) return this.sndUna;
    return this.highestSackEnd;
  }

  /** A new segment left (tcp_event_new_data_sent): it joins the tail of both queues. */
  sent(seq: number, endSeq: number, nowUs: number): TxSegment {
    const segment: TxSegment = { seq, endSeq, sacked: 0, xmitUs: nowUs, txDelivered: this.delivered };
    this.queue.push(segment);
    this.tsorted.push(segment);
    this.packetsOut++;
    this.sndNxt = endSeq;
    return segment;
  }

  /** The segment starting at `seq`, if queued. */
  find(seq: number): TxSegment | undefined {
    for (const segment of this.queue) if (segment.seq === seq) return segment;
    return undefined;
  }

  /**
   * __tcp_retransmit_skb / tcp_retransmit_skb: tagged RETRANS, counted in retrans_out and
   * undo_retrans, moved to the tail of the send-time order; `tsMs` starts retrans_stamp.
   */
  retransmitted(segment: TxSegment, nowUs: number, tsMs: number): void {
    if (!(segment.sacked & SACKED_RETRANS)) this.retransOut++;
    segment.sacked |= RETRANS;
    segment.xmitUs = nowUs;
    segment.txDelivered = this.delivered;
    this.totalRetrans++;
    if (this.retransStampMs === 0) this.retransStampMs = tsMs;
    if (this.undoRetrans < 0) this.undoRetrans = 0;
    this.undoRetrans++;
    this.untimed(segment);
    this.tsorted.push(segment);
  }

  /**
   * __tcp_retransmit_skb alone, as a loss probe resends the last segment: EVER_RETRANS and a new
   * send time, but not counted in retrans_out (tcp_retransmit_skb's part).
   */
  probeRetransmitted(segment: TxSegment, nowUs: number): void {
    segment.sacked |= EVER_RETRANS;
    segment.xmitUs = nowUs;
    segment.txDelivered = this.delivered;
    this.totalRetrans++;
    this.untimed(segment);
    this.tsorted.push(segment);
  }

  /**
   * tcp_fragment on the retransmission queue: `segment` keeps its first `len` sequence numbers; the
   * rest becomes the next segment, with the same tags and send time, counted in the same totals.
   */
  fragment(segment: TxSegment, len: number): TxSegment {
    const rest: TxSegment = {
      seq: (segment.seq + len) >>> 0,
      endSeq: segment.endSeq,
      sacked: segment.sacked,
      xmitUs: segment.xmitUs,
      txDelivered: segment.txDelivered,
    };
    segment.endSeq = rest.seq;
    this.queue.splice(this.queue.indexOf(segment) + 1, 0, rest);
    const timed = this.tsorted.indexOf(segment);
    if (timed >= 0) this.tsorted.splice(timed + 1, 0, rest);
    this.packetsOut++;
    if (rest.sacked & LOST) this.lostOut++;
    if (rest.sacked & SACKED_RETRANS) this.retransOut++;
    if (rest.sacked & SACKED_ACKED) this.sackedOut++;
    return rest;
  }

  /**
   * tcp_collapse_retrans: the segment queued after `segment` joins it (its range, FIN included, and
   * EVER_RETRANS) and leaves both queues and the counts it was in (tcp_adjust_pcount).
   */
  collapseNext(segment: TxSegment): void {
    const at = this.queue.indexOf(segment);
    const next = this.queue[at + 1];
    if (next === undefined) return;
    segment.endSeq = next.endSeq;
    segment.sacked |= next.sacked & EVER_RETRANS;
    this.queue.splice(at + 1, 1);
    const timed = this.tsorted.indexOf(next);
    if (timed >= 0) this.tsorted.splice(timed, 1);
    this.packetsOut--;
    if (next.sacked & SACKED_RETRANS) this.retransOut--;
    if (next.sacked & LOST) this.lostOut--;
    if (next.sacked & SACKED_ACKED) this.sackedOut--;
  }

  /** tcp_mark_skb_lost. */
  markLost(segment: TxSegment): void {
    const sacked = segment.sacked;
    if (sacked & SACKED_ACKED) return;
    if (sacked & LOST) {
      if (sacked & SACKED_RETRANS) {
        // A retransmission lost again.
        segment.sacked &= ~SACKED_RETRANS;
        this.retransOut--;
        this.lost++;
      }
    } else {
      this.lostOut++;
      segment.sacked |= LOST;
      this.lost++;
    }
  }

  /** tcp_init_undo. */
  initUndo(): void {
    this.undoMarker = this.sndUna;
    this.undoRetrans = this.retransOut > 0 ? this.retransOut : -1;
  }

  /** tcp_any_retrans_done. */
  anyRetransDone(): boolean {
    if (this.retransOut > 0) return true;
    const head = this.queue[0];
    return head !== undefined && (head.sacked & EVER_RETRANS) !== 0;
  }

  /**
   * tcp_sacktag_write_queue: the SACK blocks of an ACK (edges as start, end pairs) tag the queue;
   * a first block below the ACK or inside the second is a D-SACK (tcp_check_dsack).
   */
  sacktag(
    edges: ArrayLike<number>,
    count: number,
    ackSeq: number,
    priorSndUna: number,
    nowUs: number,
    state: AckState,
  ): number {
    state.reord = this.sndNxt;
    if (count === 0) return 0;
    // tcp_highest_sack_reset.
    if (this.sackedOut === 0) this.highestSackEnd = this.queue[0]?.seq ?? this.sndUna;
    const foundDup = this.checkDsack(edges, count, ackSeq, priorSndUna, state);
    // Eliminate too old ACKs.
    if (seqBefore(ackSeq, (priorSndUna - this.maxWindow) >>> 0)) return 0;
    if (this.packetsOut === 0) return state.flag;
    const starts = this.blockStarts;
    const ends = this.blockEnds;
    const dups = this.blockDups;
    let used = 0;
    for (let i = 0; i < count && i < 4; i++) {
      const dup = i === 0 && foundDup;
      const start = edges[2 * i]! >>> 0;
      const end = edges[2 * i + 1]! >>> 0;
      if (!this.sackBlockValid(dup, start, end)) continue;
      // Ignore very old stuff early.
      if (!seqAfter(end, priorSndUna)) continue;
      starts[used] = start;
      ends[used] = end;
      dups[used] = dup ? 1 : 0;
      used++;
    }
    // Order the blocks for an in-order walk of the queue.
    for (let i = used - 1; i > 0; i--) {
      for (let j = 0; j < i; j++) {
        if (seqAfter(starts[j]!, starts[j + 1]!)) {
          swap(starts, j);
          swap(ends, j);
          swap(dups, j);
        }
      }
    }
    for (let i = 0; i < used; i++) this.sacktagWalk(starts[i]!, ends[i]!, dups[i] === 1, nowUs, state);
    this.checkSackReordering(state.reord);
    return state.flag;
  }

  /** tcp_sacktag_walk over the queued segments wholly inside [start, end). */
  private sacktagWalk(start: number, end: number, dup: boolean, nowUs: number, state: AckState): void {
    for (const segment of this.queue) {
      if (!seqBefore(segment.seq, end)) break;
      const inSack = !seqAfter(start, segment.seq) && !seqBefore(end, segment.endSeq);
      if (!inSack) continue;
      if (!(segment.sacked & SACKED_ACKED)) state.rateDelivered(segment);
      segment.sacked = this.sacktagOne(
        state,
        segment.sacked,
        segment.seq,
        segment.endSeq,
        dup,
        segment.xmitUs,
        nowUs,
      );
      if (segment.sacked & SACKED_ACKED) this.untimed(segment);
      // tcp_advance_highest_sack.
      if (!seqBefore(segment.seq, this.highestSackEnd)) this.highestSackEnd = segment.endSeq;
    }
  }

  /** tcp_sacktag_one: the newly SACKed range's tags and counters. */
  private sacktagOne(
    state: AckState,
    sacked: number,
    start: number,
    end: number,
    dup: boolean,
    xmitUs: number,
    nowUs: number,
  ): number {
    // Account D-SACK for a retransmitted packet.
    if (dup && sacked & RETRANS) {
      if (this.undoMarker !== 0 && this.undoRetrans > 0 && seqAfter(end, this.undoMarker))
        this.undoRetrans = Math.max(0, this.undoRetrans - 1);
      if (sacked & SACKED_ACKED && seqBefore(start, state.reord)) state.reord = start;
    }
    // Nothing to do; acked frame is about to be dropped.
    if (!seqAfter(end, this.sndUna)) return sacked;
    if (!(sacked & SACKED_ACKED)) {
      this.rack.advance(sacked, end, xmitUs, nowUs, this.minRttUs);
      if (sacked & SACKED_RETRANS) {
        // Not lost: the retransmission is believed still in flight.
        if (sacked & LOST) {
          sacked &= ~(LOST | SACKED_RETRANS);
          this.lostOut--;
          this.retransOut--;
        }
      } else {
        if (!(sacked & RETRANS)) {
          // A never-retransmitted segment in a hole: reordering.
          if (seqBefore(start, this.highestSackSeq()) && seqBefore(start, state.reord)) state.reord = start;
          if (!seqAfter(end, this.highSeq)) state.flag |= FLAG_ORIG_SACK_ACKED;
          if (state.firstSackt === 0) state.firstSackt = xmitUs;
          state.lastSackt = xmitUs;
        }
        if (sacked & LOST) {
          sacked &= ~LOST;
          this.lostOut--;
        }
      }
      sacked |= SACKED_ACKED;
      state.flag |= FLAG_DATA_SACKED;
      this.sackedOut++;
      state.sackDelivered++;
    }
    // D-SACK: a redundant retransmission of an S|R or plain R segment.
    if (dup && sacked & SACKED_RETRANS) {
      sacked &= ~SACKED_RETRANS;
      this.retransOut--;
    }
    return sacked;
  }

  /** tcp_is_sackblock_valid: between snd_una and snd_nxt; a D-SACK may reach down to undo_marker. */
  private sackBlockValid(dup: boolean, start: number, end: number): boolean {
    if (seqAfter(end, this.sndNxt) || !seqBefore(start, end)) return false;
    if (!seqBefore(start, this.sndNxt)) return false;
    if (seqAfter(start, this.sndUna)) return true;
    if (!dup || this.undoMarker === 0) return false;
    if (seqAfter(end, this.sndUna)) return false;
    if (!seqBefore(start, this.undoMarker)) return true;
    if (!seqAfter(end, this.undoMarker)) return false;
    return !seqBefore(start, (end - this.maxWindow) >>> 0);
  }

  /** tcp_check_dsack and tcp_dsack_seen. */
  private checkDsack(
    edges: ArrayLike<number>,
    count: number,
    ackSeq: number,
    priorSndUna: number,
    state: AckState,
  ): boolean {
    const start0 = edges[0]! >>> 0;
    const end0 = edges[1]! >>> 0;
    if (!seqBefore(start0, ackSeq)) {
      if (count < 2) return false;
      const start1 = edges[2]! >>> 0;
      const end1 = edges[3]! >>> 0;
      if (seqAfter(end0, end1) || seqBefore(start0, start1)) return false;
    }
    const dupSegs = this.dsackSeen(start0, end0, state);
    if (dupSegs === 0) return false;
    // D-SACK for already forgotten data: dumb counting.
    if (
      this.undoMarker !== 0 &&
      this.undoRetrans > 0 &&
      !seqAfter(end0, priorSndUna) &&
      seqAfter(end0, this.undoMarker)
    )
      this.undoRetrans = Math.max(0, this.undoRetrans - dupSegs);
    return true;
  }

  /** tcp_dsack_seen: counts the duplicate segments unless the D-SACK looks dubious. */
  private dsackSeen(start: number, end: number, state: AckState): number {
    if (!seqBefore(start, end)) return 0;
    const len = (end - start) >>> 0;
    if (len > this.maxWindow) return 0;
    let dupSegs = 1;
    if (len > this.mss) dupSegs = Math.ceil(len / this.mss);
    else if (this.tlpHighSeq !== 0 && this.tlpHighSeq === end) state.flag |= FLAG_DSACK_TLP;
    this.dsackDups += dupSegs;
    if (this.dsackDups > this.totalRetrans) return 0;
    if (this.reordSeen > 0 && !(state.flag & FLAG_DSACK_TLP)) this.rack.dsackSeen = true;
    state.flag |= FLAG_DSACKING_ACK;
    state.sackDelivered += dupSegs;
    return dupSegs;
  }

  /** tcp_check_sack_reordering: the distance from low_seq to the highest SACK, in segments. */
  checkSackReordering(lowSeq: number): void {
    const fack = this.highestSackSeq();
    if (!seqBefore(lowSeq, fack)) return;
    const metric = (fack - lowSeq) >>> 0;
    if (metric > this.reordering * this.mss && this.mss > 0)
      this.reordering = Math.min(Math.ceil(metric / this.mss), MAX_REORDERING);
    this.reordSeen++;
  }

  /**
   * tcp_clean_rtx_queue for a cumulative ACK up to snd_una (already advanced): the ACKed segments
   * leave the queue; RTT samples skip retransmitted ones (Karn); RACK advances on the rest.
   * `tsEcrMs` is the echoed timestamp less our offset (0 without one), for tcp_skb_spurious_retrans.
   */
  cleanRtxQueue(priorFack: number, nowUs: number, tsEcrMs: number, state: AckState): number {
    let reord = this.sndNxt;
    let firstAckt = 0;
    let lastAckt = 0;
    let flag = 0;
    while (this.queue.length > 0) {
      const segment = this.queue[0]!;
      if (seqAfter(segment.endSeq, this.sndUna)) break;
      const sacked = segment.sacked;
      if (sacked & RETRANS) {
        if (sacked & SACKED_RETRANS) this.retransOut--;
        flag |= FLAG_RETRANS_DATA_ACKED;
      } else if (!(sacked & SACKED_ACKED)) {
        lastAckt = segment.xmitUs;
        if (firstAckt === 0) firstAckt = lastAckt;
        if (seqBefore(segment.seq, reord)) reord = segment.seq;
        if (!seqAfter(segment.endSeq, this.highSeq)) flag |= FLAG_ORIG_SACK_ACKED;
      }
      if (sacked & SACKED_ACKED) this.sackedOut--;
      else if (this.sackOk) {
        this.delivered++;
        const spurious =
          sacked & RETRANS && tsEcrMs !== 0 && seqBefore(tsEcrMs, Math.floor(segment.xmitUs / 1000));
        if (!spurious) this.rack.advance(sacked, segment.endSeq, segment.xmitUs, nowUs, this.minRttUs);
      }
      if (sacked & LOST) this.lostOut--;
      if (!(sacked & SACKED_ACKED)) state.rateDelivered(segment);
      this.packetsOut--;
      state.pktsAcked++;
      flag |= FLAG_DATA_ACKED;
      this.queue.shift();
      this.untimed(segment);
    }
    const head = this.queue[0];
    if (head !== undefined && head.sacked & SACKED_ACKED) flag |= FLAG_SACK_RENEGING;
    let sackRttUs = -1;
    if (firstAckt !== 0 && !(flag & FLAG_RETRANS_DATA_ACKED)) {
      state.seqRttUs = nowUs - firstAckt;
      state.caRttUs = nowUs - lastAckt;
    }
    if (state.firstSackt !== 0) {
      sackRttUs = nowUs - state.firstSackt;
      state.caRttUs = nowUs - state.lastSackt;
    }
    // tcp_ack_update_rtt: the cumulative sample first, else the SACK one (timestamps are the socket's).
    if (state.seqRttUs < 0) state.seqRttUs = sackRttUs;
    const rttUpdate = state.seqRttUs >= 0;
    // tcp_update_rtt_min (a running minimum, not the 5-minute windowed filter).
    if (rttUpdate && state.caRttUs >= 0)
      this.minRttUs = Math.min(this.minRttUs, state.caRttUs === 0 ? 1000 : state.caRttUs);
    if (flag & FLAG_ACKED) {
      flag |= FLAG_SET_XMIT_TIMER;
      // A non-retransmitted hole got filled: reordering.
      if (seqBefore(reord, priorFack)) this.checkSackReordering(reord);
    } else if (head !== undefined && rttUpdate && sackRttUs >= 0 && sackRttUs > nowUs - head.xmitUs) {
      flag |= FLAG_SET_XMIT_TIMER;
    }
    state.flag |= flag;
    return flag;
  }

  /** Out of the send-time order (SACKed, ACKed or about to be re-sent). */
  private untimed(segment: TxSegment): void {
    const at = this.tsorted.indexOf(segment);
    if (at >= 0) this.tsorted.splice(at, 1);
  }
}
