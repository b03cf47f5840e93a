// The send path of a TCP connection: tcp_write_xmit's segmentation under cwnd, the peer's window and Nagle,
// the FIN, retransmission of what the scoreboard marks lost (small segments collapsed into it), and
// tcp_simple_retransmit after an ICMP frag-needed; not TSO/GSO.

import { finish } from './closing.ts';
import { ACK, after, before, FIN, PSH, UNREACH_ERRNO } from './constants.ts';
import type { Tcb } from './control-block.ts';
import { syncMss } from './handshake.ts';
import { checkProbeTimer } from './probe-timers.ts';
import { armRto, rearmRto, scheduleLossProbe } from './rto.ts';
import { SACKED_ACKED, type TxSegment } from './scoreboard.ts';
import { transmit } from './transmit.ts';

/**
 * tcp_xmit_retransmit_queue then tcp_write_xmit: segments marked lost first, then new ones,
 * while the congestion window, the peer's window (a whole segment must fit: tcp_snd_wnd_test)
 * and Nagle allow; then a FIN.
 */
export function pushPending(s: Tcb): void {
  if (!s.synchronized() || s.state === 'TIME_WAIT') return;
  retransmitLost(s);
  pushNew(s, false);
}

/**
 * tcp_write_xmit: new segments while cwnd, the peer's window and Nagle allow, then a FIN; a
 * loss probe (`probe`) sends one segment whatever cwnd says (push_one = 2). False when nothing left.
 */
export function pushNew(s: Tcb, probe: boolean): boolean {
  const sender = s.sender;
  let sent = 0;
  let cwndLimited = false;
  for (;;) {
    const offset = (s.sndNxt - s.bufSeq) >>> 0;
    const unsent = s.sendLen - offset;
    if (unsent <= 0) break;
    const inFlight = (s.sndNxt - s.sndUna) >>> 0;
    if (sender !== undefined && !sender.canSend() && !(probe && sent === 0)) {
      cwndLimited = true;
      break;
    }
    const len = Math.min(unsent, s.mss);
    // tcp_snd_wnd_test: the segment waits for a window it fits in whole (the persist timer probes a window too small).
    if (inFlight + len > s.sndWnd) {
      checkProbeTimer(s);
      break;
    }
    const last = len === unsent;
    // tcp_nagle_test with Minshall's check: a small segment waits while an earlier small one is unacknowledged.
    // TCP_NODELAY (TCP_NAGLE_OFF) skips the check; tcp_minshall_update still runs.
    if (!probe && !s.noDelay && len < s.mss && !(last && s.finQueued) && after(s.sndSml, s.sndUna)) break;
    const finHere = last && s.finQueued && s.finSeq < 0;
    sendData(s, offset, len, last, finHere);
    sent++;
    if (len < s.mss) s.sndSml = s.sndNxt;
    if (probe) break;
  }
  const allSent = (s.sndNxt - s.bufSeq) >>> 0 >= s.sendLen;
  const finFits = sender === undefined || sender.canSend() || (probe && sent === 0);
  if (s.finQueued && s.finSeq < 0 && allSent && !(probe && sent > 0) && !finFits) cwndLimited = true;
  else if (s.finQueued && s.finSeq < 0 && allSent && !(probe && sent > 0)) {
    s.finSeq = s.sndNxt;
    if (s.sndNxt === s.sndUna) s.headSentAt = s.stack.now;
    const priorPackets = sender?.sb.packetsOut ?? 0;
    transmit(s, FIN | ACK, s.sndNxt, 0, 0, undefined);
    s.sndNxt = (s.sndNxt + 1) >>> 0;
    sender?.sent(s.finSeq, s.sndNxt, s.stack.now);
    newDataSent(s, priorPackets);
    sent++;
  }
  if (sent > 0 || cwndLimited) cwndValidate(s, cwndLimited);
  // tcp_write_xmit's tail: a loss probe replaces the RTO while in Open state (tcp_schedule_loss_probe).
  if (sent > 0 && !probe) scheduleLossProbe(s, false);
  return sent > 0;
}

/** tcp_event_new_data_sent: the RTO starts with the first segment out, and restarts over a pending loss probe. */
export function newDataSent(s: Tcb, priorPackets: number): void {
  if (priorPackets === 0 || s.xmitKind === 'loss-probe') rearmRto(s);
}

export function sendData(s: Tcb, offset: number, len: number, push: boolean, fin: boolean): void {
  const seq = s.sndNxt;
  if (seq === s.sndUna) s.headSentAt = s.stack.now;
  s.sentMss = s.mss;
  let flags = ACK | (push ? PSH : 0);
  if (fin) {
    flags |= FIN;
    s.finSeq = (seq + len) >>> 0;
  }
  const priorPackets = s.sender?.sb.packetsOut ?? 0;
  transmit(s, flags, seq, offset, len, undefined);
  s.sndNxt = (seq + len + (fin ? 1 : 0)) >>> 0;
  s.sender?.sent(seq, s.sndNxt, s.stack.now);
  if (s.rttSeq < 0) {
    s.rttSeq = s.sndNxt;
    s.rttSentAt = s.stack.now;
  }
  // tcp_event_data_sent: a reply within ato of the last data received counts toward ping-pong mode.
  if (s.ato > 0 && s.stack.now - s.lrcvtime < s.ato && s.pingpong < 255) s.pingpong++;
  if (s.sender === undefined) armRto(s);
  else newDataSent(s, priorPackets);
}

/** tcp_is_cwnd_limited: in slow start, cwnd below twice the most ever out; else whether the last send was held by cwnd. */
export function cwndLimited(s: Tcb): boolean {
  const sender = s.sender;
  if (sender === undefined) return false;
  if (sender.tp.cwnd < sender.tp.ssthresh) return sender.tp.cwnd < 2 * s.maxPacketsOut;
  return s.isCwndLimited;
}

/** tcp_cwnd_validate after tcp_write_xmit sent something or was held by cwnd. */
export function cwndValidate(s: Tcb, isCwndLimited: boolean): void {
  const sb = s.sender?.sb;
  if (sb === undefined) return;
  if (!before(s.sndUna, s.cwndUsageSeq) || isCwndLimited || sb.packetsOut > s.maxPacketsOut) {
    s.isCwndLimited = isCwndLimited;
    s.maxPacketsOut = sb.packetsOut;
    s.cwndUsageSeq = s.sndNxt;
  }
}

/**
 * tcp_xmit_retransmit_queue: resends the segments marked lost, in order, while the congestion
 * window allows; a segment starting beyond the peer's window waits, unless it is the first
 * (__tcp_retransmit_skb).
 */
export function retransmitLost(s: Tcb): void {
  const sender = s.sender;
  if (sender === undefined) return;
  for (let segment = sender.nextRetransmit(); segment !== undefined; segment = sender.nextRetransmit()) {
    if (segment.seq !== s.sndUna && (segment.seq - s.sndUna) >>> 0 >= s.sndWnd) return;
    resend(s, segment);
    sender.retransmitted(segment, s.stack.now, s.nowMs);
  }
}

/**
 * __tcp_retransmit_skb's transmission: the segment again, from snd_una if partly acknowledged; one
 * longer than today's MSS is split (tcp_fragment) and its rest stays queued, lost, on its own.
 */
export function resend(s: Tcb, segment: TxSegment): void {
  const finEnd = s.finSeq >= 0 ? (s.finSeq + 1) >>> 0 : -1;
  const seq = before(segment.seq, s.sndUna) ? s.sndUna : segment.seq;
  let fin = segment.endSeq === finEnd;
  let len = ((segment.endSeq - seq) >>> 0) - (fin ? 1 : 0);
  if (len > s.mss) {
    s.sender?.sb.fragment(segment, ((seq - segment.seq) >>> 0) + s.mss);
    len = s.mss;
    fin = false;
  } else {
    // The window left from the segment (one MSS when there is none: the head then probes a zero window).
    let avail = ((s.sndUna + s.sndWnd - seq) | 0) > 0 ? (s.sndUna + s.sndWnd - seq) | 0 : s.mss;
    avail = Math.min(avail, s.mss);
    if (len < avail && retransTryCollapse(s, segment, len, avail)) {
      fin = segment.endSeq === finEnd;
      len = ((segment.endSeq - seq) >>> 0) - (fin ? 1 : 0);
    }
  }
  const offset = (seq - s.bufSeq) >>> 0;
  const push = offset + len === s.sendLen;
  transmit(s, ACK | (push && len > 0 ? PSH : 0) | (fin ? FIN : 0), seq, offset, len, undefined);
  s.rttSeq = -1;
}

/**
 * tcp_retrans_try_collapse: the small segments queued behind `to` (its payload `len` bytes) join it while
 * what they add fits in `space` (the window left, at most an MSS), none is SACKed and none ends beyond the
 * peer's window. True when `to` grew. Mirrors tcp_output.c; skb_cloned (a copy still held by a driver or
 * the peer on a veth) is not modelled.
 */
function retransTryCollapse(s: Tcb, to: TxSegment, len: number, space: number): boolean {
  const sb = s.sender?.sb;
  if (sb === undefined || s.sysctl('tcp_retrans_collapse') === 0) return false;
  const finEnd = s.finSeq >= 0 ? (s.finSeq + 1) >>> 0 : -1;
  const windowEnd = (s.sndUna + s.sndWnd) >>> 0;
  let left = space - len;
  let grew = false;
  for (;;) {
    const next = sb.queue[sb.queue.indexOf(to) + 1];
    // tcp_can_collapse: a segment the peer SACKed stays.
    if (next === undefined || next.sacked & SACKED_ACKED) break;
    left -= ((next.endSeq - next.seq) >>> 0) - (next.endSeq === finEnd ? 1 : 0);
    if (left < 0 || after(next.endSeq, windowEnd)) break;
    sb.collapseNext(to);
    grew = true;
  }
  return grew;
}

/**
 * tcp_simple_retransmit after tcp_v4_mtu_reduced: every segment in flight longer than the new
 * MSS is lost and goes again at once, cut to it (tcp_fragment), as the congestion window
 * allows (which it does not reduce).
 */
export function simpleRetransmit(s: Tcb): void {
  const sender = s.sender;
  if (sender === undefined || !sender.simpleRetransmit(s.mss, s.finSeq, s.stack.now)) return;
  s.sentMss = s.mss;
  retransmitLost(s);
}

/** An ICMP error about a segment we sent (tcp_v4_err); `seq` is the quoted sequence number. */
export function icmpError(s: Tcb, type: number, code: number, seq: number): void {
  if (s.closed || before(seq, s.sndUna) || !before(seq, s.sndNxt)) return;
  if (type === 3 && code === 4) {
    // tcp_v4_err: while the application holds the socket, TCP_MTU_REDUCED_DEFERRED until release_sock.
    if (s.owned) s.mtuReducedDeferred = true;
    else mtuReduced(s);
    return;
  }
  const error = type === 3 ? UNREACH_ERRNO[code] : type === 11 ? 'EHOSTUNREACH' : undefined;
  if (error === undefined) return;
  if (s.state === 'SYN_SENT') finish(s, error);
  else if (s.state === 'SYN_RECV') finish(s, undefined);
}

/** tcp_v4_mtu_reduced: the ICMP layer learned the path MTU; what was cut for the old MSS goes again at the new one. */
export function mtuReduced(s: Tcb): void {
  if (s.closed) return;
  syncMss(s, s.pathMtu());
  if (s.mss < s.sentMss && s.synchronized()) simpleRetransmit(s);
}
