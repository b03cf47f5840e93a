// When a TCP connection acknowledges (icsk_ack): quick-ACK and ping-pong modes, __tcp_ack_snd_check, the
// delayed-ACK timer, tcp_cleanup_rbuf's window update and the window each ACK advertises; not compressed SACK
// ACKs (tcp_comp_sack_*).

import {
  ACK_PUSHED,
  ACK_PUSHED2,
  ACK_SCHED,
  ACK_TIMER,
  ATO_MIN,
  DELACK_MAX,
  MAX_QUICKACKS,
  MS,
} from './constants.ts';
import type { Tcb } from './control-block.ts';
import { sendAck } from './transmit.ts';
import { computeWindow, receiveWindow, selectWindow, spaceBelowHalf } from './window.ts';

/** tcp_enter_quickack_mode. */
export function enterQuickackMode(s: Tcb): void {
  incrQuickack(s);
  s.pingpong = 0;
  s.ato = ATO_MIN;
}

/** tcp_incr_quickack. */
export function incrQuickack(s: Tcb): void {
  let quickacks = Math.floor(s.window.rcvWnd / (2 * s.rcvMss));
  if (quickacks === 0) quickacks = 2;
  quickacks = Math.min(quickacks, MAX_QUICKACKS);
  if (quickacks > s.quick) s.quick = quickacks;
}

/**
 * __tcp_ack_snd_check: ACK now when more than one full segment is unacknowledged and either the
 * application read everything or the window's right edge does not move back, or in quick-ACK
 * mode; else later.
 */
export function ackCheck(s: Tcb): void {
  if (!(s.ackPending & ACK_SCHED)) return;
  const unacked = (s.window.rcvNxt - s.window.rcvWup) >>> 0;
  if (
    (unacked > s.rcvMss && ((s.window.rcvNxt - s.copiedSeq) >>> 0 < 1 || peekWindow(s) >= s.window.rcvWnd)) ||
    (s.quick > 0 && !s.inPingpong())
  ) {
    sendAck(s);
    return;
  }
  scheduleDelayedAck(s);
}

/** __tcp_select_window without recording it; a receive buffer more than half full ends quick-ACK mode. */
export function peekWindow(s: Tcb): number {
  if (spaceBelowHalf(s.window)) s.quick = 0;
  return computeWindow(s.window, s.rcvMss);
}

/**
 * tcp_cleanup_rbuf after the application read `copied` bytes: an ACK owed for more than one
 * segment, or for a pushed small segment outside ping-pong once the buffer is empty, goes now;
 * so does a window update when the read at least doubled a window that had fallen under half
 * the clamp.
 */
export function cleanupRbuf(s: Tcb, copied: number): void {
  if (s.closed) return;
  let timeToAck = false;
  if (s.ackPending & ACK_SCHED) {
    const unacked = (s.window.rcvNxt - s.window.rcvWup) >>> 0;
    timeToAck =
      unacked > s.rcvMss ||
      (copied > 0 &&
        ((s.ackPending & ACK_PUSHED2) !== 0 || ((s.ackPending & ACK_PUSHED) !== 0 && !s.inPingpong())) &&
        s.window.rmemAlloc === 0);
  }
  if (copied > 0 && !timeToAck && !s.rcvShutdown) {
    const now = receiveWindow(s.window);
    if (2 * now <= s.window.windowClamp) {
      const next = peekWindow(s);
      if (next > 0 && next >= 2 * now) timeToAck = true;
    }
  }
  if (timeToAck) sendAck(s);
}

/** tcp_send_delayed_ack. */
export function scheduleDelayedAck(s: Tcb): void {
  let ato = s.ato;
  if (ato > ATO_MIN) {
    let maxAto = 500 * MS;
    if (s.inPingpong() || s.ackPending & ACK_PUSHED) maxAto = DELACK_MAX;
    if (s.srtt > 0) maxAto = Math.min(maxAto, Math.max(s.srtt, ATO_MIN));
    ato = Math.min(ato, maxAto);
  }
  if (s.delackTimer >= 0) return;
  s.ackPending |= ACK_TIMER;
  s.delackTimer = s.stack.ctx.scheduler.schedule(ato, () => delayedAckFired(s));
}

/** tcp_delack_timer_handler. */
export function delayedAckFired(s: Tcb): void {
  s.delackTimer = -1;
  if (s.closed || !(s.ackPending & ACK_SCHED)) return;
  if (!s.inPingpong()) s.ato = Math.min(s.ato * 2, s.rto);
  else {
    s.pingpong = 0;
    s.ato = ATO_MIN;
  }
  sendAck(s);
}

/** tcp_event_ack_sent → tcp_dec_quickack_mode, and the delayed ACK is off. */
export function ackSent(s: Tcb): void {
  if (s.quick > 0) {
    const pkts = s.ackPending & ACK_SCHED ? 1 : 0;
    if (pkts >= s.quick) {
      s.quick = 0;
      s.ato = ATO_MIN;
    } else s.quick -= pkts;
  }
  s.ackPending = 0;
  if (s.delackTimer >= 0) {
    s.stack.ctx.scheduler.cancel(s.delackTimer);
    s.delackTimer = -1;
  }
}

/** tcp_select_window over the free receive space; a buffer more than half full ends quick-ACK mode. */
export function advertisedWindow(s: Tcb): number {
  if (spaceBelowHalf(s.window)) s.quick = 0;
  return selectWindow(s.window, s.rcvMss);
}
