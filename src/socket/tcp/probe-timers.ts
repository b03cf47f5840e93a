// The probing timers of a TCP connection: keepalive (tcp_keepalive_timer) and the persist timer with zero-
// window probes (tcp_probe_timer, tcp_send_probe0, tcp_write_wakeup, tcp_ack_probe); not the RTO (rto.ts).

import { finish } from './closing.ts';
import { ACK, after, before, MS, RST, RTO_MAX, RTO_MIN } from './constants.ts';
import type { Tcb } from './control-block.ts';
import { sendData } from './send-path.ts';
import { transmit } from './transmit.ts';

/** keepalive_time_when, keepalive_intvl_when, keepalive_probes: the socket's values, else the sysctls'. */
export function keepaliveTime(s: Tcb): number {
  return (s.keepalive.idle || s.sysctl('tcp_keepalive_time')) * 1000 * MS;
}

export function keepaliveInterval(s: Tcb): number {
  return (s.keepalive.interval || s.sysctl('tcp_keepalive_intvl')) * 1000 * MS;
}

export function keepaliveProbes(s: Tcb): number {
  return s.keepalive.count || s.sysctl('tcp_keepalive_probes');
}

export function armKeepalive(s: Tcb, delay: number): void {
  const scheduler = s.stack.ctx.scheduler;
  if (s.keepaliveTimer >= 0) scheduler.cancel(s.keepaliveTimer);
  s.keepaliveTimer = scheduler.schedule(delay, () => keepaliveFired(s));
}

/**
 * tcp_keepalive_timer: while data is in flight or queued the retransmission and persist timers
 * watch the peer; after the idle time without a segment from the peer, a probe (tcp_write_wakeup:
 * an ACK at snd_una - 1 without data) every interval; the count of probes unanswered resets the
 * connection (tcp_send_active_reset) and fails it with ETIMEDOUT (tcp_write_err).
 */
export function keepaliveFired(s: Tcb): void {
  s.keepaliveTimer = -1;
  if (s.closed || !s.keepalive.on) return;
  if (s.state !== 'ESTABLISHED' && s.state !== 'CLOSE_WAIT' && s.state !== 'FIN_WAIT2') return;
  const when = keepaliveTime(s);
  if (s.sndNxt !== s.sndUna || s.hasUnsent()) {
    armKeepalive(s, when);
    return;
  }
  const now = s.stack.now;
  const elapsed = Math.min(now - s.lrcvtime, now - s.rcvTstamp);
  if (elapsed < when) {
    armKeepalive(s, when - elapsed);
    return;
  }
  if (s.probesOut >= keepaliveProbes(s)) {
    transmit(s, RST | ACK, s.sndNxt, 0, 0, undefined);
    finish(s, 'ETIMEDOUT');
    return;
  }
  writeWakeup(s);
  s.probesOut++;
  armKeepalive(s, keepaliveInterval(s));
}

/** tcp_check_probe_timer: nothing in flight, data waiting for the window, no timer running: probe after the RTO. */
export function checkProbeTimer(s: Tcb): void {
  if (s.sndNxt !== s.sndUna || s.rtoTimer >= 0 || s.probeTimer >= 0) return;
  armProbe(s, Math.max(s.rto, RTO_MIN));
}

export function armProbe(s: Tcb, delay: number): void {
  const scheduler = s.stack.ctx.scheduler;
  if (s.probeTimer >= 0) scheduler.cancel(s.probeTimer);
  s.probeTimer = scheduler.schedule(Math.min(delay, RTO_MAX), () => probeTimerFired(s));
}

/** tcp_probe0_when: the base (the RTO, at least TCP_RTO_MIN) doubled per backoff, at most TCP_RTO_MAX. */
export function probe0When(s: Tcb): number {
  const backoff = Math.min(s.probeBackoff, Math.log2(RTO_MAX / RTO_MIN) + 1);
  return Math.min(Math.max(s.rto, RTO_MIN) * 2 ** backoff, RTO_MAX);
}

/** tcp_probe_timer: a probe while the window stays shut; tcp_retries2 probes unanswered by a window end the connection. */
export function probeTimerFired(s: Tcb): void {
  s.probeTimer = -1;
  if (s.closed) return;
  if (s.sndNxt !== s.sndUna || !s.hasUnsent()) {
    s.probesOut = 0;
    return;
  }
  if (s.probesOut >= s.sysctl('tcp_retries2')) {
    finish(s, 'ETIMEDOUT');
    return;
  }
  sendProbe0(s);
}

/** tcp_send_probe0: tcp_write_wakeup, then the timer again with one more backoff (none once data is in flight). */
export function sendProbe0(s: Tcb): void {
  writeWakeup(s);
  if (s.sndNxt !== s.sndUna || !s.hasUnsent()) {
    s.probesOut = 0;
    s.probeBackoff = 0;
    return;
  }
  s.probesOut++;
  if (s.probeBackoff < s.sysctl('tcp_retries2')) s.probeBackoff++;
  armProbe(s, probe0When(s));
}

/**
 * tcp_write_wakeup: the part of the next segment the window holds, with PSH, when there is any
 * window; otherwise tcp_xmit_probe_skb: an ACK at snd_una - 1 without data, which the peer
 * answers with its window.
 */
export function writeWakeup(s: Tcb): void {
  const windowEnd = (s.sndUna + s.sndWnd) >>> 0;
  if (s.hasUnsent() && before(s.sndNxt, windowEnd)) {
    const offset = (s.sndNxt - s.bufSeq) >>> 0;
    const len = Math.min((windowEnd - s.sndNxt) >>> 0, s.mss, s.sendLen - offset);
    sendData(s, offset, len, true, false);
    return;
  }
  transmit(s, ACK, (s.sndUna - 1) >>> 0, 0, 0, undefined);
}

/**
 * tcp_ack_probe, for an ACK that finds nothing in flight and data waiting: a window that now
 * holds the next segment ends the probing (the data follows), else the timer restarts.
 */
export function ackProbe(s: Tcb): void {
  if (!s.hasUnsent()) return;
  const offset = (s.sndNxt - s.bufSeq) >>> 0;
  const next = Math.min(s.mss, s.sendLen - offset);
  if (!after((s.sndNxt + next) >>> 0, (s.sndUna + s.sndWnd) >>> 0)) {
    s.probeBackoff = 0;
    if (s.probeTimer >= 0) s.stack.ctx.scheduler.cancel(s.probeTimer);
    s.probeTimer = -1;
  } else armProbe(s, probe0When(s));
}
