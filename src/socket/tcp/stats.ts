// What `ss -i/-o/-e/-m` and nstat read of a TCP connection: tcp_info's counters kept per segment in and out,
// and the tcp_info snapshot with its timer (tcp_get_info, inet_diag_msg_common_fill); not the table-wide MIB
// (the IPv4 stack's).

import type { TcpView } from '../../wire/tcp.ts';
import { TCP_INFINITE_SSTHRESH } from './congestion/types.ts';
import { ACK, after, before, FIN, INIT_CWND, SYN, TS_ALIGNED } from './constants.ts';
import type { Tcb } from './control-block.ts';
import type { TcpInfo } from './info.ts';
import { backoff } from './rto.ts';
import { bufferSysctl } from './sysctl.ts';

/** Every segment that reaches the connection (a listener's child counts the SYN, as tcp_create_openreq_child does); InSegs is the table's. */
export function countIn(s: Tcb, view: TcpView): void {
  const counts = s.counts;
  const now = s.stack.now;
  if (view.syn && counts.irs < 0) {
    counts.passive = !view.ack;
    counts.irs = view.seqNumber;
  }
  // tcp_finish_connect and tcp_create_openreq_child start lsndtime and lrcvtime at the handshake's end.
  const handshake =
    s.state === 'SYN_SENT' ? view.syn && view.ack : s.state === 'SYN_RECV' && view.ack && !view.syn;
  if (handshake && !view.rst) {
    counts.lastDataSentNs = now;
    counts.lastDataRecvNs = now;
  }
  counts.segsIn++;
  if (view.segmentLen > view.headerLen) {
    counts.dataSegsIn++;
    counts.lastDataRecvNs = now;
  }
  if (view.ack) {
    counts.lastAckRecvNs = now;
    if (s.rttSeq >= 0 && !before(view.ackNumber, s.rttSeq)) {
      const sample = now - s.rttSentAt;
      if (counts.minRttNs === 0 || sample < counts.minRttNs) counts.minRttNs = Math.max(sample, 1000);
    }
  }
}

/** Every segment sent: OutSegs skips retransmissions (__tcp_transmit_skb), which count in RetransSegs instead. */
export function countOut(s: Tcb, flags: number, seq: number, len: number): void {
  const counts = s.counts;
  const mib = s.stack.tcpOutMib;
  const end = (seq + len + (flags & SYN ? 1 : 0) + (flags & FIN ? 1 : 0)) >>> 0;
  const retransmission = end !== seq && counts.sentEnd >= 0 && !after(end, counts.sentEnd);
  if (!retransmission && end !== seq) counts.sentEnd = end;
  if (retransmission) {
    mib.retransSegs++;
    counts.totalRetrans++;
    counts.bytesRetrans += len;
  } else mib.outSegs++;
  // A SYN-ACK is the request socket's, not the connection's (tcp_make_synack).
  if ((flags & (SYN | ACK)) === (SYN | ACK)) return;
  counts.segsOut++;
  if (len > 0) {
    counts.dataSegsOut++;
    counts.bytesSent += len;
    counts.lastDataSentNs = s.stack.now;
  }
}

/** tp->advmss: less the timestamp option once both sides agreed on it (tcp_rcv_synsent_state_process). */
export function infoAdvmss(s: Tcb): number {
  return s.advmss - (s.tsOk && s.state !== 'SYN_SENT' ? TS_ALIGNED : 0);
}

/** The connection's tcp_info, timer and buffer sizes, read at s.socket instant. */
export function info(s: Tcb): TcpInfo {
  const scheduler = s.stack.ctx.scheduler;
  const counts = s.counts;
  // inet_sk_diag_fill: the retransmit timer (RTO, loss probe, reordering) first, then the zero-window
  // probe, then keepalive (sk_timer); a TIME_WAIT socket reports its own timer.
  const rtoDue = s.rtoTimer >= 0 ? scheduler.dueTime(s.rtoTimer) : undefined;
  const probeDue = s.probeTimer >= 0 ? scheduler.dueTime(s.probeTimer) : undefined;
  const keepaliveDue = s.keepaliveTimer >= 0 ? scheduler.dueTime(s.keepaliveTimer) : undefined;
  const waitDue = s.waitTimer >= 0 ? scheduler.dueTime(s.waitTimer) : undefined;
  const timer =
    waitDue !== undefined
      ? 'timewait'
      : rtoDue !== undefined
        ? 'on'
        : probeDue !== undefined
          ? 'persist'
          : keepaliveDue !== undefined
            ? 'keepalive'
            : 'off';
  const synchronized = s.state !== 'SYN_SENT' && s.state !== 'SYN_RECV';
  const inFlight = (s.sndNxt - s.sndUna) >>> 0;
  return {
    state: s.state,
    timer,
    timerExpiresNs: waitDue ?? rtoDue ?? probeDue ?? keepaliveDue ?? 0,
    timerRetrans:
      timer === 'on' ? s.retransmits : timer === 'persist' || timer === 'keepalive' ? s.probesOut : 0,
    backoff: backoff(s),
    timestamps: s.tsOk,
    sack: s.sackOk,
    wscaleOk: s.wscaleOk,
    sndWscale: s.wscaleOk ? s.sndWscale : 0,
    rcvWscale: s.wscaleOk ? s.window.rcvWscale : 0,
    rtoNs: s.rto,
    atoNs: s.ato,
    srttNs: s.srtt,
    rttvarNs: s.rttvar,
    minRttNs: counts.minRttNs,
    mss: s.mss,
    pmtu: s.pathMtu(),
    rcvMss: s.rcvMss,
    advmss: infoAdvmss(s),
    cwnd: s.sender?.cwnd ?? INIT_CWND,
    ssthresh: s.sender?.tp.ssthresh ?? TCP_INFINITE_SSTHRESH,
    bytesSent: counts.bytesSent,
    bytesRetrans: counts.bytesRetrans,
    bytesAcked: synchronized ? (s.sndUna - s.iss - (counts.passive ? 1 : 0)) >>> 0 : 0,
    bytesReceived: counts.irs >= 0 && synchronized ? (s.window.rcvNxt - counts.irs - 1) >>> 0 : 0,
    segsOut: counts.segsOut,
    segsIn: counts.segsIn,
    dataSegsOut: counts.dataSegsOut,
    dataSegsIn: counts.dataSegsIn,
    totalRetrans: counts.totalRetrans,
    unacked: inFlight === 0 ? 0 : Math.ceil(inFlight / s.mss),
    retransOut: s.sender?.sb.retransOut ?? 0,
    lost: s.sender?.sb.lostOut ?? 0,
    sacked: s.sender?.sb.sackedOut ?? 0,
    rcvRttUs: s.autotune.rttUs >>> 3,
    rcvSpace: synchronized ? s.autotune.space : 0,
    rcvSsthresh: s.window.rcvSsthresh,
    sndWnd: s.sndWnd,
    sendQueue: s.sendQueue,
    rcvbuf: s.window.rcvbuf > 0 ? s.window.rcvbuf : bufferSysctl(s.stack.sysctls, 'tcp_rmem', 1),
    sndbuf: bufferSysctl(s.stack.sysctls, 'tcp_wmem', 1),
    sendShutdown: s.finQueued,
    congestion: s.congestion,
    rcvShutdown:
      s.state === 'CLOSE_WAIT' || s.state === 'LAST_ACK' || s.state === 'CLOSING' || s.state === 'TIME_WAIT',
    orphan: s.orphan,
    lastDataSentNs: counts.lastDataSentNs,
    lastDataRecvNs: counts.lastDataRecvNs,
    lastAckRecvNs: counts.lastAckRecvNs,
  };
}
