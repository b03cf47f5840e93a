// Receive-buffer autotuning (Dynamic Right-Sizing) as Linux 6.18 does it: the receiver's RTT estimate
// (tcp_rcv_rtt_measure per window, tcp_rcv_rtt_measure_ts from echoed timestamps, tcp_rcv_rtt_update),
// the bytes the application read per estimated RTT (tcp_rcv_space_adjust, called after each segment
// tcp_recvmsg copies) and the buffer and window clamp they grow to (tcp_rcvbuf_grow); SO_RCVBUF's lock
// and tcp_moderate_rcvbuf = 0 turn the growth off. Not modelled: usec timestamps (tcp_usec_ts), memory
// pressure, and tcp_rcvbuf_low_rtt (a 6.19 knob this kernel does not have).

import { INIT_CWND, MS, RMEM_MAX } from './constants.ts';
import type { Tcb } from './control-block.ts';
import { bufferSysctl } from './sysctl.ts';
import { winFromSpace } from './window.ts';

/** TCP_RMEM_TO_WIN_SCALE. */
const RMEM_TO_WIN_SCALE = 8;
/** SOCK_MIN_RCVBUF: the smallest buffer SO_RCVBUF sets (2048 + the cache-aligned struct sk_buff, doubled). */
export const SOCK_MIN_RCVBUF = 2 * (2048 + 256);
/** INT_MAX / (USEC_PER_SEC / TCP_TS_HZ): tcp_rtt_tsopt_us's bound on a millisecond delta. */
const TS_DELTA_MAX = Math.floor(2147483647 / 1000);

/** tp->rcv_rtt_est, tp->rcv_rtt_last_tsecr and tp->rcvq_space; times in virtual ns (the kernel keeps tcp_mstamp µs). */
export interface ReceiveAutotune {
  /** rcv_rtt_est.rtt_us: the receiver's RTT estimate in µs, scaled by 8 (tcpi_rcv_rtt is it >> 3); 0 before a sample. */
  rttUs: number;
  /** rcv_rtt_est.seq: the window-based sample ends when rcv_nxt reaches it. */
  rttSeq: number;
  /** rcv_rtt_est.time: when the window-based sample started; -1 before the first data (the kernel's 0). */
  rttTime: number;
  /** rcv_rtt_last_tsecr: the echoed timestamp of the last segment sampled. */
  lastTsecr: number;
  /** rcvq_space.space: the bytes the application read in the last measured RTT (tcpi_rcv_space). */
  space: number;
  /** rcvq_space.seq: copied_seq when the measure started. */
  seq: number;
  /** rcvq_space.time. */
  time: number;
}

export function newReceiveAutotune(): ReceiveAutotune {
  return { rttUs: 0, rttSeq: 0, rttTime: -1, lastTsecr: 0, space: 0, seq: 0, time: 0 };
}

/** µs between two virtual-ns instants (tcp_stamp_us_delta, never negative). */
function deltaUs(now: number, then: number): number {
  return Math.max(0, Math.floor(now / 1000) - Math.floor(then / 1000));
}

/** The part of tcp_init_buffer_space that starts DRS: the first space is ten segments, at most the window offered. */
export function initReceiveSpace(s: Tcb): void {
  const drs = s.autotune;
  drs.time = s.stack.now;
  drs.seq = s.copiedSeq;
  drs.space = Math.min(s.window.rcvSsthresh, s.window.rcvWnd, INIT_CWND * s.tcpAdvmss);
}

/**
 * tcp_rcv_rtt_update (6.16's "always seek for minimal rtt", "skip big rtt sample if receive queue is not
 * empty"): a smaller sample is latched at once; a larger one is dropped when window-based, smoothed
 * (7/8 old + 1/8 new) when it came from a timestamp and nothing waits unread.
 */
function rttUpdate(s: Tcb, sampleUs: number, windowBased: boolean): void {
  const drs = s.autotune;
  const old = drs.rttUs;
  const scaled = sampleUs * 8;
  if (old === 0 || scaled < old) {
    drs.rttUs = scaled;
    return;
  }
  if (windowBased) return;
  if (s.window.rcvNxt !== s.copiedSeq) return;
  drs.rttUs = (old - (old >>> 3) + sampleUs) >>> 0;
}

/**
 * tcp_rcv_rtt_measure, from tcp_event_data_recv: one sample per window received, the time from the
 * segment that opened it to the one that reaches rcv_nxt + rcv_wnd (at least 1 µs).
 */
export function rttMeasure(s: Tcb): void {
  const drs = s.autotune;
  const now = s.stack.now;
  if (drs.rttTime >= 0) {
    if (((s.window.rcvNxt - drs.rttSeq) | 0) < 0) return;
    rttUpdate(s, Math.max(1, deltaUs(now, drs.rttTime)), true);
  }
  drs.rttSeq = (s.window.rcvNxt + s.window.rcvWnd) >>> 0;
  drs.rttTime = now;
}

/**
 * tcp_rcv_rtt_measure_ts for a segment with timestamps: a new echoed TSval on a segment of at least
 * rcv_mss bytes gives now - TSecr (tcp_rtt_tsopt_us with min_delta 0: a zero millisecond delta is no
 * sample since 6.16's "remove zero TCP TS samples for autotuning"; the window-based sample stays).
 */
export function rttMeasureTs(s: Tcb, payloadLen: number): void {
  const drs = s.autotune;
  const tsecr = s.received.tsEcr;
  if (tsecr === drs.lastTsecr) return;
  drs.lastTsecr = tsecr;
  if (payloadLen < s.rcvMss) return;
  const deltaMs = (s.nowMs - ((tsecr - s.tsOffset) >>> 0)) >>> 0;
  if (deltaMs === 0 || deltaMs >= TS_DELTA_MAX) return;
  rttUpdate(s, deltaMs * (MS / 1000), false);
}

/**
 * tcp_rcv_space_adjust, after tcp_recvmsg copied a segment (copied_seq already advanced): once an
 * estimated RTT passed since the measure started, the bytes read in it less what still waits
 * (6.16's `copied -= inq`) become the new space when larger, and the buffer grows for it.
 */
export function spaceAdjust(s: Tcb): void {
  const drs = s.autotune;
  if (drs.rttUs === 0) return;
  const now = s.stack.now;
  if (deltaUs(now, drs.time) < drs.rttUs >>> 3) return;
  const inq = (s.window.rcvNxt - s.copiedSeq) | 0;
  const copied = ((s.copiedSeq - drs.seq) | 0) - inq;
  if (copied > drs.space) rcvbufGrow(s, copied);
  drs.seq = s.copiedSeq;
  drs.time = now;
}

/**
 * tcp_rcvbuf_grow with 6.18's "fix too slow tcp_rcvbuf_grow() action": the window for twice the new
 * space, plus twice its growth over the old one (slow start doubles the sender's rate), plus the span
 * the out-of-order queue covers; the buffer that backs it at the current scaling ratio, up to
 * tcp_rmem[2], and the window clamp with it. Never shrinks; nothing when SO_RCVBUF locked the buffer
 * or tcp_moderate_rcvbuf is 0 (the space is still recorded).
 */
export function rcvbufGrow(s: Tcb, newval: number): void {
  const drs = s.autotune;
  const oldval = drs.space;
  drs.space = newval;
  if (s.sysctl('tcp_moderate_rcvbuf') === 0 || s.rcvbufLocked) return;
  let rcvwin = newval * 2;
  if (oldval > 0) rcvwin += 2 * Math.floor((rcvwin * (newval - oldval)) / oldval);
  if (!s.ofo.empty) rcvwin += (s.ofo.endSeq - s.window.rcvNxt) >>> 0;
  rcvwin >>>= 0;
  const space = Math.floor((rcvwin * 2 ** RMEM_TO_WIN_SCALE) / s.window.scalingRatio);
  const rcvbuf = Math.min(space, bufferSysctl(s.stack.sysctls, 'tcp_rmem', 2));
  if (rcvbuf > s.window.rcvbuf) {
    s.window.rcvbuf = rcvbuf;
    s.window.windowClamp = winFromSpace(s.window, rcvbuf);
  }
}

/**
 * setsockopt SO_RCVBUF (__sock_set_rcvbuf): at most net.core.rmem_max, doubled, at least
 * SOCK_MIN_RCVBUF; the buffer is locked (SOCK_RCVBUF_LOCK), so DRS and tcp_clamp_window leave it.
 * Set before connect() or listen(), it sizes the first window (tcp_select_initial_window).
 */
export function setReceiveBuffer(s: Tcb, value: number): void {
  s.window.rcvbuf = lockedRcvbuf(value);
  s.rcvbufLocked = true;
}

/** The sk_rcvbuf SO_RCVBUF sets for `value` bytes. */
export function lockedRcvbuf(value: number): number {
  const val = Math.min(Math.max(0, Math.floor(value)), RMEM_MAX);
  return Math.max(val * 2, SOCK_MIN_RCVBUF);
}
