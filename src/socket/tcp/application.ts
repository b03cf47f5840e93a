// What the application calls on a TCP connection and how it reads: send() under the socket lock with its
// backlog, pause/resume reading (tcp_recvmsg), TCP_NODELAY, SO_KEEPALIVE and SO_LINGER settings; closing is
// closing.ts.

import type { Packet } from '../../core/packet.ts';
import type { TcpView } from '../../wire/tcp.ts';
import { cleanupRbuf } from './ack-policy.ts';
import type { Tcb } from './control-block.ts';
import { armKeepalive, keepaliveTime } from './probe-timers.ts';
import { spaceAdjust } from './rcv-autotune.ts';
import { processSegment } from './receive-path.ts';
import { rtoJiffies } from './rto.ts';
import { mtuReduced, pushPending } from './send-path.ts';

/** send(): queues bytes and sends what the windows and Nagle allow. False once the sending side is shut. */
export function write(s: Tcb, data: Uint8Array): boolean {
  if (s.finQueued || s.closed) return false;
  s.sender?.idleCheck(s.stack.now, s.sysctl('tcp_slow_start_after_idle') !== 0, rtoJiffies(s));
  const needed = s.sendLen + data.length;
  if (needed > s.sendBuf.length) {
    const grown = new Uint8Array(Math.max(needed, s.sendBuf.length * 2, 4096));
    grown.set(s.sendBuf.subarray(0, s.sendLen));
    s.sendBuf = grown;
  }
  s.sendBuf.set(data, s.sendLen);
  s.sendLen = needed;
  if (s.synchronized()) pushFromApplication(s);
  return true;
}

/**
 * tcp_sendmsg's push with the socket held. Called from process context (not from a received
 * frame's consequences), each segment reaches the peer before the next leaves: dev_queue_xmit's
 * local_bh_enable runs the receive softirq, so on a veth the peer's answers come back at once and
 * wait in our backlog; release_sock then processes them (and what they make us send).
 */
export function pushFromApplication(s: Tcb): void {
  if (s.owned || s.stack.ctx.backlog.draining) {
    pushPending(s);
    return;
  }
  s.owned = true;
  s.sentWhileOwned = false;
  s.stack.ctx.backlog.systemCalls++;
  pushPending(s);
  releaseSock(s);
  s.stack.ctx.backlog.systemCalls--;
}

/** release_sock → __release_sock: the backlog in arrival order, the socket still held. */
export function releaseSock(s: Tcb): void {
  let i = 0;
  for (;;) {
    for (; i < s.backlogViews.length; i++) processSegment(s, s.backlogViews[i]!, s.backlogPackets[i]!);
    // tcp_release_cb: deferred work once the backlog is done; what it sends is answered into the backlog again.
    if (!s.mtuReducedDeferred) break;
    s.mtuReducedDeferred = false;
    mtuReduced(s);
  }
  s.backlogViews.length = 0;
  s.backlogPackets.length = 0;
  s.owned = false;
  s.sentWhileOwned = false;
}

/** tcp_v4_rcv for a segment the table found for s.socket connection (checksum verified): the backlog while the application holds the socket. */
export function receive(s: Tcb, view: TcpView, pkt: Packet): void {
  if (s.owned) {
    s.backlogViews.push(view);
    s.backlogPackets.push(pkt);
    return;
  }
  processSegment(s, view, pkt);
}

/**
 * tcp_recvmsg: the application reads everything queued (one chunk), DRS measuring after each
 * segment copied (tcp_rcv_space_adjust), then tcp_cleanup_rbuf decides whether the freed space
 * deserves an ACK; the FIN is read after the data.
 */
export function deliver(s: Tcb): void {
  const count = s.rcvQueue.count;
  for (let i = 0; i < count; i++) {
    s.copiedSeq = (s.copiedSeq + s.rcvQueue.lengthAt(i)) >>> 0;
    spaceAdjust(s);
  }
  const data = s.rcvQueue.takeAll();
  if (data !== undefined) {
    // What stays charged is the out-of-order queue's.
    s.window.rmemAlloc = s.ofo.truesize;
    cleanupRbuf(s, data.length);
    if (!s.orphan) s.socket.onData?.(s.socket, data);
  }
  if (s.endPending && !s.readPaused) {
    s.endPending = false;
    if (!s.orphan && !s.closed) s.socket.onEnd?.(s.socket);
  }
}

/**
 * Node's pause(): the application stops reading. Arriving data waits in the receive buffer,
 * charged at its truesize, and the window advertised shrinks toward zero.
 */
export function pauseReading(s: Tcb): void {
  s.readPaused = true;
}

/**
 * sk_data_ready: the reading process wakes. On one CPU it runs once the running context ends (the
 * softirq that queued the data, or the system call of the writer whose transmission ran it), so
 * what arrives meanwhile waits in the receive queue as for a paused reader.
 */
export function wakeReader(s: Tcb): void {
  if (s.stack.ctx.backlog.systemCalls === 0) {
    deliver(s);
    return;
  }
  if (s.readerWakeup >= 0) return;
  s.readerWakeup = s.stack.ctx.scheduler.schedule(0, () => {
    s.readerWakeup = -1;
    if (s.readPaused) return;
    deliver(s);
    if (s.isTimeWait() && !s.orphan && !s.reportedClose && !s.endPending) {
      s.reportedClose = true;
      s.socket.onClose?.(s.socket, undefined);
    }
  });
}

/**
 * Node's resume(): the application reads what waits (one onData), and does so on arrival from
 * now on; tcp_cleanup_rbuf may announce the space freed with a window update.
 */
export function resumeReading(s: Tcb): void {
  if (!s.readPaused) return;
  s.readPaused = false;
  deliver(s);
  if (s.isTimeWait() && !s.orphan && !s.reportedClose) {
    s.reportedClose = true;
    s.socket.onClose?.(s.socket, undefined);
  }
}

/**
 * setsockopt SO_KEEPALIVE (Node's setKeepAlive) with TCP_KEEPIDLE, TCP_KEEPINTVL and TCP_KEEPCNT
 * (seconds and a count; absent: tcp_keepalive_time 7200, tcp_keepalive_intvl 75 and
 * tcp_keepalive_probes 9). tcp_set_keepalive starts the timer at the idle time.
 */
export function setKeepAlive(
  s: Tcb,
  on: boolean,
  options: { idle?: number; interval?: number; count?: number } = {},
): void {
  s.keepalive.on = on;
  s.keepalive.idle = options.idle ?? 0;
  s.keepalive.interval = options.interval ?? 0;
  s.keepalive.count = options.count ?? 0;
  if (s.keepaliveTimer >= 0) s.stack.ctx.scheduler.cancel(s.keepaliveTimer);
  s.keepaliveTimer = -1;
  if (on && s.synchronized() && !s.closed) armKeepalive(s, keepaliveTime(s));
}

/**
 * setsockopt TCP_NODELAY (Node's setNoDelay): with it on, tcp_nagle_test lets a small segment go while an
 * earlier one is unacknowledged; turning it on pushes what Nagle held back (__tcp_sock_set_nodelay's
 * tcp_push_pending_frames). Turning it off only clears the flag.
 */
export function setNoDelay(s: Tcb, on = true): void {
  s.noDelay = on;
  if (on && s.synchronized() && !s.closed) pushFromApplication(s);
}

/**
 * setsockopt SO_LINGER: l_onoff and l_linger in seconds. With a time, close() blocks until the FIN is
 * acknowledged or the time runs out; with 0, close() resets the connection (tcp_close's disconnect).
 */
export function setLinger(s: Tcb, on: boolean, seconds = 0): void {
  s.lingerOn = on;
  s.lingerSeconds = Math.max(0, Math.floor(seconds));
}
