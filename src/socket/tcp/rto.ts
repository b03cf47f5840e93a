// The one transmit timer of a TCP connection (icsk_pending): the RTT estimator and RTO with backoff, tail
// loss probes, RACK's reordering timeout, tcp_retransmit_timer and tcp_retries2's time budget; not the
// persist or keepalive timers (probe-timers.ts).

import { finish } from './closing.ts';
import { after, before, MS, RTO_MAX, RTO_MIN } from './constants.ts';
import type { Tcb } from './control-block.ts';
import { sendSyn, sendSynAck } from './handshake.ts';
import { pushNew, resend, retransmitLost } from './send-path.ts';

/** tcp_rtt_estimator and tcp_set_rto (Karn: no sample from a retransmitted segment). */
export function sampleRtt(s: Tcb, ack: number): void {
  if (s.rttSeq < 0 || before(ack, s.rttSeq)) return;
  const sample = s.stack.now - s.rttSentAt;
  s.rttSeq = -1;
  if (s.srtt === 0) {
    s.srtt = Math.max(sample, 1000);
    s.rttvar = Math.floor(sample / 2);
  } else {
    s.rttvar = Math.floor((3 * s.rttvar + Math.abs(s.srtt - sample)) / 4);
    s.srtt = Math.max(Math.floor((7 * s.srtt + sample) / 8), 1000);
  }
  s.rto = Math.min(Math.max(s.srtt + Math.max(4 * s.rttvar, RTO_MIN), RTO_MIN), RTO_MAX);
  s.rttHost.srttUs = s.srtt / 1000;
}

/**
 * icsk_backoff: one doubling per timeout, except that in SYN_SENT the first
 * tcp_syn_linear_timeouts timeouts keep the RTO (tcp_retransmit_timer's total_rto check).
 */
export function backoff(s: Tcb): number {
  if (s.state !== 'SYN_SENT') return s.retransmits;
  return Math.max(0, s.retransmits - s.sysctl('tcp_syn_linear_timeouts'));
}

/** The RTO with its backoff (icsk_rto after tcp_retransmit_timer doubled it). */
export function backedOffRto(s: Tcb): number {
  return Math.min(s.rto * 2 ** backoff(s), RTO_MAX);
}

/** icsk_rto in jiffies. */
export function rtoJiffies(s: Tcb): number {
  return Math.ceil(backedOffRto(s) / MS);
}

export function armRto(s: Tcb, restart = false): void {
  if (s.rtoTimer >= 0 && !restart) return;
  resetXmitTimer(s, 'retrans', backedOffRto(s));
}

/** inet_csk_reset_xmit_timer: the one transmit timer, armed for `kind`. */
export function resetXmitTimer(s: Tcb, kind: 'retrans' | 'loss-probe' | 'reo-timeout', delay: number): void {
  const scheduler = s.stack.ctx.scheduler;
  if (s.rtoTimer >= 0) scheduler.cancel(s.rtoTimer);
  s.xmitKind = kind;
  s.rtoTimer = scheduler.schedule(Math.min(Math.max(Math.ceil(delay), 0), RTO_MAX), () => retransmitTimer(s));
}

/** tcp_rto_delta_us: what remains of the RTO counted from the oldest segment's last transmission, in ns. */
export function rtoDelta(s: Tcb): number {
  const head = s.sender?.sb.queue[0];
  if (head === undefined) return backedOffRto(s);
  return backedOffRto(s) - (s.stack.now - head.xmitUs * 1000);
}

/**
 * tcp_rearm_rto: nothing out stops the timer; over a pending loss probe or reordering timer the
 * RTO counts from the oldest segment's transmission (at least 1 µs), else from now.
 */
export function rearmRto(s: Tcb): void {
  if (s.sndUna === s.sndNxt) {
    cancelRto(s);
    return;
  }
  if (s.rtoTimer >= 0 && s.xmitKind !== 'retrans') resetXmitTimer(s, 'retrans', Math.max(rtoDelta(s), 1000));
  else armRto(s, true);
}

/** tcp_schedule_loss_probe: a tail loss probe instead of the RTO, when in Open (or CWR) with SACK. */
export function scheduleLossProbe(s: Tcb, advancingRto: boolean): boolean {
  const sender = s.sender;
  if (sender === undefined) return false;
  const early = s.sysctl('tcp_early_retrans');
  if (early !== 3 && early !== 4) return false;
  const pto = sender.probeTimeout(s.srtt / 1000, rtoJiffies(s), advancingRto, rtoDelta(s) / 1000);
  if (pto < 0) return false;
  resetXmitTimer(s, 'loss-probe', pto * MS);
  return true;
}

/** tcp_rack_reo_timeout: RACK's reordering window passed; what it now marks lost goes again. */
export function reoTimeoutFired(s: Tcb): void {
  const sender = s.sender;
  if (sender === undefined) return;
  if (sender.reoTimeout(s.stack.now)) retransmitLost(s);
  if (s.rtoTimer < 0) rearmRto(s);
}

/** tcp_send_loss_probe: new data if the window holds a segment, else the last segment again; then the RTO. */
export function sendLossProbe(s: Tcb): void {
  const sender = s.sender;
  if (sender === undefined) return;
  const offset = (s.sndNxt - s.bufSeq) >>> 0;
  const next = Math.min(s.mss, s.sendLen - offset);
  const fits = next > 0 && !after((s.sndNxt + next) >>> 0, (s.sndUna + s.sndWnd) >>> 0);
  const probe = sender.lossProbe(fits);
  if (probe.kind === 'new-data') {
    if (pushNew(s, true)) sender.probeSent(false);
  } else if (probe.kind === 'retransmit') {
    resend(s, probe.segment);
    sender.probeRetransmitted(probe.segment, s.stack.now);
  }
  if (s.rtoTimer < 0) rearmRto(s);
}

export function cancelRto(s: Tcb): void {
  if (s.rtoTimer >= 0) s.stack.ctx.scheduler.cancel(s.rtoTimer);
  s.rtoTimer = -1;
}

/** tcp_retransmit_timer (and the SYN-ACK timer of a request): resend the first unacknowledged segment, back off. */
export function retransmitTimer(s: Tcb): void {
  s.rtoTimer = -1;
  if (s.closed) return;
  const kind = s.xmitKind;
  s.xmitKind = 'retrans';
  if (kind === 'reo-timeout') {
    reoTimeoutFired(s);
    return;
  }
  if (kind === 'loss-probe') {
    sendLossProbe(s);
    return;
  }
  s.retransmits++;
  s.rttSeq = -1;
  if (s.state === 'SYN_SENT') {
    // tcp_write_timeout: in SYN_SENT the linear timeouts come on top of tcp_syn_retries.
    if (s.retransmits > s.sysctl('tcp_syn_retries') + s.sysctl('tcp_syn_linear_timeouts')) {
      finish(s, 'ETIMEDOUT');
      return;
    }
    // __tcp_retransmit_skb → skb_still_in_host_queue: the SYN waiting for ARP is not sent again (-EBUSY,
    // TCPSpuriousRtxHostQueues); the timer backs off as if it had been.
    if (s.lastSyn?.hostQueued === true) s.stack.tcpOutMib.spuriousRtxHostQueues++;
    else sendSyn(s);
  } else if (s.state === 'SYN_RECV') {
    if (s.retransmits > s.sysctl('tcp_synack_retries')) {
      finish(s, undefined);
      return;
    }
    sendSynAck(s);
  } else {
    const sender = s.sender;
    // tcp_retransmit_timer: nothing out, nothing to do.
    if (sender !== undefined && sender.sb.packetsOut === 0) {
      s.retransmits--;
      return;
    }
    // tcp_write_timeout, before the retransmission: tcp_retries2 is a time budget, not a count.
    if (retransmitsTimedOut(s, s.sysctl('tcp_retries2'))) {
      finish(s, 'ETIMEDOUT');
      return;
    }
    // tcp_enter_loss (before icsk_retransmits counts s.socket timeout), then the head again (tcp_retransmit_skb).
    if (sender !== undefined) {
      sender.recovery.retransmits = s.retransmits - 1;
      sender.retransmitTimeout(s.stack.now, s.sysctl('tcp_frto') !== 0);
      retransmitLost(s);
    }
  }
  armRto(s);
}

/**
 * retransmits_timed_out with tcp_model_timeout: after a first retransmission, true once the
 * oldest unacknowledged segment was sent as long ago as `boundary` retransmissions take from
 * TCP_RTO_MIN doubling up to TCP_RTO_MAX (tcp_retries2 = 15: 924.6 s; tcp_retries1 = 3: 3 s,
 * where Linux only gives the route negative advice, a no-op here where routes are looked up
 * per segment).
 */
export function retransmitsTimedOut(s: Tcb, boundary: number): boolean {
  if (s.retransmits <= 1) return false;
  const linear = Math.floor(Math.log2(RTO_MAX / RTO_MIN));
  const timeout =
    boundary <= linear
      ? (2 ** (boundary + 1) - 1) * RTO_MIN
      : (2 ** (linear + 1) - 1) * RTO_MIN + (boundary - linear) * RTO_MAX;
  return s.stack.now - s.headSentAt >= timeout;
}
