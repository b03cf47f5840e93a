// Opening a TCP connection: the SYN and SYN-ACK with their options and initial windows, SYN_SENT's answer,
// and what settles at establishment (tcp_connect, tcp_conn_request, tcp_rcv_synsent_state_process,
// tcp_init_transfer); not the listener's request queue (table.ts).

import type { Packet } from '../../core/packet.ts';
import type { TcpView } from '../../wire/tcp.ts';
import { finish } from './closing.ts';
import { assignCongestion } from './congestion/assign.ts';
import { ACK, advertisedMss, INIT_CWND, RMEM_MAX, SYN, TCP_TIMEOUT_MIN, TS_ALIGNED } from './constants.ts';
import type { Tcb } from './control-block.ts';
import { armKeepalive, keepaliveTime } from './probe-timers.ts';
import { initReceiveSpace } from './rcv-autotune.ts';
import { armRto, cancelRto, retransmitTimer, sampleRtt } from './rto.ts';
import { pushPending } from './send-path.ts';
import { SenderControl } from './sender-control.ts';
import { countIn } from './stats.ts';
import { bufferSysctl, defaultCongestion } from './sysctl.ts';
import { sendAck, sendReset, transmit } from './transmit.ts';
import { fullSpace, initBufferSpace, initialRcvMss, selectInitialWindow, TCP_MSS_DEFAULT } from './window.ts';

/** tcp_full_space of a new socket: sk_rcvbuf starts at tcp_rmem[1] (unless SO_RCVBUF set it), the scaling ratio at one half. */
export function newSocketSpace(s: Tcb): number {
  if (!s.rcvbufLocked) s.window.rcvbuf = bufferSysctl(s.stack.sysctls, 'tcp_rmem', 1);
  return fullSpace(s.window);
}

/**
 * tcp_v4_connect → tcp_connect_init + tcp_connect: picks ISN and windows, sends the SYN. `reuse` is
 * what tcp_twsk_unique carried over when the 4-tuple came from a TIME_WAIT connection: write_seq and
 * ts_recent (the SYN echoes it, and the window is a multiple of the MSS less timestamps).
 */
export function connect(s: Tcb, reuse?: { readonly iss: number; readonly tsRecent: number }): void {
  const drawn = s.host.random32();
  s.iss = reuse?.iss ?? drawn;
  s.tsOffset = s.host.random32();
  s.ipId = s.tsOffset >>> 16;
  s.advmss = advertisedMss(s.pathMtu());
  s.tsOk = s.sysctl('tcp_timestamps') !== 0;
  s.sackOk = s.sysctl('tcp_sack') !== 0;
  s.wscaleOk = s.sysctl('tcp_window_scaling') !== 0;
  if (reuse !== undefined) s.tsRecent = reuse.tsRecent;
  const initial = selectInitialWindow(
    newSocketSpace(s),
    s.advmss - (reuse !== undefined && s.tsOk ? TS_ALIGNED : 0),
    s.wscaleOk,
    Math.max(bufferSysctl(s.stack.sysctls, 'tcp_rmem', 2), RMEM_MAX),
    s.rcvbufLocked ? fullSpace(s.window) : 0,
  );
  s.window.rcvWnd = initial.rcvWnd;
  s.window.rcvWscale = initial.rcvWscale;
  s.window.windowClamp = initial.windowClamp;
  s.sndUna = s.iss;
  s.sndNxt = (s.iss + 1) >>> 0;
  s.bufSeq = s.sndNxt;
  s.sndSml = s.sndNxt;
  s.retransmits = 0;
  // tcp_connect arms the RTO after tcp_transmit_skb, but the timer wheel runs a bucket's timers
  // last-armed first: armed ahead on s.socket FIFO clock, the RTO still fires before the ARP timer the
  // SYN started (an unanswered ARP: the third RTO finds the SYN queued, then the neighbour fails).
  armRto(s);
  sendSyn(s);
  s.rttSeq = s.sndNxt;
  s.rttSentAt = s.stack.now;
}

export function sendSyn(s: Tcb): void {
  s.lastSyn = transmit(s, SYN, s.iss, 0, 0, {
    mss: s.advmss,
    sackPermitted: s.sackOk,
    timestamps: s.tsOk,
    tsVal: s.tsNow(),
    tsEcr: s.tsRecent,
    wscale: s.wscaleOk ? s.window.rcvWscale : -1,
  });
}

/**
 * A listener's answer to a SYN (tcp_conn_request → tcp_openreq_init_rwin → tcp_make_synack):
 * options are those both sides offered, the window a multiple of the MSS less timestamps.
 */
export function acceptSyn(s: Tcb, view: TcpView): void {
  countIn(s, view);
  s.received.parse(view, true);
  s.iss = s.host.random32();
  s.tsOffset = s.host.random32();
  s.ipId = s.tsOffset >>> 16;
  s.window.rcvNxt = (view.seqNumber + 1) >>> 0;
  s.window.rcvWup = s.window.rcvNxt;
  s.tsOk = s.received.sawTimestamp && s.sysctl('tcp_timestamps') !== 0;
  s.sackOk = s.received.sackPermitted && s.sysctl('tcp_sack') !== 0;
  s.wscaleOk = s.received.wscale >= 0 && s.sysctl('tcp_window_scaling') !== 0;
  s.sndWscale = s.wscaleOk ? s.received.wscale : 0;
  s.peerMss = s.received.mss > 0 ? s.received.mss : TCP_MSS_DEFAULT;
  if (s.tsOk) s.tsRecent = s.received.tsVal;
  s.advmss = advertisedMss(s.pathMtu());
  const initial = selectInitialWindow(
    newSocketSpace(s),
    s.advmss - (s.tsOk ? TS_ALIGNED : 0),
    s.wscaleOk,
    Math.max(bufferSysctl(s.stack.sysctls, 'tcp_rmem', 2), RMEM_MAX),
    s.rcvbufLocked ? fullSpace(s.window) : 0,
  );
  s.window.rcvWnd = initial.rcvWnd;
  s.window.rcvWscale = initial.rcvWscale;
  s.window.windowClamp = initial.windowClamp;
  s.sndWnd = view.window;
  s.sndUna = s.iss;
  s.sndNxt = (s.iss + 1) >>> 0;
  s.bufSeq = s.sndNxt;
  s.sndSml = s.sndNxt;
  s.retransmits = 0;
  sendSynAck(s);
  armRto(s);
}

export function sendSynAck(s: Tcb): void {
  transmit(s, SYN | ACK, s.iss, 0, 0, {
    mss: s.advmss,
    sackPermitted: s.sackOk,
    timestamps: s.tsOk,
    tsVal: s.tsNow(),
    tsEcr: s.tsRecent,
    wscale: s.wscaleOk ? s.window.rcvWscale : -1,
  });
}

/** tcp_finish_connect / tcp_init_transfer: both sides synchronized; sizes settle. */
export function establish(s: Tcb): void {
  s.state = 'ESTABLISHED';
  s.sack.sackOk = s.sackOk;
  syncMss(s, s.pathMtu());
  s.tcpAdvmss = s.advmss - (s.tsOk ? TS_ALIGNED : 0);
  s.copiedSeq = s.window.rcvNxt;
  initBufferSpace(s.window, s.tcpAdvmss, s.sysctl('tcp_app_win'));
  initReceiveSpace(s);
  s.rcvMss = initialRcvMss(s.tcpAdvmss, s.mss, s.window.rcvWnd);
  s.retransmits = 0;
  s.rcvTstamp = s.stack.now;
  cancelRto(s);
  s.rttHost.sackOk = s.sackOk;
  s.rttHost.srttUs = s.srtt / 1000;
  const route = s.stack.routeOutput(s.remoteAddr, { src: s.localAddr, mark: s.mark, anySrc: s.transparent });
  s.congestion = assignCongestion(
    route.ok ? route.congctl : undefined,
    s.congestionSetsockopt,
    defaultCongestion(s.stack.sysctls),
  );
  s.sender = new SenderControl(
    { congestion: s.congestion, mss: s.mss, maxWindow: s.sndWnd, initialCwnd: INIT_CWND },
    s.rttHost,
  );
  s.sender.start(s.sndUna, s.stack.now);
  s.cwndUsageSeq = s.sndUna;
  if (s.keepalive.on) armKeepalive(s, keepaliveTime(s));
}

/** tcp_sync_mss: the segment payload for a path MTU, bounded by the peer's MSS, less the timestamp option. */
export function syncMss(s: Tcb, pmtu: number): void {
  const mss = Math.min(pmtu - 40, s.peerMss) - (s.tsOk ? TS_ALIGNED : 0);
  s.mss = Math.max(mss, 48);
  if (s.sender !== undefined) s.sender.sb.mss = s.mss;
}

/** tcp_rcv_synsent_state_process. */
export function receiveInSynSent(s: Tcb, view: TcpView, pkt: Packet): void {
  if (view.ack && view.ackNumber !== s.sndNxt) {
    // tcp_rcv_synsent_state_process: an ACK of an old connection (a TIME_WAIT's answer) is reset, and
    // a first SYN goes again after TCP_TIMEOUT_MIN (2 jiffies, 8 ms at HZ=250) instead of the RTO.
    if (s.retransmits === 0) {
      cancelRto(s);
      s.rtoTimer = s.stack.ctx.scheduler.schedule(TCP_TIMEOUT_MIN, () => retransmitTimer(s));
    }
    if (!view.rst) sendReset(s, pkt);
    return;
  }
  if (view.rst) {
    if (view.ack) finish(s, 'ECONNREFUSED');
    return;
  }
  if (!view.syn || !view.ack) return;
  s.received.parse(view, true);
  s.window.rcvNxt = (view.seqNumber + 1) >>> 0;
  s.window.rcvWup = s.window.rcvNxt;
  s.tsOk = s.tsOk && s.received.sawTimestamp;
  s.sackOk = s.sackOk && s.received.sackPermitted;
  s.wscaleOk = s.wscaleOk && s.received.wscale >= 0;
  if (!s.wscaleOk) s.window.rcvWscale = 0;
  s.sndWscale = s.wscaleOk ? s.received.wscale : 0;
  s.peerMss = s.received.mss > 0 ? s.received.mss : TCP_MSS_DEFAULT;
  if (s.tsOk) s.tsRecent = s.received.tsVal;
  s.sndUna = view.ackNumber;
  s.bufSeq = s.sndUna;
  s.sndWnd = view.window;
  s.sndWl1 = view.seqNumber;
  sampleRtt(s, view.ackNumber);
  establish(s);
  sendAck(s);
  if (!s.orphan) s.socket.onConnect?.(s.socket);
  pushPending(s);
}
