// The receive path of a TCP connection: tcp_rcv_state_process's sequence checks, tcp_ack's processing and the
// sender's loss model fed from it, in-order data into the receive queue and out-of-order data to ofo-
// queue.ts, and tcp_event_data_recv; not the ACK policy (ack-policy.ts) nor the window arithmetic
// (window.ts).

import type { Packet } from '../../core/packet.ts';
import { TCP_HEADER_LEN, type TcpView } from '../../wire/tcp.ts';
import { ackCheck, enterQuickackMode, incrQuickack } from './ack-policy.ts';
import { wakeReader } from './application.ts';
import { enterTimeWait, finish, finReceived, lingerEnded, receiveInTimeWait, reset } from './closing.ts';
import { ACK_PUSHED, ACK_PUSHED2, ACK_SCHED, ATO_MIN, after, before, MS, TS_ALIGNED } from './constants.ts';
import type { Tcb } from './control-block.ts';
import { establish, receiveInSynSent, sendSynAck } from './handshake.ts';
import { ackProbe } from './probe-timers.ts';
import { rcvbufGrow, rttMeasure, rttMeasureTs } from './rcv-autotune.ts';
import { armRto, cancelRto, rearmRto, resetXmitTimer, sampleRtt, scheduleLossProbe } from './rto.ts';
import { FLAG_DATA, FLAG_WIN_UPDATE } from './scoreboard.ts';
import { cwndLimited, pushNew, pushPending, retransmitLost } from './send-path.ts';
import { seqAfter, seqBefore } from './seq.ts';
import { countIn } from './stats.ts';
import { bufferSysctl } from './sysctl.ts';
import { sendAck, sendReset } from './transmit.ts';
import {
  growWindow,
  measureScalingRatio,
  receiveWindow,
  SEGMENT_OVERHEAD,
  TCP_MSS_DEFAULT,
  winFromSpace,
} from './window.ts';

/** tcp_v4_do_rcv → tcp_rcv_state_process. */
export function processSegment(s: Tcb, view: TcpView, pkt: Packet): void {
  if (s.closed) return;
  countIn(s, view);
  if (s.state === 'SYN_SENT') {
    receiveInSynSent(s, view, pkt);
    return;
  }
  if (s.state === 'TIME_WAIT') {
    receiveInTimeWait(s, view);
    return;
  }
  const seq = view.seqNumber;
  const payloadLen = view.segmentLen - view.headerLen;
  s.received.parse(view, false);

  if (s.state === 'SYN_RECV') {
    if (view.rst) {
      finish(s, undefined);
      return;
    }
    if (view.syn && !view.ack) {
      // tcp_check_req: a retransmitted SYN gets the SYN-ACK again.
      sendSynAck(s);
      return;
    }
    if (!view.ack) return;
    if (view.ackNumber !== s.sndNxt) {
      sendReset(s, pkt);
      return;
    }
    s.sndUna = view.ackNumber;
    s.sndWnd = view.window * 2 ** s.sndWscale;
    s.sndWl1 = seq;
    establish(s);
    s.host.established(s.socket);
    // The accepting application may have ended or closed the socket already.
    if (s.closed) return;
  }

  const rcvNxt = s.window.rcvNxt;
  const segEnd = (seq + payloadLen + (view.fin ? 1 : 0)) >>> 0;
  // tcp_sequence: a segment that ends before the window last advertised (a zero-window probe at
  // snd_una - 1) is answered with a duplicate ACK, at most one per tcp_invalid_ratelimit for one without data.
  if (before(segEnd, s.window.rcvWup) && !view.rst) {
    if (view.syn || !oowRateLimited(s, segEnd !== seq)) sendAck(s);
    return;
  }
  if (view.rst) {
    if (seq === rcvNxt) reset(s);
    return;
  }
  if (view.syn) {
    // tcp_validate_incoming: a SYN on a synchronized connection gets a challenge ACK.
    sendAck(s);
    return;
  }
  if ((payloadLen > 0 || view.fin) && seq !== rcvNxt && !inReceiveWindow(s, seq, segEnd)) {
    // tcp_send_dupack: an old segment is D-SACKed (up to rcv_nxt), in quick-ACK mode.
    if (seqBefore(seq, rcvNxt)) {
      enterQuickackMode(s);
      s.sack.dsackSet(seq, seqAfter(segEnd, rcvNxt) ? rcvNxt : segEnd);
    }
    sendAck(s);
    return;
  }
  if (!view.ack) return;
  if (s.tsOk && s.received.sawTimestamp && !after(seq, s.window.rcvWup)) s.tsRecent = s.received.tsVal;

  if (!processAck(s, view)) return;
  if (s.closed) return;
  // tcp_rcv_established: the receiver's RTT from the echoed timestamp, before the data is queued.
  if (payloadLen > 0 && s.tsOk && s.received.sawTimestamp) rttMeasureTs(s, payloadLen);

  let fin = false;
  let queued = false;
  let ackNow = false;
  const start = view.offset + view.headerLen;
  const carriesData = (payloadLen > 0 || view.fin) && s.acceptsData();
  if (carriesData) s.sack.clearDsack();
  if (carriesData && seqAfter(seq, s.window.rcvNxt)) {
    // tcp_data_queue_ofo: held until the hole fills; the ACK goes now, with the SACK blocks.
    queueOfo(s, seq, view.bytes.slice(start, start + payloadLen), view.fin);
    s.ackPending |= ACK_SCHED;
    ackNow = true;
  } else if (payloadLen > 0 && s.acceptsData()) {
    if (receiveWindow(s.window) === 0) {
      // tcp_data_queue: no window left; the segment is dropped and answered at once.
      enterQuickackMode(s);
      s.ackPending |= ACK_SCHED;
      ackCheck(s);
      pushPending(s);
      return;
    }
    // tcp_try_rmem_schedule: a buffer already overcommitted grows to what it holds (tcp_prune_queue → tcp_clamp_window).
    if (s.window.rmemAlloc > s.window.rcvbuf) clampWindow(s);
    // In order, or its head already received (D-SACKed, tcp_data_queue's partial packet).
    const skip = (s.window.rcvNxt - seq) >>> 0;
    if (skip > 0) s.sack.dsackSet(seq, s.window.rcvNxt);
    // tcp_queue_rcv: the segment is charged to the receive buffer before tcp_event_data_recv.
    s.window.rcvNxt = (seq + payloadLen) >>> 0;
    s.window.rmemAlloc += payloadLen - skip + SEGMENT_OVERHEAD;
    s.rcvQueue.push(view.bytes.slice(start + skip, start + payloadLen));
    dataReceived(s, view, payloadLen);
    queued = true;
    if (!s.ofo.empty) {
      drainOfo(s);
      // RFC 5681 4.2: ACK at once when the gap is filled.
      if (s.ofo.empty) ackNow = true;
      fin = s.ofo.drainedFin;
    }
    if (s.sack.numSacks > 0) s.sack.remove(s.window.rcvNxt, s.ofo.empty);
  }
  if (!fin && view.fin && !seqAfter(seq, s.window.rcvNxt) && segEnd === (s.window.rcvNxt + 1) >>> 0) {
    s.window.rcvNxt = segEnd;
    fin = true;
  }
  if (fin) {
    s.rcvShutdown = true;
    s.endPending = true;
    finReceived(s);
  }
  if (ackNow && !s.closed && s.ackPending & ACK_SCHED) sendAck(s);
  else if (queued || fin) ackCheck(s);
  pushPending(s);
  if (!s.readPaused) wakeReader(s);
  // Both FINs are through: the application's socket is closed while TIME_WAIT holds the 4-tuple.
  if (s.isTimeWait() && !s.orphan && !s.reportedClose && !s.endPending) {
    s.reportedClose = true;
    s.socket.onClose?.(s.socket, undefined);
  }
}

/** tcp_oow_rate_limited: data segments are never limited; others get one answer per tcp_invalid_ratelimit ms. */
export function oowRateLimited(s: Tcb, hasData: boolean): boolean {
  if (hasData) return false;
  const now = s.stack.now;
  if (s.lastOowAck >= 0 && now - s.lastOowAck < s.sysctl('tcp_invalid_ratelimit') * MS) return true;
  s.lastOowAck = now;
  return false;
}

/** tcp_sequence: some of [seq, segEnd) falls in [rcv_nxt, rcv_nxt + rcv_wnd) (zero-length segments at rcv_nxt only). */
export function inReceiveWindow(s: Tcb, seq: number, segEnd: number): boolean {
  const rcvNxt = s.window.rcvNxt;
  const windowEnd = (rcvNxt + s.window.rcvWnd) >>> 0;
  return seqAfter(segEnd, rcvNxt) && seqBefore(seq, windowEnd);
}

/**
 * tcp_data_queue_ofo's accounting: a segment kept or coalesced grows the window first when SACK is on
 * (tcp_grow_window; a flow without SACK keeps its window so duplicate ACKs go), then is charged to the
 * receive buffer (skb_set_owner_r), so out-of-order bytes narrow the window advertised.
 */
function queueOfo(s: Tcb, seq: number, data: Uint8Array, fin: boolean): void {
  const charged = s.ofo.truesize;
  const outcome = s.ofo.insert(seq, data, fin);
  if (outcome !== 'dropped') chargeOfo(s, outcome === 'coalesced', data.length, charged);
  // 6.16's "adjust rcvbuf in presence of reorders", at tcp_data_queue_ofo's end (a duplicate too): the
  // buffer covers what the queue spans (accepted sockets only).
  if (!s.orphan) rcvbufGrow(s, s.autotune.space);
}

/** The kept or coalesced segment grows the window (SACK flows), then is charged to the receive buffer. */
function chargeOfo(s: Tcb, coalesced: boolean, length: number, charged: number): void {
  // A coalesced segment counts its payload only (truesize_adjust); one kept on its own its whole truesize,
  // which still backs no more window than its payload for a full segment (check #1 passes; smaller ones
  // would need __tcp_grow_window, not modelled, and do not grow the window here).
  const grows = coalesced || winFromSpace(s.window, length + SEGMENT_OVERHEAD) <= length;
  if (s.sackOk && grows && growWindow(s.window, length, s.tcpAdvmss)) s.quick |= 1;
  s.window.rmemAlloc += s.ofo.truesize - charged;
}

/** tcp_ofo_queue: what the out-of-order queue releases joins the receive queue, already charged; what rcv_nxt passed is freed. */
export function drainOfo(s: Tcb): void {
  s.window.rcvNxt = s.ofo.drain(s.window.rcvNxt, (piece) => s.rcvQueue.push(piece));
  s.window.rmemAlloc -= s.ofo.drainFreed;
}

/** tcp_ack: advances snd_una, updates the send window, samples RTT, handles our FIN being acknowledged. */
export function processAck(s: Tcb, view: TcpView): boolean {
  const ack = view.ackNumber;
  if (after(ack, s.sndNxt)) {
    sendAck(s);
    return false;
  }
  const seq = view.seqNumber;
  const window = view.window * 2 ** s.sndWscale;
  if (!before(ack, s.sndUna)) {
    // tcp_ack: something worked; keepalive probes start over.
    s.probesOut = 0;
    s.rcvTstamp = s.stack.now;
  }
  let flag = view.segmentLen > view.headerLen ? FLAG_DATA : 0;
  // tcp_may_update_window.
  if (after(ack, s.sndUna) || after(seq, s.sndWl1) || (seq === s.sndWl1 && window > s.sndWnd)) {
    s.sndWnd = window;
    s.sndWl1 = seq;
    flag |= FLAG_WIN_UPDATE;
    if (s.sender !== undefined && window > s.sender.sb.maxWindow) s.sender.sb.maxWindow = window;
  }
  if (!after(ack, s.sndUna)) {
    if (s.sender !== undefined && s.sndNxt !== s.sndUna) senderAck(s, ack, flag);
    if (s.sndNxt === s.sndUna && s.synchronized()) ackProbe(s);
    return true;
  }
  const acked = (ack - s.sndUna) >>> 0;
  const finAcked = s.finSeq >= 0 && !before(ack, (s.finSeq + 1) >>> 0);
  const dataAcked = Math.min(acked - (finAcked ? 1 : 0), s.sendLen);
  if (dataAcked > 0) {
    s.sendBuf.copyWithin(0, dataAcked, s.sendLen);
    s.sendLen -= dataAcked;
    s.bufSeq = (s.bufSeq + dataAcked) >>> 0;
  }
  s.sndUna = ack;
  // The next segment becomes the oldest; tcp_retries2's budget counts from now (retrans_stamp is not kept per segment).
  s.headSentAt = s.stack.now;
  sampleRtt(s, ack);
  s.retransmits = 0;
  if (s.sender !== undefined) senderAck(s, ack, flag);
  else if (s.sndUna === s.sndNxt) cancelRto(s);
  else armRto(s, true);
  if (finAcked) {
    if (s.state === 'FIN_WAIT1') {
      s.state = 'FIN_WAIT2';
      lingerEnded(s, false);
    } else if (s.state === 'CLOSING') enterTimeWait(s);
    else if (s.state === 'LAST_ACK') {
      finish(s, undefined);
      return false;
    }
  }
  return true;
}

/**
 * tcp_ack's loss path for an ACK up to snd_nxt (duplicates included): the scoreboard tags SACK
 * blocks and cleans the queue, RACK and the recovery states decide, CUBIC moves cwnd; then
 * tcp_xmit_recovery resends what is lost, and the transmit timer is armed for RACK's
 * reordering window, else a loss probe (tcp_set_xmit_timer), else the RTO.
 */
export function senderAck(s: Tcb, ack: number, flag: number): void {
  const sender = s.sender;
  if (sender === undefined) return;
  const received = s.received;
  const tsEcr = s.tsOk && received.sawTimestamp ? (received.tsEcr - s.tsOffset) >>> 0 : 0;
  const out = sender.ack(
    {
      ack,
      flag,
      sackEdges: received.sackEdges,
      sackCount: s.sackOk ? received.sackCount : 0,
      tsEcrMs: tsEcr,
      cwndLimited: cwndLimited(s),
    },
    s.stack.now,
  );
  if (out.old) return;
  if (out.rexmit === 'new') {
    // tcp_xmit_recovery, REXMIT_NEW (F-RTO): new data first; the lost ones only once none went beyond high_seq.
    pushNew(s, false);
    if (!after(s.sndNxt, sender.sb.highSeq)) retransmitLost(s);
  } else if (out.rexmit === 'lost') retransmitLost(s);
  if (s.sndUna === s.sndNxt) cancelRto(s);
  else if (out.reoTimeout > 0) resetXmitTimer(s, 'reo-timeout', out.reoTimeout * MS);
  else if (out.setXmitTimer && !scheduleLossProbe(s, true)) rearmRto(s);
}

/**
 * tcp_event_data_recv and tcp_measure_rcv_mss: schedules an ACK, re-measures the receive MSS and
 * the buffer's scaling ratio, samples the receiver's RTT per window (tcp_rcv_rtt_measure), runs the
 * quick-ACK / ATO estimator and grows the window.
 */
export function dataReceived(s: Tcb, view: TcpView, payloadLen: number): void {
  s.ackPending |= ACK_SCHED;
  const lss = s.lastSegSize;
  s.lastSegSize = 0;
  if (payloadLen >= s.rcvMss) {
    measureScalingRatio(s.window, payloadLen, s.rcvMss);
    s.rcvMss = Math.min(payloadLen, s.tcpAdvmss);
    if (view.psh) s.ackPending |= ACK_PUSHED;
  } else {
    const withHeader = payloadLen + view.headerLen;
    const remnant = view.fin || view.urg || view.rst || view.psh;
    let measured = false;
    if (withHeader >= TCP_MSS_DEFAULT + TCP_HEADER_LEN || (withHeader >= 88 + TCP_HEADER_LEN && !remnant)) {
      const len = withHeader - TCP_HEADER_LEN - (s.tsOk ? TS_ALIGNED : 0);
      s.lastSegSize = len;
      if (len === lss) {
        s.rcvMss = len;
        measured = true;
      }
    }
    if (!measured) {
      if (s.ackPending & ACK_PUSHED) s.ackPending |= ACK_PUSHED2;
      s.ackPending |= ACK_PUSHED;
    }
  }
  rttMeasure(s);
  const now = s.stack.now;
  if (s.ato === 0) {
    incrQuickack(s);
    s.ato = ATO_MIN;
  } else {
    const gap = now - s.lrcvtime;
    if (gap <= ATO_MIN / 2) s.ato = Math.floor(s.ato / 2) + ATO_MIN / 2;
    else if (gap < s.ato) s.ato = Math.min(Math.floor(s.ato / 2) + gap, s.rto);
    else if (gap > s.rto) incrQuickack(s);
  }
  s.lrcvtime = now;
  // tcp_grow_window for segments of 128 bytes or more; a window that grew is acknowledged at once (quick |= 1).
  if (payloadLen >= 128 && growWindow(s.window, payloadLen, s.tcpAdvmss)) s.quick |= 1;
}

/**
 * tcp_clamp_window: out of quick-ACK mode; the buffer grows to what is allocated, up to
 * tcp_rmem[2], unless SO_RCVBUF locked it; still overcommitted, rcv_ssthresh falls to two segments.
 */
export function clampWindow(s: Tcb): void {
  s.quick = 0;
  const max = bufferSysctl(s.stack.sysctls, 'tcp_rmem', 2);
  if (s.window.rcvbuf < max && !s.rcvbufLocked) s.window.rcvbuf = Math.min(s.window.rmemAlloc, max);
  if (s.window.rmemAlloc > s.window.rcvbuf)
    s.window.rcvSsthresh = Math.min(s.window.windowClamp, 2 * s.tcpAdvmss);
}
