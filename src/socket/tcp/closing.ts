// How a TCP connection ends: shutdown and close (SO_LINGER), the peer's FIN (tcp_fin), resets, TIME_WAIT and
// its timer, and tcp_done; not the port bookkeeping a closed connection frees (table.ts).

import type { TcpView } from '../../wire/tcp.ts';
import { pushFromApplication } from './application.ts';
import { ACK, ACK_SCHED, MS, PINGPONG_THRESH, RST, type TcpError, TIMEWAIT_LEN } from './constants.ts';
import type { Tcb } from './control-block.ts';
import { cancelRto } from './rto.ts';
import { sendAck, transmit } from './transmit.ts';

/** shutdown(SHUT_WR) (Node's end()): a FIN after the queued data. */
export function end(s: Tcb): void {
  if (s.finQueued || s.closed) return;
  s.finQueued = true;
  if (s.state === 'ESTABLISHED') s.state = 'FIN_WAIT1';
  else if (s.state === 'CLOSE_WAIT') s.state = 'LAST_ACK';
  else if (s.state === 'SYN_SENT' || s.state === 'SYN_RECV') {
    finish(s, undefined);
    return;
  }
  pushFromApplication(s);
}

/**
 * close(): like end(), and the application hears nothing more (the orphan finishes the close alone).
 * `onReturn` runs when close() returns: at once, or with SO_LINGER and a time (inet_release → tcp_close →
 * sk_stream_wait_close) once the state leaves FIN_WAIT1, CLOSING and LAST_ACK (false) or when the linger
 * time ran out (true). Either way the wire is the same: the orphan then goes on as after any close (no reset).
 */
export function destroy(s: Tcb, onReturn?: (timedOut: boolean) => void): void {
  // tcp_close: data the application never read is lost, and the peer is told with a reset (RFC 2525, 2.17);
  // SO_LINGER with 0 seconds resets too.
  if ((!s.rcvQueue.empty && s.synchronized()) || (s.lingerOn && s.lingerSeconds === 0)) {
    abort(s);
    onReturn?.(false);
    return;
  }
  s.orphan = true;
  if (!s.closed) end(s);
  const closing = s.state === 'FIN_WAIT1' || s.state === 'CLOSING' || s.state === 'LAST_ACK';
  if (!s.lingerOn || !closing || s.closed) {
    onReturn?.(false);
    return;
  }
  s.lingerReturn = onReturn ?? (() => {});
  s.lingerTimer = s.stack.ctx.scheduler.schedule(s.lingerSeconds * 1000 * MS, () => {
    s.lingerTimer = -1;
    lingerEnded(s, true);
  });
}

/** sk_stream_wait_close wakes: the state left the closing ones, or the linger time ran out. */
export function lingerEnded(s: Tcb, timedOut: boolean): void {
  const onReturn = s.lingerReturn;
  if (onReturn === undefined) return;
  s.lingerReturn = undefined;
  if (s.lingerTimer >= 0) s.stack.ctx.scheduler.cancel(s.lingerTimer);
  s.lingerTimer = -1;
  onReturn(timedOut);
}

/** close() with SO_LINGER 0: a reset, and the connection is gone. */
export function abort(s: Tcb): void {
  if (s.closed) return;
  if (s.synchronized()) transmit(s, RST | ACK, s.sndNxt, 0, 0, undefined);
  s.orphan = true;
  finish(s, undefined);
}

/** tcp_reset: the errno depends on how far the connection got. */
export function reset(s: Tcb): void {
  finish(s, s.state === 'CLOSE_WAIT' ? 'EPIPE' : 'ECONNRESET');
}

/** tcp_fin: out-of-order data after the FIN is dropped and the SACK blocks forgotten. */
export function finReceived(s: Tcb): void {
  s.ackPending |= ACK_SCHED;
  s.window.rmemAlloc -= s.ofo.truesize;
  s.ofo.purge();
  s.sack.reset();
  switch (s.state) {
    case 'ESTABLISHED':
      s.state = 'CLOSE_WAIT';
      s.pingpong = PINGPONG_THRESH;
      break;
    case 'FIN_WAIT1':
      // Simultaneous close: our FIN is not acknowledged yet.
      sendAck(s);
      s.state = 'CLOSING';
      break;
    case 'FIN_WAIT2':
      sendAck(s);
      enterTimeWait(s);
      break;
    default:
      break;
  }
}

/** tcp_done: timers off, out of the table, the application told once. */
export function finish(s: Tcb, error: TcpError | undefined): void {
  if (s.closed) return;
  const wasReported = s.reportedClose;
  s.closed = true;
  s.state = 'CLOSE';
  const scheduler = s.stack.ctx.scheduler;
  for (const timer of [s.rtoTimer, s.delackTimer, s.waitTimer, s.probeTimer, s.keepaliveTimer])
    if (timer >= 0) scheduler.cancel(timer);
  s.keepaliveTimer = -1;
  s.rtoTimer = -1;
  s.probeTimer = -1;
  s.delackTimer = -1;
  s.waitTimer = -1;
  s.host.unhash(s.socket);
  lingerEnded(s, false);
  if (!s.orphan && !wasReported) {
    s.reportedClose = true;
    s.socket.onClose?.(s.socket, error);
  }
}

/** tcp_timewait_state_process: a retransmitted FIN is acknowledged again; a reset ends the wait early. */
export function receiveInTimeWait(s: Tcb, view: TcpView): void {
  if (view.rst) {
    finish(s, undefined);
    return;
  }
  // tcp_v4_rcv: a SYN no listener takes (TCP_TW_SYN falling through to TCP_TW_ACK) gets the TIME_WAIT's ACK.
  if (view.syn && !view.ack) {
    sendAck(s);
    return;
  }
  if (view.fin) {
    sendAck(s);
    startTimeWait(s);
  }
}

/** inet_twsk_deschedule_put: a new connection takes s.socket TIME_WAIT's 4-tuple; it goes without a segment. */
export function recycleTimeWait(s: Tcb): void {
  if (s.state !== 'TIME_WAIT') return;
  s.orphan = true;
  finish(s, undefined);
}

export function enterTimeWait(s: Tcb): void {
  s.timeWaitSinceMs = s.nowMs;
  s.state = 'TIME_WAIT';
  cancelRto(s);
  startTimeWait(s);
  lingerEnded(s, false);
}

export function startTimeWait(s: Tcb): void {
  const scheduler = s.stack.ctx.scheduler;
  if (s.waitTimer >= 0) scheduler.cancel(s.waitTimer);
  s.waitTimer = scheduler.schedule(TIMEWAIT_LEN, () => {
    s.waitTimer = -1;
    finish(s, undefined);
  });
}
