// One TCP connection's state machine, mirroring net/ipv4/tcp_input.c, tcp_output.c and tcp_timer.c for what
// exchanges and bulk transfers between two applications need: the handshake, in-order data, Linux's ACK policy,
// FIN and RST, timers.
//
// Modelled: Linux's SYN options and initial windows, window scaling, timestamps, the quick-ACK
// and ping-pong (delayed ACK) engine, Nagle with Minshall's rule, PSH on the last segment of
// the queued data, full-MSS segments that wait for the peer's window (tcp_snd_wnd_test), the
// sender's loss recovery and congestion control through sender-control.ts (the SACK scoreboard,
// RACK-TLP with tail loss probes and the reordering timer, the recovery states with PRR, undo and
// F-RTO, CUBIC from ten segments, tcp_slow_start_after_idle), one transmit timer that is the RTO,
// the loss probe or RACK's reordering timer (icsk_pending), retransmission with backoff after a
// timeout (tcp_enter_loss), tcp_simple_retransmit after an ICMP frag-needed, tcp_retries2 as a
// time budget, SYN retries with tcp_syn_linear_timeouts and SYN-ACK retries, TIME_WAIT (60 s), the
// receive buffer charged at each segment's truesize with the window it backs (window.ts: scaling
// ratio, tcp_grow_window, tcp_select_window, tcp_cleanup_rbuf's window update), an application
// that pauses reading, the persist timer and zero-window probes, SO_KEEPALIVE, the socket backlog
// while a send from process context holds the socket (on a veth the peer answers each segment
// before the next leaves), per-socket IP ids, the receiver's out-of-order queue with SACK and
// D-SACK blocks (ofo-queue.ts, sack-blocks.ts), and the errors an application sees.
// Not modelled: the RTT estimator from per-ACK samples (one timed segment per round trip here),
// out-of-order data charged to the receive buffer, receive-buffer autotuning (DRS), queue
// coalescing and collapsing, TSO/GSO, urgent data, SO_LINGER with a timeout.

import type { Packet } from '../../core/packet.ts';
import type { Ipv4Stack } from '../../net/ipv4.ts';
import type { CongestionAlgorithm } from '../../net/route.ts';
import { sendTcpReset } from '../../net/tcp-reset.ts';
import type { Ipv4Addr } from '../../wire/address.ts';
import { IPPROTO_TCP } from '../../wire/ipv4.ts';
import { TCP_HEADER_LEN, TcpView } from '../../wire/tcp.ts';
import { assignCongestion } from './congestion/assign.ts';
import { TCP_INFINITE_SSTHRESH } from './congestion/types.ts';
import {
  ACK,
  ACK_PUSHED,
  ACK_PUSHED2,
  ACK_SCHED,
  ACK_TIMER,
  ATO_MIN,
  advertisedMss,
  after,
  before,
  DELACK_MAX,
  FIN,
  INIT_CWND,
  MAX_QUICKACKS,
  MS,
  PINGPONG_THRESH,
  PSH,
  RMEM_MAX,
  RST,
  RTO_MAX,
  RTO_MIN,
  SYN,
  TCP_TIMEOUT_MIN,
  type TcpError,
  TIMEOUT_INIT,
  TIMEWAIT_LEN,
  TS_ALIGNED,
  UNREACH_ERRNO,
} from './constants.ts';
import type { TcpInfo } from './info.ts';
import { OfoQueue } from './ofo-queue.ts';
import { type OutgoingOptions, optionsLength, ReceivedOptions, writeOptions } from './options.ts';
import { ReceiveQueue } from './receive-queue.ts';
import { SackBlocks } from './sack-blocks.ts';
import { FLAG_DATA, FLAG_WIN_UPDATE, type TxSegment } from './scoreboard.ts';
import { SenderControl } from './sender-control.ts';
import { seqAfter, seqBefore } from './seq.ts';
import { bufferSysctl, defaultCongestion } from './sysctl.ts';
import {
  computeWindow,
  DEFAULT_SCALING_RATIO,
  fullSpace,
  growWindow,
  initBufferSpace,
  initialRcvMss,
  measureScalingRatio,
  type ReceiveWindow,
  receiveWindow,
  SEGMENT_OVERHEAD,
  selectInitialWindow,
  selectWindow,
  spaceBelowHalf,
  TCP_MSS_DEFAULT,
} from './window.ts';

export type TcpState =
  | 'SYN_SENT'
  | 'SYN_RECV'
  | 'ESTABLISHED'
  | 'FIN_WAIT1'
  | 'FIN_WAIT2'
  | 'CLOSE_WAIT'
  | 'CLOSING'
  | 'LAST_ACK'
  | 'TIME_WAIT'
  | 'CLOSE';

export type { TcpError } from './constants.ts';

/** What a connection needs from its namespace's TCP table. */
export interface TcpHost {
  readonly stack: Ipv4Stack;
  /** ISNs and timestamp offsets (secure_tcp_seq, secure_tcp_ts_off draw from a keyed hash; we draw from the seed). */
  random32(): number;
  /** The connection left the table (closed, or its TIME_WAIT ended). */
  unhash(socket: TcpSocket): void;
  /** A SYN_RECV child completed the handshake: hand it to its listener. */
  established(socket: TcpSocket): void;
}

/** How a connection was opened. */
export interface TcpEndpoints {
  readonly localAddr: Ipv4Addr;
  readonly localPort: number;
  readonly remoteAddr: Ipv4Addr;
  readonly remotePort: number;
  readonly mark: number;
  /** TCP_CONGESTION set before the handshake (connect's option, or a listener's that its children inherit). */
  readonly congestion?: CongestionAlgorithm;
}

export class TcpSocket implements TcpEndpoints {
  state: TcpState;
  readonly localAddr: Ipv4Addr;
  readonly localPort: number;
  readonly remoteAddr: Ipv4Addr;
  readonly remotePort: number;
  readonly mark: number;

  /** The connection is established (client: after the SYN-ACK; server: when accepted). */
  onConnect: ((socket: TcpSocket) => void) | undefined;
  /** Bytes arrived in order (a copy the application keeps). */
  onData: ((socket: TcpSocket, data: Uint8Array) => void) | undefined;
  /** The peer sent FIN: no more data will come. */
  onEnd: ((socket: TcpSocket) => void) | undefined;
  /** The connection is gone for the application: closed both ways, reset, or failed with `error`. */
  onClose: ((socket: TcpSocket, error: TcpError | undefined) => void) | undefined;

  // Send sequence space (RFC 9293 names).
  private iss = 0;
  private sndUna = 0;
  private sndNxt = 0;
  /**
   * The sender's scoreboard, RACK-TLP, recovery states and CUBIC (sender-control.ts), from
   * tcp_init_transfer on: which segments are out, lost, resent, and the congestion window.
   */
  private sender: SenderControl | undefined;
  /** tcp_cwnd_validate's record: is_cwnd_limited, max_packets_out, cwnd_usage_seq. */
  private isCwndLimited = false;
  private maxPacketsOut = 0;
  private cwndUsageSeq = 0;
  /** The MSS the segments in flight were cut with. */
  private sentMss = TCP_MSS_DEFAULT;
  private sndWnd = 0;
  private sndWl1 = 0;
  private sndWscale = 0;
  /** End of the last small segment sent (Minshall's variant of Nagle). */
  private sndSml = 0;
  /** TCP_NODELAY (tp->nonagle's TCP_NAGLE_OFF): small segments leave without waiting for an ACK. */
  private noDelay = false;
  /** SO_LINGER: l_onoff and l_linger (seconds). */
  private lingerOn = false;
  private lingerSeconds = 0;
  /** A close() with SO_LINGER that has not returned yet: called with true when the linger time ran out. */
  private lingerReturn: ((timedOut: boolean) => void) | undefined;
  private lingerTimer = -1;
  /** Bytes written and not yet acknowledged; sendBuf[0] has sequence number bufSeq. */
  private sendBuf = new Uint8Array(0);
  private sendLen = 0;
  private bufSeq = 0;
  /** The application called end(): a FIN follows the data. */
  private finQueued = false;
  /** The FIN's sequence number once sent. */
  private finSeq = -1;

  // Receive side.
  private readonly window: ReceiveWindow = {
    rcvWnd: 0,
    rcvWup: 0,
    rcvNxt: 0,
    rcvSsthresh: 0,
    windowClamp: 0,
    rcvWscale: 0,
    scalingRatio: DEFAULT_SCALING_RATIO,
    rcvbuf: 0,
    rmemAlloc: 0,
  };
  /** The MSS our SYN announced (the route's MTU less 40). */
  private advmss = 0;
  /** tp->advmss once synchronized: the announced MSS less the timestamp option when timestamps are on. */
  private tcpAdvmss = 0;
  /** copied_seq: the next byte the application reads. */
  private copiedSeq = 0;
  /** Bytes received in order and not yet read (the application paused reading). */
  private readonly rcvQueue = new ReceiveQueue();
  /** pauseReading(): arriving data stays in the receive buffer. */
  private readPaused = false;
  /** The peer's FIN arrived (RCV_SHUTDOWN). */
  private rcvShutdown = false;
  /** onEnd is owed once the application read up to the FIN. */
  private endPending = false;
  /** mss_cache: the payload of a full-sized segment we send. */
  private mss = TCP_MSS_DEFAULT;
  private peerMss = TCP_MSS_DEFAULT;
  private tsOk = false;
  private sackOk = false;
  private wscaleOk = false;
  private tsOffset = 0;
  private tsRecent = 0;
  private readonly received = new ReceivedOptions();
  /** The SACK blocks we announce and the out-of-order queue behind them. */
  private readonly sack = new SackBlocks(false, () => this.sysctl('tcp_dsack') !== 0);
  private readonly ofo = new OfoQueue(this.sack);

  // The delayed-ACK engine (icsk_ack).
  private ackPending = 0;
  private quick = 0;
  private pingpong = 0;
  private ato = 0;
  private lrcvtime = 0;
  private rcvMss = TCP_MSS_DEFAULT;
  private lastSegSize = 0;

  // Congestion and retransmission.
  private srtt = 0;
  /**
   * What recovery reads of the RTT estimator: srtt in µs. The estimator stays the socket's (one
   * timed segment per round trip, Karn's rule), so the scoreboard's per-ACK samples are not used.
   */
  private readonly rttHost = { rttSample: (_us: number): void => {}, srttUs: 0, sackOk: false };
  private rttvar = 0;
  private rto = TIMEOUT_INIT;
  private retransmits = 0;
  private rttSeq = -1;
  private rttSentAt = 0;

  private rtoTimer = -1;
  /** The last SYN sent, for skb_still_in_host_queue: not sent again while a neighbour still holds it. */
  private lastSyn: Packet | undefined;
  /** What the one transmit timer is armed for (icsk_pending): the RTO, a tail loss probe, RACK's reordering window. */
  private xmitKind: 'retrans' | 'loss-probe' | 'reo-timeout' = 'retrans';
  /** When the oldest unacknowledged segment was first sent: where tcp_retries2's time budget starts (retrans_stamp). */
  private headSentAt = 0;
  /** tcp_sock's rcv_tstamp: when the last ACK arrived (keepalive counts silence from it and from lrcvtime). */
  private rcvTstamp = 0;
  /** SO_KEEPALIVE, with TCP_KEEPIDLE, TCP_KEEPINTVL and TCP_KEEPCNT in seconds (0: the sysctl's). */
  private readonly keepalive = { on: false, idle: 0, interval: 0, count: 0 };
  private keepaliveTimer = -1;
  /** The persist timer (ICSK_TIME_PROBE0), its backoff (icsk_backoff) and the probes sent unanswered by a window. */
  private probeTimer = -1;
  private probeBackoff = 0;
  private probesOut = 0;
  /** tcp_oow_rate_limited's last_oow_ack_time, in ns (-1: never). */
  private lastOowAck = -1;
  private delackTimer = -1;
  private waitTimer = -1;
  /**
   * The application holds the socket (lock_sock in a send from process context): segments that
   * arrive meanwhile wait in the socket's backlog until release_sock.
   */
  private owned = false;
  /** A segment left while the socket was held: its consequences run before the next one leaves. */
  private sentWhileOwned = false;
  private readonly backlogViews: TcpView[] = [];
  private readonly backlogPackets: Packet[] = [];
  /** An ICMP frag-needed came while the socket was held (TCP_MTU_REDUCED_DEFERRED). */
  private mtuReducedDeferred = false;
  /** The application closed its socket: nothing more is reported (an orphan finishing its close). */
  private orphan = false;
  private closed = false;
  private timeWaitSinceMs = -1;
  /** onClose ran (a connection in TIME_WAIT is closed for the application). */
  private reportedClose = false;
  private readonly pseudo = { srcAddr: 0, dstAddr: 0 };
  /**
   * inet_id: the IP id of the next segment, random at connect() or accept (get_random_u16; here the
   * top half of the timestamp offset's draw, so the seed's other draws stay put), one more per segment.
   */
  private ipId = 0;
  private readonly outputOptions = { protocol: IPPROTO_TCP, pmtudisc: 'do' as const, ident: 0 };
  private readonly congestionSetsockopt: CongestionAlgorithm | undefined;
  /** The congestion control the connection runs (icsk_ca_ops): tcp_init_sock's, then the route's at establish. */
  congestion: CongestionAlgorithm;

  constructor(
    private readonly host: TcpHost,
    endpoints: TcpEndpoints,
    state: TcpState,
  ) {
    this.localAddr = endpoints.localAddr;
    this.localPort = endpoints.localPort;
    this.remoteAddr = endpoints.remoteAddr;
    this.remotePort = endpoints.remotePort;
    this.mark = endpoints.mark;
    this.congestionSetsockopt = endpoints.congestion;
    this.congestion = endpoints.congestion ?? defaultCongestion(host.stack.sysctls);
    this.state = state;
    this.pseudo.srcAddr = endpoints.localAddr;
    this.pseudo.dstAddr = endpoints.remoteAddr;
  }

  private get stack(): Ipv4Stack {
    return this.host.stack;
  }

  private sysctl(key: string): number {
    return this.stack.sysctls.int(`net.ipv4.${key}`);
  }

  private get nowMs(): number {
    return Math.floor(this.stack.now / MS);
  }

  /** tcp_clock_ms plus the connection's offset: the TSval we send. */
  private tsNow(): number {
    return (this.nowMs + this.tsOffset) >>> 0;
  }

  /** The route's MTU toward the peer, a learned path MTU included. */
  private pathMtu(): number {
    const route = this.stack.routeOutput(this.remoteAddr, { src: this.localAddr, mark: this.mark });
    if (!route.ok) return 576;
    const dev = this.stack.interfaces.byIndex(route.ifindex);
    return dev === undefined ? 576 : this.stack.pathMtu(route, this.remoteAddr, dev);
  }

  /** tcp_full_space of a new socket: sk_rcvbuf starts at tcp_rmem[1], the scaling ratio at one half. */
  private fullSpace(): number {
    this.window.rcvbuf = bufferSysctl(this.stack.sysctls, 'tcp_rmem', 1);
    return fullSpace(this.window);
  }

  // ---- opening -------------------------------------------------------------------------

  /**
   * tcp_v4_connect → tcp_connect_init + tcp_connect: picks ISN and windows, sends the SYN. `reuse` is
   * what tcp_twsk_unique carried over when the 4-tuple came from a TIME_WAIT connection: write_seq and
   * ts_recent (the SYN echoes it, and the window is a multiple of the MSS less timestamps).
   */
  connect(reuse?: { readonly iss: number; readonly tsRecent: number }): void {
    const drawn = this.host.random32();
    this.iss = reuse?.iss ?? drawn;
    this.tsOffset = this.host.random32();
    this.ipId = this.tsOffset >>> 16;
    this.advmss = advertisedMss(this.pathMtu());
    this.tsOk = this.sysctl('tcp_timestamps') !== 0;
    this.sackOk = this.sysctl('tcp_sack') !== 0;
    this.wscaleOk = this.sysctl('tcp_window_scaling') !== 0;
    if (reuse !== undefined) this.tsRecent = reuse.tsRecent;
    const initial = selectInitialWindow(
      this.fullSpace(),
      this.advmss - (reuse !== undefined && this.tsOk ? TS_ALIGNED : 0),
      this.wscaleOk,
      Math.max(bufferSysctl(this.stack.sysctls, 'tcp_rmem', 2), RMEM_MAX),
    );
    this.window.rcvWnd = initial.rcvWnd;
    this.window.rcvWscale = initial.rcvWscale;
    this.window.windowClamp = initial.windowClamp;
    this.sndUna = this.iss;
    this.sndNxt = (this.iss + 1) >>> 0;
    this.bufSeq = this.sndNxt;
    this.sndSml = this.sndNxt;
    this.retransmits = 0;
    // tcp_connect arms the RTO after tcp_transmit_skb, but the timer wheel runs a bucket's timers
    // last-armed first: armed ahead on this FIFO clock, the RTO still fires before the ARP timer the
    // SYN started (an unanswered ARP: the third RTO finds the SYN queued, then the neighbour fails).
    this.armRto();
    this.sendSyn();
    this.rttSeq = this.sndNxt;
    this.rttSentAt = this.stack.now;
  }

  private sendSyn(): void {
    this.lastSyn = this.transmit(SYN, this.iss, 0, 0, {
      mss: this.advmss,
      sackPermitted: this.sackOk,
      timestamps: this.tsOk,
      tsVal: this.tsNow(),
      tsEcr: this.tsRecent,
      wscale: this.wscaleOk ? this.window.rcvWscale : -1,
    });
  }

  /**
   * A listener's answer to a SYN (tcp_conn_request → tcp_openreq_init_rwin → tcp_make_synack):
   * options are those both sides offered, the window a multiple of the MSS less timestamps.
   */
  acceptSyn(view: TcpView): void {
    this.countIn(view);
    this.received.parse(view, true);
    this.iss = this.host.random32();
    this.tsOffset = this.host.random32();
    this.ipId = this.tsOffset >>> 16;
    this.window.rcvNxt = (view.seqNumber + 1) >>> 0;
    this.window.rcvWup = this.window.rcvNxt;
    this.tsOk = this.received.sawTimestamp && this.sysctl('tcp_timestamps') !== 0;
    this.sackOk = this.received.sackPermitted && this.sysctl('tcp_sack') !== 0;
    this.wscaleOk = this.received.wscale >= 0 && this.sysctl('tcp_window_scaling') !== 0;
    this.sndWscale = this.wscaleOk ? this.received.wscale : 0;
    this.peerMss = this.received.mss > 0 ? this.received.mss : TCP_MSS_DEFAULT;
    if (this.tsOk) this.tsRecent = this.received.tsVal;
    this.advmss = advertisedMss(this.pathMtu());
    const initial = selectInitialWindow(
      this.fullSpace(),
      this.advmss - (this.tsOk ? TS_ALIGNED : 0),
      this.wscaleOk,
      Math.max(bufferSysctl(this.stack.sysctls, 'tcp_rmem', 2), RMEM_MAX),
    );
    this.window.rcvWnd = initial.rcvWnd;
    this.window.rcvWscale = initial.rcvWscale;
    this.window.windowClamp = initial.windowClamp;
    this.sndWnd = view.window;
    this.sndUna = this.iss;
    this.sndNxt = (this.iss + 1) >>> 0;
    this.bufSeq = this.sndNxt;
    this.sndSml = this.sndNxt;
    this.retransmits = 0;
    this.sendSynAck();
    this.armRto();
  }

  private sendSynAck(): void {
    this.transmit(SYN | ACK, this.iss, 0, 0, {
      mss: this.advmss,
      sackPermitted: this.sackOk,
      timestamps: this.tsOk,
      tsVal: this.tsNow(),
      tsEcr: this.tsRecent,
      wscale: this.wscaleOk ? this.window.rcvWscale : -1,
    });
  }

  /** tcp_finish_connect / tcp_init_transfer: both sides synchronized; sizes settle. */
  private establish(): void {
    this.state = 'ESTABLISHED';
    this.sack.sackOk = this.sackOk;
    this.syncMss(this.pathMtu());
    this.tcpAdvmss = this.advmss - (this.tsOk ? TS_ALIGNED : 0);
    this.copiedSeq = this.window.rcvNxt;
    initBufferSpace(this.window, this.tcpAdvmss, this.sysctl('tcp_app_win'));
    this.rcvMss = initialRcvMss(this.tcpAdvmss, this.mss, this.window.rcvWnd);
    this.retransmits = 0;
    this.rcvTstamp = this.stack.now;
    this.cancelRto();
    this.rttHost.sackOk = this.sackOk;
    this.rttHost.srttUs = this.srtt / 1000;
    const route = this.stack.routeOutput(this.remoteAddr, { src: this.localAddr, mark: this.mark });
    this.congestion = assignCongestion(
      route.ok ? route.congctl : undefined,
      this.congestionSetsockopt,
      defaultCongestion(this.stack.sysctls),
    );
    this.sender = new SenderControl(
      { congestion: this.congestion, mss: this.mss, maxWindow: this.sndWnd, initialCwnd: INIT_CWND },
      this.rttHost,
    );
    this.sender.start(this.sndUna, this.stack.now);
    this.cwndUsageSeq = this.sndUna;
    if (this.keepalive.on) this.armKeepalive(this.keepaliveTime());
  }

  /** tcp_sync_mss: the segment payload for a path MTU, bounded by the peer's MSS, less the timestamp option. */
  private syncMss(pmtu: number): void {
    const mss = Math.min(pmtu - 40, this.peerMss) - (this.tsOk ? TS_ALIGNED : 0);
    this.mss = Math.max(mss, 48);
    if (this.sender !== undefined) this.sender.sb.mss = this.mss;
  }

  // ---- application calls ---------------------------------------------------------------

  /** send(): queues bytes and sends what the windows and Nagle allow. False once the sending side is shut. */
  write(data: Uint8Array): boolean {
    if (this.finQueued || this.closed) return false;
    this.sender?.idleCheck(this.stack.now, this.sysctl('tcp_slow_start_after_idle') !== 0, this.rtoJiffies());
    const needed = this.sendLen + data.length;
    if (needed > this.sendBuf.length) {
      const grown = new Uint8Array(Math.max(needed, this.sendBuf.length * 2, 4096));
      grown.set(this.sendBuf.subarray(0, this.sendLen));
      this.sendBuf = grown;
    }
    this.sendBuf.set(data, this.sendLen);
    this.sendLen = needed;
    if (this.synchronized()) this.pushFromApplication();
    return true;
  }

  /**
   * tcp_sendmsg's push with the socket held. Called from process context (not from a received
   * frame's consequences), each segment reaches the peer before the next leaves: dev_queue_xmit's
   * local_bh_enable runs the receive softirq, so on a veth the peer's answers come back at once and
   * wait in our backlog; release_sock then processes them (and what they make us send).
   */
  private pushFromApplication(): void {
    if (this.owned || this.stack.ctx.backlog.draining) {
      this.pushPending();
      return;
    }
    this.owned = true;
    this.sentWhileOwned = false;
    this.pushPending();
    this.releaseSock();
  }

  /** release_sock → __release_sock: the backlog in arrival order, the socket still held. */
  private releaseSock(): void {
    let i = 0;
    for (;;) {
      for (; i < this.backlogViews.length; i++) this.process(this.backlogViews[i]!, this.backlogPackets[i]!);
      // tcp_release_cb: deferred work once the backlog is done; what it sends is answered into the backlog again.
      if (!this.mtuReducedDeferred) break;
      this.mtuReducedDeferred = false;
      this.mtuReduced();
    }
    this.backlogViews.length = 0;
    this.backlogPackets.length = 0;
    this.owned = false;
    this.sentWhileOwned = false;
  }

  /** shutdown(SHUT_WR) (Node's end()): a FIN after the queued data. */
  end(): void {
    if (this.finQueued || this.closed) return;
    this.finQueued = true;
    if (this.state === 'ESTABLISHED') this.state = 'FIN_WAIT1';
    else if (this.state === 'CLOSE_WAIT') this.state = 'LAST_ACK';
    else if (this.state === 'SYN_SENT' || this.state === 'SYN_RECV') {
      this.finish(undefined);
      return;
    }
    this.pushFromApplication();
  }

  /**
   * Node's pause(): the application stops reading. Arriving data waits in the receive buffer,
   * charged at its truesize, and the window advertised shrinks toward zero.
   */
  pauseReading(): void {
    this.readPaused = true;
  }

  /**
   * Node's resume(): the application reads what waits (one onData), and does so on arrival from
   * now on; tcp_cleanup_rbuf may announce the space freed with a window update.
   */
  resumeReading(): void {
    if (!this.readPaused) return;
    this.readPaused = false;
    this.deliver();
    if (this.isTimeWait() && !this.orphan && !this.reportedClose) {
      this.reportedClose = true;
      this.onClose?.(this, undefined);
    }
  }

  /**
   * setsockopt SO_KEEPALIVE (Node's setKeepAlive) with TCP_KEEPIDLE, TCP_KEEPINTVL and TCP_KEEPCNT
   * (seconds and a count; absent: tcp_keepalive_time 7200, tcp_keepalive_intvl 75 and
   * tcp_keepalive_probes 9). tcp_set_keepalive starts the timer at the idle time.
   */
  setKeepAlive(on: boolean, options: { idle?: number; interval?: number; count?: number } = {}): void {
    this.keepalive.on = on;
    this.keepalive.idle = options.idle ?? 0;
    this.keepalive.interval = options.interval ?? 0;
    this.keepalive.count = options.count ?? 0;
    if (this.keepaliveTimer >= 0) this.stack.ctx.scheduler.cancel(this.keepaliveTimer);
    this.keepaliveTimer = -1;
    if (on && this.synchronized() && !this.closed) this.armKeepalive(this.keepaliveTime());
  }

  /**
   * setsockopt TCP_NODELAY (Node's setNoDelay): with it on, tcp_nagle_test lets a small segment go while an
   * earlier one is unacknowledged; turning it on pushes what Nagle held back (__tcp_sock_set_nodelay's
   * tcp_push_pending_frames). Turning it off only clears the flag.
   */
  setNoDelay(on = true): void {
    this.noDelay = on;
    if (on && this.synchronized() && !this.closed) this.pushFromApplication();
  }

  /**
   * setsockopt SO_LINGER: l_onoff and l_linger in seconds. With a time, close() blocks until the FIN is
   * acknowledged or the time runs out; with 0, close() resets the connection (tcp_close's disconnect).
   */
  setLinger(on: boolean, seconds = 0): void {
    this.lingerOn = on;
    this.lingerSeconds = Math.max(0, Math.floor(seconds));
  }

  /**
   * close(): like end(), and the application hears nothing more (the orphan finishes the close alone).
   * `onReturn` runs when close() returns: at once, or with SO_LINGER and a time (inet_release → tcp_close →
   * sk_stream_wait_close) once the state leaves FIN_WAIT1, CLOSING and LAST_ACK (false) or when the linger
   * time ran out (true). Either way the wire is the same: the orphan then goes on as after any close (no reset).
   */
  destroy(onReturn?: (timedOut: boolean) => void): void {
    // tcp_close: data the application never read is lost, and the peer is told with a reset (RFC 2525, 2.17);
    // SO_LINGER with 0 seconds resets too.
    if ((!this.rcvQueue.empty && this.synchronized()) || (this.lingerOn && this.lingerSeconds === 0)) {
      this.abort();
      onReturn?.(false);
      return;
    }
    this.orphan = true;
    if (!this.closed) this.end();
    const closing = this.state === 'FIN_WAIT1' || this.state === 'CLOSING' || this.state === 'LAST_ACK';
    if (!this.lingerOn || !closing || this.closed) {
      onReturn?.(false);
      return;
    }
    this.lingerReturn = onReturn ?? (() => {});
    this.lingerTimer = this.stack.ctx.scheduler.schedule(this.lingerSeconds * 1000 * MS, () => {
      this.lingerTimer = -1;
      this.lingerEnded(true);
    });
  }

  /** sk_stream_wait_close wakes: the state left the closing ones, or the linger time ran out. */
  private lingerEnded(timedOut: boolean): void {
    const onReturn = this.lingerReturn;
    if (onReturn === undefined) return;
    this.lingerReturn = undefined;
    if (this.lingerTimer >= 0) this.stack.ctx.scheduler.cancel(this.lingerTimer);
    this.lingerTimer = -1;
    onReturn(timedOut);
  }

  /** close() with SO_LINGER 0: a reset, and the connection is gone. */
  abort(): void {
    if (this.closed) return;
    if (this.synchronized()) this.transmit(RST | ACK, this.sndNxt, 0, 0, undefined);
    this.orphan = true;
    this.finish(undefined);
  }

  private synchronized(): boolean {
    return this.state !== 'SYN_SENT' && this.state !== 'SYN_RECV' && this.state !== 'CLOSE';
  }

  // ---- receiving -----------------------------------------------------------------------

  /** tcp_v4_rcv for a segment the table found for this connection (checksum verified): the backlog while the application holds the socket. */
  receive(view: TcpView, pkt: Packet): void {
    if (this.owned) {
      this.backlogViews.push(view);
      this.backlogPackets.push(pkt);
      return;
    }
    this.process(view, pkt);
  }

  /** tcp_v4_do_rcv → tcp_rcv_state_process. */
  private process(view: TcpView, pkt: Packet): void {
    if (this.closed) return;
    this.countIn(view);
    if (this.state === 'SYN_SENT') {
      this.receiveInSynSent(view, pkt);
      return;
    }
    if (this.state === 'TIME_WAIT') {
      this.receiveInTimeWait(view);
      return;
    }
    const seq = view.seqNumber;
    const payloadLen = view.segmentLen - view.headerLen;
    this.received.parse(view, false);

    if (this.state === 'SYN_RECV') {
      if (view.rst) {
        this.finish(undefined);
        return;
      }
      if (view.syn && !view.ack) {
        // tcp_check_req: a retransmitted SYN gets the SYN-ACK again.
        this.sendSynAck();
        return;
      }
      if (!view.ack) return;
      if (view.ackNumber !== this.sndNxt) {
        this.sendReset(pkt);
        return;
      }
      this.sndUna = view.ackNumber;
      this.sndWnd = view.window * 2 ** this.sndWscale;
      this.sndWl1 = seq;
      this.establish();
      this.host.established(this);
      // The accepting application may have ended or closed the socket already.
      if (this.closed) return;
    }

    const rcvNxt = this.window.rcvNxt;
    const segEnd = (seq + payloadLen + (view.fin ? 1 : 0)) >>> 0;
    // tcp_sequence: a segment that ends before the window last advertised (a zero-window probe at
    // snd_una - 1) is answered with a duplicate ACK, at most one per tcp_invalid_ratelimit for one without data.
    if (before(segEnd, this.window.rcvWup) && !view.rst) {
      if (view.syn || !this.oowRateLimited(segEnd !== seq)) this.sendAck();
      return;
    }
    if (view.rst) {
      if (seq === rcvNxt) this.reset();
      return;
    }
    if (view.syn) {
      // tcp_validate_incoming: a SYN on a synchronized connection gets a challenge ACK.
      this.sendAck();
      return;
    }
    if ((payloadLen > 0 || view.fin) && seq !== rcvNxt && !this.inReceiveWindow(seq, segEnd)) {
      // tcp_send_dupack: an old segment is D-SACKed (up to rcv_nxt), in quick-ACK mode.
      if (seqBefore(seq, rcvNxt)) {
        this.enterQuickackMode();
        this.sack.dsackSet(seq, seqAfter(segEnd, rcvNxt) ? rcvNxt : segEnd);
      }
      this.sendAck();
      return;
    }
    if (!view.ack) return;
    if (this.tsOk && this.received.sawTimestamp && !after(seq, this.window.rcvWup))
      this.tsRecent = this.received.tsVal;

    if (!this.processAck(view)) return;
    if (this.closed) return;

    let fin = false;
    let queued = false;
    let ackNow = false;
    const start = view.offset + view.headerLen;
    const carriesData = (payloadLen > 0 || view.fin) && this.acceptsData();
    if (carriesData) this.sack.clearDsack();
    if (carriesData && seqAfter(seq, this.window.rcvNxt)) {
      // tcp_data_queue_ofo: held until the hole fills; the ACK goes now, with the SACK blocks.
      this.ofo.insert(seq, view.bytes.slice(start, start + payloadLen), view.fin);
      this.ackPending |= ACK_SCHED;
      ackNow = true;
    } else if (payloadLen > 0 && this.acceptsData()) {
      if (receiveWindow(this.window) === 0) {
        // tcp_data_queue: no window left; the segment is dropped and answered at once.
        this.enterQuickackMode();
        this.ackPending |= ACK_SCHED;
        this.ackCheck();
        this.pushPending();
        return;
      }
      // tcp_try_rmem_schedule: a buffer already overcommitted grows to what it holds (tcp_prune_queue → tcp_clamp_window).
      if (this.window.rmemAlloc > this.window.rcvbuf) this.clampWindow();
      // In order, or its head already received (D-SACKed, tcp_data_queue's partial packet).
      const skip = (this.window.rcvNxt - seq) >>> 0;
      if (skip > 0) this.sack.dsackSet(seq, this.window.rcvNxt);
      // tcp_queue_rcv: the segment is charged to the receive buffer before tcp_event_data_recv.
      this.window.rcvNxt = (seq + payloadLen) >>> 0;
      this.window.rmemAlloc += payloadLen - skip + SEGMENT_OVERHEAD;
      this.rcvQueue.push(view.bytes.slice(start + skip, start + payloadLen));
      this.dataReceived(view, payloadLen);
      queued = true;
      if (!this.ofo.empty) {
        this.drainOfo();
        // RFC 5681 4.2: ACK at once when the gap is filled.
        if (this.ofo.empty) ackNow = true;
        fin = this.ofo.drainedFin;
      }
      if (this.sack.numSacks > 0) this.sack.remove(this.window.rcvNxt, this.ofo.empty);
    }
    if (!fin && view.fin && !seqAfter(seq, this.window.rcvNxt) && segEnd === (this.window.rcvNxt + 1) >>> 0) {
      this.window.rcvNxt = segEnd;
      fin = true;
    }
    if (fin) {
      this.rcvShutdown = true;
      this.endPending = true;
      this.finReceived();
    }
    if (ackNow && !this.closed && this.ackPending & ACK_SCHED) this.sendAck();
    else if (queued || fin) this.ackCheck();
    this.pushPending();
    if (!this.readPaused) this.deliver();
    // Both FINs are through: the application's socket is closed while TIME_WAIT holds the 4-tuple.
    if (this.isTimeWait() && !this.orphan && !this.reportedClose && !this.endPending) {
      this.reportedClose = true;
      this.onClose?.(this, undefined);
    }
  }

  /**
   * tcp_recvmsg: the application reads everything queued (one chunk), then tcp_cleanup_rbuf
   * decides whether the freed space deserves an ACK; the FIN is read after the data.
   */
  private deliver(): void {
    const data = this.rcvQueue.takeAll();
    if (data !== undefined) {
      this.window.rmemAlloc = 0;
      this.copiedSeq = (this.copiedSeq + data.length) >>> 0;
      this.cleanupRbuf(data.length);
      if (!this.orphan) this.onData?.(this, data);
    }
    if (this.endPending && !this.readPaused) {
      this.endPending = false;
      if (!this.orphan && !this.closed) this.onEnd?.(this);
    }
  }

  /** tcp_oow_rate_limited: data segments are never limited; others get one answer per tcp_invalid_ratelimit ms. */
  private oowRateLimited(hasData: boolean): boolean {
    if (hasData) return false;
    const now = this.stack.now;
    if (this.lastOowAck >= 0 && now - this.lastOowAck < this.sysctl('tcp_invalid_ratelimit') * MS)
      return true;
    this.lastOowAck = now;
    return false;
  }

  /** tcp_sequence: some of [seq, segEnd) falls in [rcv_nxt, rcv_nxt + rcv_wnd) (zero-length segments at rcv_nxt only). */
  private inReceiveWindow(seq: number, segEnd: number): boolean {
    const rcvNxt = this.window.rcvNxt;
    const windowEnd = (rcvNxt + this.window.rcvWnd) >>> 0;
    return seqAfter(segEnd, rcvNxt) && seqBefore(seq, windowEnd);
  }

  /**
   * tcp_ofo_queue: what the out-of-order queue releases joins the receive queue, charged to the buffer then
   * (Linux charges it on arrival, so out-of-order bytes also narrow the window: not modelled).
   */
  private drainOfo(): void {
    this.window.rcvNxt = this.ofo.drain(this.window.rcvNxt, (piece) => {
      this.rcvQueue.push(piece);
      this.window.rmemAlloc += piece.length + SEGMENT_OVERHEAD;
    });
  }

  /** A method, so a state change inside a call is seen where the compiler narrowed the field. */
  private isTimeWait(): boolean {
    return this.state === 'TIME_WAIT';
  }

  private acceptsData(): boolean {
    return this.state === 'ESTABLISHED' || this.state === 'FIN_WAIT1' || this.state === 'FIN_WAIT2';
  }

  /** tcp_rcv_synsent_state_process. */
  private receiveInSynSent(view: TcpView, pkt: Packet): void {
    if (view.ack && view.ackNumber !== this.sndNxt) {
      // tcp_rcv_synsent_state_process: an ACK of an old connection (a TIME_WAIT's answer) is reset, and
      // a first SYN goes again after TCP_TIMEOUT_MIN (2 jiffies, 8 ms at HZ=250) instead of the RTO.
      if (this.retransmits === 0) {
        this.cancelRto();
        this.rtoTimer = this.stack.ctx.scheduler.schedule(TCP_TIMEOUT_MIN, () => this.retransmitTimer());
      }
      if (!view.rst) this.sendReset(pkt);
      return;
    }
    if (view.rst) {
      if (view.ack) this.finish('ECONNREFUSED');
      return;
    }
    if (!view.syn || !view.ack) return;
    this.received.parse(view, true);
    this.window.rcvNxt = (view.seqNumber + 1) >>> 0;
    this.window.rcvWup = this.window.rcvNxt;
    this.tsOk = this.tsOk && this.received.sawTimestamp;
    this.sackOk = this.sackOk && this.received.sackPermitted;
    this.wscaleOk = this.wscaleOk && this.received.wscale >= 0;
    if (!this.wscaleOk) this.window.rcvWscale = 0;
    this.sndWscale = this.wscaleOk ? this.received.wscale : 0;
    this.peerMss = this.received.mss > 0 ? this.received.mss : TCP_MSS_DEFAULT;
    if (this.tsOk) this.tsRecent = this.received.tsVal;
    this.sndUna = view.ackNumber;
    this.bufSeq = this.sndUna;
    this.sndWnd = view.window;
    this.sndWl1 = view.seqNumber;
    this.sampleRtt(view.ackNumber);
    this.establish();
    this.sendAck();
    if (!this.orphan) this.onConnect?.(this);
    this.pushPending();
  }

  /** tcp_timewait_state_process: a retransmitted FIN is acknowledged again; a reset ends the wait early. */
  private receiveInTimeWait(view: TcpView): void {
    if (view.rst) {
      this.finish(undefined);
      return;
    }
    // tcp_v4_rcv: a SYN no listener takes (TCP_TW_SYN falling through to TCP_TW_ACK) gets the TIME_WAIT's ACK.
    if (view.syn && !view.ack) {
      this.sendAck();
      return;
    }
    if (view.fin) {
      this.sendAck();
      this.startTimeWait();
    }
  }

  /** tcp_ack: advances snd_una, updates the send window, samples RTT, handles our FIN being acknowledged. */
  private processAck(view: TcpView): boolean {
    const ack = view.ackNumber;
    if (after(ack, this.sndNxt)) {
      this.sendAck();
      return false;
    }
    const seq = view.seqNumber;
    const window = view.window * 2 ** this.sndWscale;
    if (!before(ack, this.sndUna)) {
      // tcp_ack: something worked; keepalive probes start over.
      this.probesOut = 0;
      this.rcvTstamp = this.stack.now;
    }
    let flag = view.segmentLen > view.headerLen ? FLAG_DATA : 0;
    // tcp_may_update_window.
    if (after(ack, this.sndUna) || after(seq, this.sndWl1) || (seq === this.sndWl1 && window > this.sndWnd)) {
      this.sndWnd = window;
      this.sndWl1 = seq;
      flag |= FLAG_WIN_UPDATE;
      if (this.sender !== undefined && window > this.sender.sb.maxWindow) this.sender.sb.maxWindow = window;
    }
    if (!after(ack, this.sndUna)) {
      if (this.sender !== undefined && this.sndNxt !== this.sndUna) this.senderAck(ack, flag);
      if (this.sndNxt === this.sndUna && this.synchronized()) this.ackProbe();
      return true;
    }
    const acked = (ack - this.sndUna) >>> 0;
    const finAcked = this.finSeq >= 0 && !before(ack, (this.finSeq + 1) >>> 0);
    const dataAcked = Math.min(acked - (finAcked ? 1 : 0), this.sendLen);
    if (dataAcked > 0) {
      this.sendBuf.copyWithin(0, dataAcked, this.sendLen);
      this.sendLen -= dataAcked;
      this.bufSeq = (this.bufSeq + dataAcked) >>> 0;
    }
    this.sndUna = ack;
    // The next segment becomes the oldest; tcp_retries2's budget counts from now (retrans_stamp is not kept per segment).
    this.headSentAt = this.stack.now;
    this.sampleRtt(ack);
    this.retransmits = 0;
    if (this.sender !== undefined) this.senderAck(ack, flag);
    else if (this.sndUna === this.sndNxt) this.cancelRto();
    else this.armRto(true);
    if (finAcked) {
      if (this.state === 'FIN_WAIT1') {
        this.state = 'FIN_WAIT2';
        this.lingerEnded(false);
      } else if (this.state === 'CLOSING') this.enterTimeWait();
      else if (this.state === 'LAST_ACK') {
        this.finish(undefined);
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
  private senderAck(ack: number, flag: number): void {
    const sender = this.sender;
    if (sender === undefined) return;
    const received = this.received;
    const tsEcr = this.tsOk && received.sawTimestamp ? (received.tsEcr - this.tsOffset) >>> 0 : 0;
    const out = sender.ack(
      {
        ack,
        flag,
        sackEdges: received.sackEdges,
        sackCount: this.sackOk ? received.sackCount : 0,
        tsEcrMs: tsEcr,
        cwndLimited: this.cwndLimited(),
      },
      this.stack.now,
    );
    if (out.old) return;
    if (out.rexmit === 'new') {
      // tcp_xmit_recovery, REXMIT_NEW (F-RTO): new data first; the lost ones only once none went beyond high_seq.
      this.pushNew(false);
      if (!after(this.sndNxt, sender.sb.highSeq)) this.retransmitLost();
    } else if (out.rexmit === 'lost') this.retransmitLost();
    if (this.sndUna === this.sndNxt) this.cancelRto();
    else if (out.reoTimeout > 0) this.resetXmitTimer('reo-timeout', out.reoTimeout * MS);
    else if (out.setXmitTimer && !this.scheduleLossProbe(true)) this.rearmRto();
  }

  /** tcp_is_cwnd_limited: in slow start, cwnd below twice the most ever out; else whether the last send was held by cwnd. */
  private cwndLimited(): boolean {
    const sender = this.sender;
    if (sender === undefined) return false;
    if (sender.tp.cwnd < sender.tp.ssthresh) return sender.tp.cwnd < 2 * this.maxPacketsOut;
    return this.isCwndLimited;
  }

  /** tcp_cwnd_validate after tcp_write_xmit sent something or was held by cwnd. */
  private cwndValidate(isCwndLimited: boolean): void {
    const sb = this.sender?.sb;
    if (sb === undefined) return;
    if (!before(this.sndUna, this.cwndUsageSeq) || isCwndLimited || sb.packetsOut > this.maxPacketsOut) {
      this.isCwndLimited = isCwndLimited;
      this.maxPacketsOut = sb.packetsOut;
      this.cwndUsageSeq = this.sndNxt;
    }
  }

  /**
   * tcp_event_data_recv and tcp_measure_rcv_mss: schedules an ACK, re-measures the receive MSS and
   * the buffer's scaling ratio, runs the quick-ACK / ATO estimator and grows the window.
   */
  private dataReceived(view: TcpView, payloadLen: number): void {
    this.ackPending |= ACK_SCHED;
    const lss = this.lastSegSize;
    this.lastSegSize = 0;
    if (payloadLen >= this.rcvMss) {
      measureScalingRatio(this.window, payloadLen, this.rcvMss);
      this.rcvMss = Math.min(payloadLen, this.tcpAdvmss);
      if (view.psh) this.ackPending |= ACK_PUSHED;
    } else {
      const withHeader = payloadLen + view.headerLen;
      const remnant = view.fin || view.urg || view.rst || view.psh;
      let measured = false;
      if (withHeader >= TCP_MSS_DEFAULT + TCP_HEADER_LEN || (withHeader >= 88 + TCP_HEADER_LEN && !remnant)) {
        const len = withHeader - TCP_HEADER_LEN - (this.tsOk ? TS_ALIGNED : 0);
        this.lastSegSize = len;
        if (len === lss) {
          this.rcvMss = len;
          measured = true;
        }
      }
      if (!measured) {
        if (this.ackPending & ACK_PUSHED) this.ackPending |= ACK_PUSHED2;
        this.ackPending |= ACK_PUSHED;
      }
    }
    const now = this.stack.now;
    if (this.ato === 0) {
      this.incrQuickack();
      this.ato = ATO_MIN;
    } else {
      const gap = now - this.lrcvtime;
      if (gap <= ATO_MIN / 2) this.ato = Math.floor(this.ato / 2) + ATO_MIN / 2;
      else if (gap < this.ato) this.ato = Math.min(Math.floor(this.ato / 2) + gap, this.rto);
      else if (gap > this.rto) this.incrQuickack();
    }
    this.lrcvtime = now;
    // tcp_grow_window for segments of 128 bytes or more; a window that grew is acknowledged at once (quick |= 1).
    if (payloadLen >= 128 && growWindow(this.window, payloadLen, this.tcpAdvmss)) this.quick |= 1;
  }

  /**
   * tcp_clamp_window: out of quick-ACK mode; the buffer grows to what is allocated, up to
   * tcp_rmem[2]; still overcommitted, rcv_ssthresh falls to two segments.
   */
  private clampWindow(): void {
    this.quick = 0;
    const max = bufferSysctl(this.stack.sysctls, 'tcp_rmem', 2);
    if (this.window.rcvbuf < max) this.window.rcvbuf = Math.min(this.window.rmemAlloc, max);
    if (this.window.rmemAlloc > this.window.rcvbuf)
      this.window.rcvSsthresh = Math.min(this.window.windowClamp, 2 * this.tcpAdvmss);
  }

  /** tcp_enter_quickack_mode. */
  private enterQuickackMode(): void {
    this.incrQuickack();
    this.pingpong = 0;
    this.ato = ATO_MIN;
  }

  /** tcp_incr_quickack. */
  private incrQuickack(): void {
    let quickacks = Math.floor(this.window.rcvWnd / (2 * this.rcvMss));
    if (quickacks === 0) quickacks = 2;
    quickacks = Math.min(quickacks, MAX_QUICKACKS);
    if (quickacks > this.quick) this.quick = quickacks;
  }

  private inPingpong(): boolean {
    return this.pingpong >= PINGPONG_THRESH;
  }

  /** tcp_fin: out-of-order data after the FIN is dropped and the SACK blocks forgotten. */
  private finReceived(): void {
    this.ackPending |= ACK_SCHED;
    this.ofo.purge();
    this.sack.reset();
    switch (this.state) {
      case 'ESTABLISHED':
        this.state = 'CLOSE_WAIT';
        this.pingpong = PINGPONG_THRESH;
        break;
      case 'FIN_WAIT1':
        // Simultaneous close: our FIN is not acknowledged yet.
        this.sendAck();
        this.state = 'CLOSING';
        break;
      case 'FIN_WAIT2':
        this.sendAck();
        this.enterTimeWait();
        break;
      default:
        break;
    }
  }

  /**
   * __tcp_ack_snd_check: ACK now when more than one full segment is unacknowledged and either the
   * application read everything or the window's right edge does not move back, or in quick-ACK
   * mode; else later.
   */
  private ackCheck(): void {
    if (!(this.ackPending & ACK_SCHED)) return;
    const unacked = (this.window.rcvNxt - this.window.rcvWup) >>> 0;
    if (
      (unacked > this.rcvMss &&
        ((this.window.rcvNxt - this.copiedSeq) >>> 0 < 1 || this.peekWindow() >= this.window.rcvWnd)) ||
      (this.quick > 0 && !this.inPingpong())
    ) {
      this.sendAck();
      return;
    }
    this.scheduleDelayedAck();
  }

  /** __tcp_select_window without recording it; a receive buffer more than half full ends quick-ACK mode. */
  private peekWindow(): number {
    if (spaceBelowHalf(this.window)) this.quick = 0;
    return computeWindow(this.window, this.rcvMss);
  }

  /**
   * tcp_cleanup_rbuf after the application read `copied` bytes: an ACK owed for more than one
   * segment, or for a pushed small segment outside ping-pong once the buffer is empty, goes now;
   * so does a window update when the read at least doubled a window that had fallen under half
   * the clamp.
   */
  private cleanupRbuf(copied: number): void {
    if (this.closed) return;
    let timeToAck = false;
    if (this.ackPending & ACK_SCHED) {
      const unacked = (this.window.rcvNxt - this.window.rcvWup) >>> 0;
      timeToAck =
        unacked > this.rcvMss ||
        (copied > 0 &&
          ((this.ackPending & ACK_PUSHED2) !== 0 ||
            ((this.ackPending & ACK_PUSHED) !== 0 && !this.inPingpong())) &&
          this.window.rmemAlloc === 0);
    }
    if (copied > 0 && !timeToAck && !this.rcvShutdown) {
      const now = receiveWindow(this.window);
      if (2 * now <= this.window.windowClamp) {
        const next = this.peekWindow();
        if (next > 0 && next >= 2 * now) timeToAck = true;
      }
    }
    if (timeToAck) this.sendAck();
  }

  /** tcp_send_delayed_ack. */
  private scheduleDelayedAck(): void {
    let ato = this.ato;
    if (ato > ATO_MIN) {
      let maxAto = 500 * MS;
      if (this.inPingpong() || this.ackPending & ACK_PUSHED) maxAto = DELACK_MAX;
      if (this.srtt > 0) maxAto = Math.min(maxAto, Math.max(this.srtt, ATO_MIN));
      ato = Math.min(ato, maxAto);
    }
    if (this.delackTimer >= 0) return;
    this.ackPending |= ACK_TIMER;
    this.delackTimer = this.stack.ctx.scheduler.schedule(ato, () => this.delayedAckFired());
  }

  /** tcp_delack_timer_handler. */
  private delayedAckFired(): void {
    this.delackTimer = -1;
    if (this.closed || !(this.ackPending & ACK_SCHED)) return;
    if (!this.inPingpong()) this.ato = Math.min(this.ato * 2, this.rto);
    else {
      this.pingpong = 0;
      this.ato = ATO_MIN;
    }
    this.sendAck();
  }

  /** tcp_reset: the errno depends on how far the connection got. */
  private reset(): void {
    this.finish(this.state === 'CLOSE_WAIT' ? 'EPIPE' : 'ECONNRESET');
  }

  // ---- sending -------------------------------------------------------------------------

  /**
   * tcp_xmit_retransmit_queue then tcp_write_xmit: segments marked lost first, then new ones,
   * while the congestion window, the peer's window (a whole segment must fit: tcp_snd_wnd_test)
   * and Nagle allow; then a FIN.
   */
  private pushPending(): void {
    if (!this.synchronized() || this.state === 'TIME_WAIT') return;
    this.retransmitLost();
    this.pushNew(false);
  }

  /**
   * tcp_write_xmit: new segments while cwnd, the peer's window and Nagle allow, then a FIN; a
   * loss probe (`probe`) sends one segment whatever cwnd says (push_one = 2). False when nothing left.
   */
  private pushNew(probe: boolean): boolean {
    const sender = this.sender;
    let sent = 0;
    let cwndLimited = false;
    for (;;) {
      const offset = (this.sndNxt - this.bufSeq) >>> 0;
      const unsent = this.sendLen - offset;
      if (unsent <= 0) break;
      const inFlight = (this.sndNxt - this.sndUna) >>> 0;
      if (sender !== undefined && !sender.canSend() && !(probe && sent === 0)) {
        cwndLimited = true;
        break;
      }
      const len = Math.min(unsent, this.mss);
      // tcp_snd_wnd_test: the segment waits for a window it fits in whole (the persist timer probes a window too small).
      if (inFlight + len > this.sndWnd) {
        this.checkProbeTimer();
        break;
      }
      const last = len === unsent;
      // tcp_nagle_test with Minshall's check: a small segment waits while an earlier small one is unacknowledged.
      // TCP_NODELAY (TCP_NAGLE_OFF) skips the check; tcp_minshall_update still runs.
      if (
        !probe &&
        !this.noDelay &&
        len < this.mss &&
        !(last && this.finQueued) &&
        after(this.sndSml, this.sndUna)
      )
        break;
      const finHere = last && this.finQueued && this.finSeq < 0;
      this.sendData(offset, len, last, finHere);
      sent++;
      if (len < this.mss) this.sndSml = this.sndNxt;
      if (probe) break;
    }
    const allSent = (this.sndNxt - this.bufSeq) >>> 0 >= this.sendLen;
    const finFits = sender === undefined || sender.canSend() || (probe && sent === 0);
    if (this.finQueued && this.finSeq < 0 && allSent && !(probe && sent > 0) && !finFits) cwndLimited = true;
    else if (this.finQueued && this.finSeq < 0 && allSent && !(probe && sent > 0)) {
      this.finSeq = this.sndNxt;
      if (this.sndNxt === this.sndUna) this.headSentAt = this.stack.now;
      const priorPackets = sender?.sb.packetsOut ?? 0;
      this.transmit(FIN | ACK, this.sndNxt, 0, 0, undefined);
      this.sndNxt = (this.sndNxt + 1) >>> 0;
      sender?.sent(this.finSeq, this.sndNxt, this.stack.now);
      this.newDataSent(priorPackets);
      sent++;
    }
    if (sent > 0 || cwndLimited) this.cwndValidate(cwndLimited);
    // tcp_write_xmit's tail: a loss probe replaces the RTO while in Open state (tcp_schedule_loss_probe).
    if (sent > 0 && !probe) this.scheduleLossProbe(false);
    return sent > 0;
  }

  /** tcp_event_new_data_sent: the RTO starts with the first segment out, and restarts over a pending loss probe. */
  private newDataSent(priorPackets: number): void {
    if (priorPackets === 0 || this.xmitKind === 'loss-probe') this.rearmRto();
  }

  private sendData(offset: number, len: number, push: boolean, fin: boolean): void {
    const seq = this.sndNxt;
    if (seq === this.sndUna) this.headSentAt = this.stack.now;
    this.sentMss = this.mss;
    let flags = ACK | (push ? PSH : 0);
    if (fin) {
      flags |= FIN;
      this.finSeq = (seq + len) >>> 0;
    }
    const priorPackets = this.sender?.sb.packetsOut ?? 0;
    this.transmit(flags, seq, offset, len, undefined);
    this.sndNxt = (seq + len + (fin ? 1 : 0)) >>> 0;
    this.sender?.sent(seq, this.sndNxt, this.stack.now);
    if (this.rttSeq < 0) {
      this.rttSeq = this.sndNxt;
      this.rttSentAt = this.stack.now;
    }
    // tcp_event_data_sent: a reply within ato of the last data received counts toward ping-pong mode.
    if (this.ato > 0 && this.stack.now - this.lrcvtime < this.ato && this.pingpong < 255) this.pingpong++;
    if (this.sender === undefined) this.armRto();
    else this.newDataSent(priorPackets);
  }

  // ---- keepalive ------------------------------------------------------------------------

  /** keepalive_time_when, keepalive_intvl_when, keepalive_probes: the socket's values, else the sysctls'. */
  private keepaliveTime(): number {
    return (this.keepalive.idle || this.sysctl('tcp_keepalive_time')) * 1000 * MS;
  }
  private keepaliveInterval(): number {
    return (this.keepalive.interval || this.sysctl('tcp_keepalive_intvl')) * 1000 * MS;
  }
  private keepaliveProbes(): number {
    return this.keepalive.count || this.sysctl('tcp_keepalive_probes');
  }

  private armKeepalive(delay: number): void {
    const scheduler = this.stack.ctx.scheduler;
    if (this.keepaliveTimer >= 0) scheduler.cancel(this.keepaliveTimer);
    this.keepaliveTimer = scheduler.schedule(delay, () => this.keepaliveFired());
  }

  /**
   * tcp_keepalive_timer: while data is in flight or queued the retransmission and persist timers
   * watch the peer; after the idle time without a segment from the peer, a probe (tcp_write_wakeup:
   * an ACK at snd_una - 1 without data) every interval; the count of probes unanswered resets the
   * connection (tcp_send_active_reset) and fails it with ETIMEDOUT (tcp_write_err).
   */
  private keepaliveFired(): void {
    this.keepaliveTimer = -1;
    if (this.closed || !this.keepalive.on) return;
    if (this.state !== 'ESTABLISHED' && this.state !== 'CLOSE_WAIT' && this.state !== 'FIN_WAIT2') return;
    const when = this.keepaliveTime();
    if (this.sndNxt !== this.sndUna || this.hasUnsent()) {
      this.armKeepalive(when);
      return;
    }
    const now = this.stack.now;
    const elapsed = Math.min(now - this.lrcvtime, now - this.rcvTstamp);
    if (elapsed < when) {
      this.armKeepalive(when - elapsed);
      return;
    }
    if (this.probesOut >= this.keepaliveProbes()) {
      this.transmit(RST | ACK, this.sndNxt, 0, 0, undefined);
      this.finish('ETIMEDOUT');
      return;
    }
    this.writeWakeup();
    this.probesOut++;
    this.armKeepalive(this.keepaliveInterval());
  }

  // ---- the persist timer ----------------------------------------------------------------

  /** tcp_check_probe_timer: nothing in flight, data waiting for the window, no timer running: probe after the RTO. */
  private checkProbeTimer(): void {
    if (this.sndNxt !== this.sndUna || this.rtoTimer >= 0 || this.probeTimer >= 0) return;
    this.armProbe(Math.max(this.rto, RTO_MIN));
  }

  private armProbe(delay: number): void {
    const scheduler = this.stack.ctx.scheduler;
    if (this.probeTimer >= 0) scheduler.cancel(this.probeTimer);
    this.probeTimer = scheduler.schedule(Math.min(delay, RTO_MAX), () => this.probeTimerFired());
  }

  /** tcp_probe0_when: the base (the RTO, at least TCP_RTO_MIN) doubled per backoff, at most TCP_RTO_MAX. */
  private probe0When(): number {
    const backoff = Math.min(this.probeBackoff, Math.log2(RTO_MAX / RTO_MIN) + 1);
    return Math.min(Math.max(this.rto, RTO_MIN) * 2 ** backoff, RTO_MAX);
  }

  private hasUnsent(): boolean {
    return (this.sndNxt - this.bufSeq) >>> 0 < this.sendLen;
  }

  /** tcp_probe_timer: a probe while the window stays shut; tcp_retries2 probes unanswered by a window end the connection. */
  private probeTimerFired(): void {
    this.probeTimer = -1;
    if (this.closed) return;
    if (this.sndNxt !== this.sndUna || !this.hasUnsent()) {
      this.probesOut = 0;
      return;
    }
    if (this.probesOut >= this.sysctl('tcp_retries2')) {
      this.finish('ETIMEDOUT');
      return;
    }
    this.sendProbe0();
  }

  /** tcp_send_probe0: tcp_write_wakeup, then the timer again with one more backoff (none once data is in flight). */
  private sendProbe0(): void {
    this.writeWakeup();
    if (this.sndNxt !== this.sndUna || !this.hasUnsent()) {
      this.probesOut = 0;
      this.probeBackoff = 0;
      return;
    }
    this.probesOut++;
    if (this.probeBackoff < this.sysctl('tcp_retries2')) this.probeBackoff++;
    this.armProbe(this.probe0When());
  }

  /**
   * tcp_write_wakeup: the part of the next segment the window holds, with PSH, when there is any
   * window; otherwise tcp_xmit_probe_skb: an ACK at snd_una - 1 without data, which the peer
   * answers with its window.
   */
  private writeWakeup(): void {
    const windowEnd = (this.sndUna + this.sndWnd) >>> 0;
    if (this.hasUnsent() && before(this.sndNxt, windowEnd)) {
      const offset = (this.sndNxt - this.bufSeq) >>> 0;
      const len = Math.min((windowEnd - this.sndNxt) >>> 0, this.mss, this.sendLen - offset);
      this.sendData(offset, len, true, false);
      return;
    }
    this.transmit(ACK, (this.sndUna - 1) >>> 0, 0, 0, undefined);
  }

  /**
   * tcp_ack_probe, for an ACK that finds nothing in flight and data waiting: a window that now
   * holds the next segment ends the probing (the data follows), else the timer restarts.
   */
  private ackProbe(): void {
    if (!this.hasUnsent()) return;
    const offset = (this.sndNxt - this.bufSeq) >>> 0;
    const next = Math.min(this.mss, this.sendLen - offset);
    if (!after((this.sndNxt + next) >>> 0, (this.sndUna + this.sndWnd) >>> 0)) {
      this.probeBackoff = 0;
      if (this.probeTimer >= 0) this.stack.ctx.scheduler.cancel(this.probeTimer);
      this.probeTimer = -1;
    } else this.armProbe(this.probe0When());
  }

  /** tcp_send_ack: a pure ACK at snd_nxt. */
  private sendAck(): void {
    this.transmit(ACK, this.sndNxt, 0, 0, undefined);
  }

  /** tcp_v4_send_reset for a segment this connection cannot accept (the reset REJECT also sends). */
  private sendReset(pkt: Packet): void {
    sendTcpReset(this.stack, pkt, this.mark);
  }

  /**
   * tcp_transmit_skb: header, options (SYN options when given, else timestamps), the window
   * from tcp_select_window (unscaled in a SYN), payload from the send buffer, checksum; every
   * segment carrying an ACK is tcp_event_ack_sent for the delayed-ACK engine.
   */
  private transmit(
    flags: number,
    seq: number,
    bufferOffset: number,
    len: number,
    synOptions: OutgoingOptions | undefined,
  ): Packet {
    const options = synOptions ?? this.establishedOptions();
    const sack = synOptions === undefined && this.sackOk ? this.sack : undefined;
    const headerLen = TCP_HEADER_LEN + optionsLength(options, sack);
    const pkt = this.stack.allocatePacket(headerLen + len);
    if (len > 0) pkt.buf.set(this.sendBuf.subarray(bufferOffset, bufferOffset + len), pkt.start + headerLen);
    const tcp = TcpView.unchecked(pkt.buf, pkt.start, headerLen + len);
    tcp.srcPort = this.localPort;
    tcp.dstPort = this.remotePort;
    tcp.seqNumber = seq;
    tcp.ackNumber = flags & ACK ? this.window.rcvNxt : 0;
    tcp.headerLen = headerLen;
    tcp.reserved = 0;
    tcp.flags = flags;
    tcp.window = flags & SYN ? Math.min(this.window.rcvWnd, 0xffff) : this.advertisedWindow();
    tcp.urgentPointer = 0;
    writeOptions(pkt.buf, pkt.start + TCP_HEADER_LEN, options, sack);
    // tcp_options_write: a D-SACK block goes out once.
    if (sack !== undefined && sack.blockCount > 0) sack.dsackSent();
    tcp.fillChecksum(this.pseudo, headerLen + len);
    this.countOut(flags, seq, len);
    if (flags & ACK) this.ackSent();
    // A SYN-ACK leaves through ip_build_and_send_pkt and a TIME_WAIT ACK through the namespace's
    // control socket (ip_send_unicast_reply): DF and id 0, like any DF datagram without a connected socket.
    this.output(pkt, (flags & (SYN | ACK)) !== (SYN | ACK) && this.state !== 'TIME_WAIT');
    return pkt;
  }

  private readonly outgoing: OutgoingOptions = {
    mss: 0,
    sackPermitted: false,
    timestamps: false,
    tsVal: 0,
    tsEcr: 0,
    wscale: -1,
  };

  private establishedOptions(): OutgoingOptions {
    this.outgoing.timestamps = this.tsOk;
    this.outgoing.tsVal = this.tsNow();
    this.outgoing.tsEcr = this.tsRecent;
    return this.outgoing;
  }

  /** tcp_select_window over the free receive space; a buffer more than half full ends quick-ACK mode. */
  private advertisedWindow(): number {
    if (spaceBelowHalf(this.window)) this.quick = 0;
    return selectWindow(this.window, this.rcvMss);
  }

  /** tcp_event_ack_sent → tcp_dec_quickack_mode, and the delayed ACK is off. */
  private ackSent(): void {
    if (this.quick > 0) {
      const pkts = this.ackPending & ACK_SCHED ? 1 : 0;
      if (pkts >= this.quick) {
        this.quick = 0;
        this.ato = ATO_MIN;
      } else this.quick -= pkts;
    }
    this.ackPending = 0;
    if (this.delackTimer >= 0) {
      this.stack.ctx.scheduler.cancel(this.delackTimer);
      this.delackTimer = -1;
    }
  }

  /** ip_queue_xmit with the socket's mark, DF set (IP_PMTUDISC_DO is TCP's default) and the socket's IP id. */
  private output(pkt: Packet, connected: boolean): void {
    pkt.mark = this.mark;
    const route = this.stack.routeOutput(this.remoteAddr, { src: this.localAddr, mark: this.mark });
    this.outputOptions.ident = connected ? this.ipId : 0;
    if (connected) this.ipId = (this.ipId + 1) & 0xffff;
    // Process context: the segment before this one reached the peer, and its answer came back, before this one leaves.
    if (this.owned && this.sentWhileOwned) this.stack.ctx.backlog.drain();
    this.sentWhileOwned = this.owned;
    const sent = this.stack.output(pkt, route, this.outputOptions);
    // A path MTU learned since the segment was cut: ip_fragment refuses it and tells the socket
    // (icmp_send to itself, handled as tcp_v4_err would, once this transmission is over).
    if (!sent.ok && sent.error === 'EMSGSIZE') {
      if (this.owned) this.mtuReducedDeferred = true;
      else this.stack.ctx.scheduler.schedule(0, () => this.mtuReduced());
    }
  }

  // ---- timers --------------------------------------------------------------------------

  /** tcp_rtt_estimator and tcp_set_rto (Karn: no sample from a retransmitted segment). */
  private sampleRtt(ack: number): void {
    if (this.rttSeq < 0 || before(ack, this.rttSeq)) return;
    const sample = this.stack.now - this.rttSentAt;
    this.rttSeq = -1;
    if (this.srtt === 0) {
      this.srtt = Math.max(sample, 1000);
      this.rttvar = Math.floor(sample / 2);
    } else {
      this.rttvar = Math.floor((3 * this.rttvar + Math.abs(this.srtt - sample)) / 4);
      this.srtt = Math.max(Math.floor((7 * this.srtt + sample) / 8), 1000);
    }
    this.rto = Math.min(Math.max(this.srtt + Math.max(4 * this.rttvar, RTO_MIN), RTO_MIN), RTO_MAX);
    this.rttHost.srttUs = this.srtt / 1000;
  }

  /**
   * icsk_backoff: one doubling per timeout, except that in SYN_SENT the first
   * tcp_syn_linear_timeouts timeouts keep the RTO (tcp_retransmit_timer's total_rto check).
   */
  private backoff(): number {
    if (this.state !== 'SYN_SENT') return this.retransmits;
    return Math.max(0, this.retransmits - this.sysctl('tcp_syn_linear_timeouts'));
  }

  /** The RTO with its backoff (icsk_rto after tcp_retransmit_timer doubled it). */
  private backedOffRto(): number {
    return Math.min(this.rto * 2 ** this.backoff(), RTO_MAX);
  }

  /** icsk_rto in jiffies. */
  private rtoJiffies(): number {
    return Math.ceil(this.backedOffRto() / MS);
  }

  private armRto(restart = false): void {
    if (this.rtoTimer >= 0 && !restart) return;
    this.resetXmitTimer('retrans', this.backedOffRto());
  }

  /** inet_csk_reset_xmit_timer: the one transmit timer, armed for `kind`. */
  private resetXmitTimer(kind: 'retrans' | 'loss-probe' | 'reo-timeout', delay: number): void {
    const scheduler = this.stack.ctx.scheduler;
    if (this.rtoTimer >= 0) scheduler.cancel(this.rtoTimer);
    this.xmitKind = kind;
    this.rtoTimer = scheduler.schedule(Math.min(Math.max(Math.ceil(delay), 0), RTO_MAX), () =>
      this.retransmitTimer(),
    );
  }

  /** tcp_rto_delta_us: what remains of the RTO counted from the oldest segment's last transmission, in ns. */
  private rtoDelta(): number {
    const head = this.sender?.sb.queue[0];
    if (head === undefined) return this.backedOffRto();
    return this.backedOffRto() - (this.stack.now - head.xmitUs * 1000);
  }

  /**
   * tcp_rearm_rto: nothing out stops the timer; over a pending loss probe or reordering timer the
   * RTO counts from the oldest segment's transmission (at least 1 µs), else from now.
   */
  private rearmRto(): void {
    if (this.sndUna === this.sndNxt) {
      this.cancelRto();
      return;
    }
    if (this.rtoTimer >= 0 && this.xmitKind !== 'retrans')
      this.resetXmitTimer('retrans', Math.max(this.rtoDelta(), 1000));
    else this.armRto(true);
  }

  /** tcp_schedule_loss_probe: a tail loss probe instead of the RTO, when in Open (or CWR) with SACK. */
  private scheduleLossProbe(advancingRto: boolean): boolean {
    const sender = this.sender;
    if (sender === undefined) return false;
    const early = this.sysctl('tcp_early_retrans');
    if (early !== 3 && early !== 4) return false;
    const pto = sender.probeTimeout(
      this.srtt / 1000,
      this.rtoJiffies(),
      advancingRto,
      this.rtoDelta() / 1000,
    );
    if (pto < 0) return false;
    this.resetXmitTimer('loss-probe', pto * MS);
    return true;
  }

  /** tcp_rack_reo_timeout: RACK's reordering window passed; what it now marks lost goes again. */
  private reoTimeoutFired(): void {
    const sender = this.sender;
    if (sender === undefined) return;
    if (sender.reoTimeout(this.stack.now)) this.retransmitLost();
    if (this.rtoTimer < 0) this.rearmRto();
  }

  /** tcp_send_loss_probe: new data if the window holds a segment, else the last segment again; then the RTO. */
  private sendLossProbe(): void {
    const sender = this.sender;
    if (sender === undefined) return;
    const offset = (this.sndNxt - this.bufSeq) >>> 0;
    const next = Math.min(this.mss, this.sendLen - offset);
    const fits = next > 0 && !after((this.sndNxt + next) >>> 0, (this.sndUna + this.sndWnd) >>> 0);
    const probe = sender.lossProbe(fits);
    if (probe.kind === 'new-data') {
      if (this.pushNew(true)) sender.probeSent(false);
    } else if (probe.kind === 'retransmit') {
      this.resend(probe.segment);
      sender.probeRetransmitted(probe.segment, this.stack.now);
    }
    if (this.rtoTimer < 0) this.rearmRto();
  }

  private cancelRto(): void {
    if (this.rtoTimer >= 0) this.stack.ctx.scheduler.cancel(this.rtoTimer);
    this.rtoTimer = -1;
  }

  /** tcp_retransmit_timer (and the SYN-ACK timer of a request): resend the first unacknowledged segment, back off. */
  private retransmitTimer(): void {
    this.rtoTimer = -1;
    if (this.closed) return;
    const kind = this.xmitKind;
    this.xmitKind = 'retrans';
    if (kind === 'reo-timeout') {
      this.reoTimeoutFired();
      return;
    }
    if (kind === 'loss-probe') {
      this.sendLossProbe();
      return;
    }
    this.retransmits++;
    this.rttSeq = -1;
    if (this.state === 'SYN_SENT') {
      // tcp_write_timeout: in SYN_SENT the linear timeouts come on top of tcp_syn_retries.
      if (this.retransmits > this.sysctl('tcp_syn_retries') + this.sysctl('tcp_syn_linear_timeouts')) {
        this.finish('ETIMEDOUT');
        return;
      }
      // __tcp_retransmit_skb → skb_still_in_host_queue: the SYN waiting for ARP is not sent again (-EBUSY,
      // TCPSpuriousRtxHostQueues); the timer backs off as if it had been.
      if (this.lastSyn?.hostQueued === true) this.stack.tcpOutMib.spuriousRtxHostQueues++;
      else this.sendSyn();
    } else if (this.state === 'SYN_RECV') {
      if (this.retransmits > this.sysctl('tcp_synack_retries')) {
        this.finish(undefined);
        return;
      }
      this.sendSynAck();
    } else {
      const sender = this.sender;
      // tcp_retransmit_timer: nothing out, nothing to do.
      if (sender !== undefined && sender.sb.packetsOut === 0) {
        this.retransmits--;
        return;
      }
      // tcp_write_timeout, before the retransmission: tcp_retries2 is a time budget, not a count.
      if (this.retransmitsTimedOut(this.sysctl('tcp_retries2'))) {
        this.finish('ETIMEDOUT');
        return;
      }
      // tcp_enter_loss (before icsk_retransmits counts this timeout), then the head again (tcp_retransmit_skb).
      if (sender !== undefined) {
        sender.recovery.retransmits = this.retransmits - 1;
        sender.retransmitTimeout(this.stack.now, this.sysctl('tcp_frto') !== 0);
        this.retransmitLost();
      }
    }
    this.armRto();
  }

  /**
   * retransmits_timed_out with tcp_model_timeout: after a first retransmission, true once the
   * oldest unacknowledged segment was sent as long ago as `boundary` retransmissions take from
   * TCP_RTO_MIN doubling up to TCP_RTO_MAX (tcp_retries2 = 15: 924.6 s; tcp_retries1 = 3: 3 s,
   * where Linux only gives the route negative advice, a no-op here where routes are looked up
   * per segment).
   */
  private retransmitsTimedOut(boundary: number): boolean {
    if (this.retransmits <= 1) return false;
    const linear = Math.floor(Math.log2(RTO_MAX / RTO_MIN));
    const timeout =
      boundary <= linear
        ? (2 ** (boundary + 1) - 1) * RTO_MIN
        : (2 ** (linear + 1) - 1) * RTO_MIN + (boundary - linear) * RTO_MAX;
    return this.stack.now - this.headSentAt >= timeout;
  }

  /**
   * tcp_simple_retransmit after tcp_v4_mtu_reduced: every segment in flight longer than the new
   * MSS is lost and goes again at once, cut to it (tcp_fragment), as the congestion window
   * allows (which it does not reduce).
   */
  private simpleRetransmit(): void {
    const sender = this.sender;
    if (sender === undefined || !sender.simpleRetransmit(this.mss, this.finSeq, this.stack.now)) return;
    this.sentMss = this.mss;
    this.retransmitLost();
  }

  /**
   * tcp_xmit_retransmit_queue: resends the segments marked lost, in order, while the congestion
   * window allows; a segment starting beyond the peer's window waits, unless it is the first
   * (__tcp_retransmit_skb).
   */
  private retransmitLost(): void {
    const sender = this.sender;
    if (sender === undefined) return;
    for (let segment = sender.nextRetransmit(); segment !== undefined; segment = sender.nextRetransmit()) {
      if (segment.seq !== this.sndUna && (segment.seq - this.sndUna) >>> 0 >= this.sndWnd) return;
      this.resend(segment);
      sender.retransmitted(segment, this.stack.now, this.nowMs);
    }
  }

  /**
   * __tcp_retransmit_skb's transmission: the segment again, from snd_una if partly acknowledged; one
   * longer than today's MSS is split (tcp_fragment) and its rest stays queued, lost, on its own.
   */
  private resend(segment: TxSegment): void {
    const finEnd = this.finSeq >= 0 ? (this.finSeq + 1) >>> 0 : -1;
    const seq = before(segment.seq, this.sndUna) ? this.sndUna : segment.seq;
    let fin = segment.endSeq === finEnd;
    let len = ((segment.endSeq - seq) >>> 0) - (fin ? 1 : 0);
    if (len > this.mss) {
      this.sender?.sb.fragment(segment, ((seq - segment.seq) >>> 0) + this.mss);
      len = this.mss;
      fin = false;
    }
    const offset = (seq - this.bufSeq) >>> 0;
    const push = offset + len === this.sendLen;
    this.transmit(ACK | (push && len > 0 ? PSH : 0) | (fin ? FIN : 0), seq, offset, len, undefined);
    this.rttSeq = -1;
  }

  /** tcp_twsk_unique's view of a TIME_WAIT connection: its entry time (tw_entry_stamp, ms), timestamps, snd_nxt, ts_recent. */
  get timeWait(): {
    readonly sinceMs: number;
    readonly timestamps: boolean;
    readonly sndNxt: number;
    readonly tsRecent: number;
  } {
    return {
      sinceMs: this.timeWaitSinceMs,
      timestamps: this.tsOk,
      sndNxt: this.sndNxt,
      tsRecent: this.tsRecent,
    };
  }

  /** inet_twsk_deschedule_put: a new connection takes this TIME_WAIT's 4-tuple; it goes without a segment. */
  recycleTimeWait(): void {
    if (this.state !== 'TIME_WAIT') return;
    this.orphan = true;
    this.finish(undefined);
  }

  private enterTimeWait(): void {
    this.timeWaitSinceMs = this.nowMs;
    this.state = 'TIME_WAIT';
    this.cancelRto();
    this.startTimeWait();
    this.lingerEnded(false);
  }

  private startTimeWait(): void {
    const scheduler = this.stack.ctx.scheduler;
    if (this.waitTimer >= 0) scheduler.cancel(this.waitTimer);
    this.waitTimer = scheduler.schedule(TIMEWAIT_LEN, () => {
      this.waitTimer = -1;
      this.finish(undefined);
    });
  }

  /** An ICMP error about a segment we sent (tcp_v4_err); `seq` is the quoted sequence number. */
  icmpError(type: number, code: number, seq: number): void {
    if (this.closed || before(seq, this.sndUna) || !before(seq, this.sndNxt)) return;
    if (type === 3 && code === 4) {
      // tcp_v4_err: while the application holds the socket, TCP_MTU_REDUCED_DEFERRED until release_sock.
      if (this.owned) this.mtuReducedDeferred = true;
      else this.mtuReduced();
      return;
    }
    const error = type === 3 ? UNREACH_ERRNO[code] : type === 11 ? 'EHOSTUNREACH' : undefined;
    if (error === undefined) return;
    if (this.state === 'SYN_SENT') this.finish(error);
    else if (this.state === 'SYN_RECV') this.finish(undefined);
  }

  /** tcp_v4_mtu_reduced: the ICMP layer learned the path MTU; what was cut for the old MSS goes again at the new one. */
  private mtuReduced(): void {
    if (this.closed) return;
    this.syncMss(this.pathMtu());
    if (this.mss < this.sentMss && this.synchronized()) this.simpleRetransmit();
  }

  /** tcp_done: timers off, out of the table, the application told once. */
  private finish(error: TcpError | undefined): void {
    if (this.closed) return;
    const wasReported = this.reportedClose;
    this.closed = true;
    this.state = 'CLOSE';
    const scheduler = this.stack.ctx.scheduler;
    for (const timer of [
      this.rtoTimer,
      this.delackTimer,
      this.waitTimer,
      this.probeTimer,
      this.keepaliveTimer,
    ])
      if (timer >= 0) scheduler.cancel(timer);
    this.keepaliveTimer = -1;
    this.rtoTimer = -1;
    this.probeTimer = -1;
    this.delackTimer = -1;
    this.waitTimer = -1;
    this.host.unhash(this);
    this.lingerEnded(false);
    if (!this.orphan && !wasReported) {
      this.reportedClose = true;
      this.onClose?.(this, error);
    }
  }

  /**
   * tp->write_seq - tp->snd_una: bytes written and not yet acknowledged, an unacknowledged SYN or FIN
   * counting one (what inet_diag reports as the send queue, `ss`'s Send-Q).
   */
  get sendQueue(): number {
    const writeSeq = (this.bufSeq + this.sendLen + (this.finQueued ? 1 : 0)) >>> 0;
    return Math.max(0, (writeSeq - this.sndUna) | 0);
  }

  // ---- what `ss -i/-o/-e/-m` and nstat read (tcp_get_info, inet_diag_msg_common_fill) ----------

  /** tcp_info's counters (tcp_segs_in, tcp_event_data_sent, __tcp_transmit_skb, __tcp_retransmit_skb). */
  private readonly counts = {
    segsIn: 0,
    segsOut: 0,
    dataSegsIn: 0,
    dataSegsOut: 0,
    bytesSent: 0,
    bytesRetrans: 0,
    totalRetrans: 0,
    /** The peer's ISN (bytes_received is rcv_nxt - irs - 1), and whether we opened passively. */
    irs: -1,
    passive: false,
    /** The highest sequence end sent: a segment ending at or before it is a retransmission. */
    sentEnd: -1,
    minRttNs: 0,
    lastDataSentNs: 0,
    lastDataRecvNs: 0,
    lastAckRecvNs: 0,
  };

  /** Every segment that reaches the connection (a listener's child counts the SYN, as tcp_create_openreq_child does); InSegs is the table's. */
  private countIn(view: TcpView): void {
    const counts = this.counts;
    const now = this.stack.now;
    if (view.syn && counts.irs < 0) {
      counts.passive = !view.ack;
      counts.irs = view.seqNumber;
    }
    // tcp_finish_connect and tcp_create_openreq_child start lsndtime and lrcvtime at the handshake's end.
    const handshake =
      this.state === 'SYN_SENT' ? view.syn && view.ack : this.state === 'SYN_RECV' && view.ack && !view.syn;
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
      if (this.rttSeq >= 0 && !before(view.ackNumber, this.rttSeq)) {
        const sample = now - this.rttSentAt;
        if (counts.minRttNs === 0 || sample < counts.minRttNs) counts.minRttNs = Math.max(sample, 1000);
      }
    }
  }

  /** Every segment sent: OutSegs skips retransmissions (__tcp_transmit_skb), which count in RetransSegs instead. */
  private countOut(flags: number, seq: number, len: number): void {
    const counts = this.counts;
    const mib = this.stack.tcpOutMib;
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
      counts.lastDataSentNs = this.stack.now;
    }
  }

  /** tp->advmss: less the timestamp option once both sides agreed on it (tcp_rcv_synsent_state_process). */
  private infoAdvmss(): number {
    return this.advmss - (this.tsOk && this.state !== 'SYN_SENT' ? TS_ALIGNED : 0);
  }

  /** The connection's tcp_info, timer and buffer sizes, read at this instant. */
  info(): TcpInfo {
    const scheduler = this.stack.ctx.scheduler;
    const counts = this.counts;
    // inet_sk_diag_fill: the retransmit timer (RTO, loss probe, reordering) first, then the zero-window
    // probe, then keepalive (sk_timer); a TIME_WAIT socket reports its own timer.
    const rtoDue = this.rtoTimer >= 0 ? scheduler.dueTime(this.rtoTimer) : undefined;
    const probeDue = this.probeTimer >= 0 ? scheduler.dueTime(this.probeTimer) : undefined;
    const keepaliveDue = this.keepaliveTimer >= 0 ? scheduler.dueTime(this.keepaliveTimer) : undefined;
    const waitDue = this.waitTimer >= 0 ? scheduler.dueTime(this.waitTimer) : undefined;
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
    const synchronized = this.state !== 'SYN_SENT' && this.state !== 'SYN_RECV';
    const inFlight = (this.sndNxt - this.sndUna) >>> 0;
    return {
      state: this.state,
      timer,
      timerExpiresNs: waitDue ?? rtoDue ?? probeDue ?? keepaliveDue ?? 0,
      timerRetrans:
        timer === 'on' ? this.retransmits : timer === 'persist' || timer === 'keepalive' ? this.probesOut : 0,
      backoff: this.backoff(),
      timestamps: this.tsOk,
      sack: this.sackOk,
      wscaleOk: this.wscaleOk,
      sndWscale: this.wscaleOk ? this.sndWscale : 0,
      rcvWscale: this.wscaleOk ? this.window.rcvWscale : 0,
      rtoNs: this.rto,
      atoNs: this.ato,
      srttNs: this.srtt,
      rttvarNs: this.rttvar,
      minRttNs: counts.minRttNs,
      mss: this.mss,
      pmtu: this.pathMtu(),
      rcvMss: this.rcvMss,
      advmss: this.infoAdvmss(),
      cwnd: this.sender?.cwnd ?? INIT_CWND,
      ssthresh: this.sender?.tp.ssthresh ?? TCP_INFINITE_SSTHRESH,
      bytesSent: counts.bytesSent,
      bytesRetrans: counts.bytesRetrans,
      bytesAcked: synchronized ? (this.sndUna - this.iss - (counts.passive ? 1 : 0)) >>> 0 : 0,
      bytesReceived: counts.irs >= 0 && synchronized ? (this.window.rcvNxt - counts.irs - 1) >>> 0 : 0,
      segsOut: counts.segsOut,
      segsIn: counts.segsIn,
      dataSegsOut: counts.dataSegsOut,
      dataSegsIn: counts.dataSegsIn,
      totalRetrans: counts.totalRetrans,
      unacked: inFlight === 0 ? 0 : Math.ceil(inFlight / this.mss),
      retransOut: this.sender?.sb.retransOut ?? 0,
      lost: this.sender?.sb.lostOut ?? 0,
      sacked: this.sender?.sb.sackedOut ?? 0,
      rcvSpace: synchronized ? Math.min(this.window.rcvWnd, INIT_CWND * this.infoAdvmss()) : 0,
      rcvSsthresh: this.window.rcvSsthresh,
      sndWnd: this.sndWnd,
      sendQueue: this.sendQueue,
      rcvbuf: bufferSysctl(this.stack.sysctls, 'tcp_rmem', 1),
      sndbuf: bufferSysctl(this.stack.sysctls, 'tcp_wmem', 1),
      sendShutdown: this.finQueued,
      congestion: this.congestion,
      rcvShutdown:
        this.state === 'CLOSE_WAIT' ||
        this.state === 'LAST_ACK' ||
        this.state === 'CLOSING' ||
        this.state === 'TIME_WAIT',
      orphan: this.orphan,
      lastDataSentNs: counts.lastDataSentNs,
      lastDataRecvNs: counts.lastDataRecvNs,
      lastAckRecvNs: counts.lastAckRecvNs,
    };
  }
}
