// The state of one TCP connection (Linux's tcp_sock, what RFC 9293 calls the transmission control block):
// sequence spaces, buffers, the ACK engine, timers' handles, with the small questions every part asks of it;
// no behaviour beyond those questions (the other files of src/socket/tcp/ act on it).

import type { Packet } from '../../core/packet.ts';
import type { Ipv4Stack } from '../../net/ipv4.ts';
import type { CongestionAlgorithm } from '../../net/route.ts';
import type { Ipv4Addr } from '../../wire/address.ts';
import { IPPROTO_TCP } from '../../wire/ipv4.ts';
import type { TcpView } from '../../wire/tcp.ts';
import { MS, PINGPONG_THRESH, TIMEOUT_INIT } from './constants.ts';
import { OfoQueue } from './ofo-queue.ts';
import { type OutgoingOptions, ReceivedOptions } from './options.ts';
import { newReceiveAutotune, type ReceiveAutotune, setReceiveBuffer } from './rcv-autotune.ts';
import { ReceiveQueue } from './receive-queue.ts';
import { SackBlocks } from './sack-blocks.ts';
import type { SenderControl } from './sender-control.ts';
import type { TcpSocket } from './socket.ts';
import { defaultCongestion } from './sysctl.ts';
import { DEFAULT_SCALING_RATIO, type ReceiveWindow, TCP_MSS_DEFAULT } from './window.ts';

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
  /** SO_RCVBUF set before the handshake (connect's option, or a listener's that its children inherit), in bytes as passed. */
  readonly receiveBuffer?: number;
  /** The owning process's uid and gid (the socket file's f_cred, `-m owner`); absent: 0 (root). */
  readonly uid?: number;
  readonly gid?: number;
  /** IP_TRANSPARENT (a listener's, which its children inherit): TPROXY and `-m socket --transparent` take it. */
  readonly transparent?: boolean;
}

/** One connection's state; TcpSocket is the application's handle on it. */
export class Tcb implements TcpEndpoints {
  state: TcpState;

  readonly localAddr: Ipv4Addr;

  readonly localPort: number;

  readonly remoteAddr: Ipv4Addr;

  readonly remotePort: number;

  readonly mark: number;

  /** The owner's uid and gid (see TcpEndpoints), stamped on every segment sent (skb->sk for `-m owner`). */
  readonly uid: number;

  readonly gid: number;

  readonly transparent: boolean;

  // Send sequence space (RFC 9293 names).
  iss = 0;

  sndUna = 0;

  sndNxt = 0;

  /**
   * The sender's scoreboard, RACK-TLP, recovery states and CUBIC (sender-control.ts), from
   * tcp_init_transfer on: which segments are out, lost, resent, and the congestion window.
   */
  sender: SenderControl | undefined;

  /** tcp_cwnd_validate's record: is_cwnd_limited, max_packets_out, cwnd_usage_seq. */
  isCwndLimited = false;

  maxPacketsOut = 0;

  cwndUsageSeq = 0;

  /** The MSS the segments in flight were cut with. */
  sentMss = TCP_MSS_DEFAULT;

  sndWnd = 0;

  sndWl1 = 0;

  sndWscale = 0;

  /** End of the last small segment sent (Minshall's variant of Nagle). */
  sndSml = 0;

  /** TCP_NODELAY (tp->nonagle's TCP_NAGLE_OFF): small segments leave without waiting for an ACK. */
  noDelay = false;

  /** SO_LINGER: l_onoff and l_linger (seconds). */
  lingerOn = false;

  lingerSeconds = 0;

  /** A close() with SO_LINGER that has not returned yet: called with true when the linger time ran out. */
  lingerReturn: ((timedOut: boolean) => void) | undefined;

  lingerTimer = -1;

  /** Bytes written and not yet acknowledged; sendBuf[0] has sequence number bufSeq. */
  sendBuf = new Uint8Array(0);

  sendLen = 0;

  bufSeq = 0;

  /** The application called end(): a FIN follows the data. */
  finQueued = false;

  /** The FIN's sequence number once sent. */
  finSeq = -1;

  // Receive side.
  readonly window: ReceiveWindow = {
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
  advmss = 0;

  /** tp->advmss once synchronized: the announced MSS less the timestamp option when timestamps are on. */
  tcpAdvmss = 0;

  /** sk_userlocks' SOCK_RCVBUF_LOCK: SO_RCVBUF fixed sk_rcvbuf, which no autotuning changes. */
  rcvbufLocked = false;

  /** DRS: the receiver's RTT estimate and the bytes read per RTT (rcv-autotune.ts). */
  readonly autotune: ReceiveAutotune = newReceiveAutotune();

  /** copied_seq: the next byte the application reads. */
  copiedSeq = 0;

  /** Bytes received in order and not yet read (the application paused reading). */
  readonly rcvQueue = new ReceiveQueue();

  /** pauseReading(): arriving data stays in the receive buffer. */
  readPaused = false;
  /** The reading process was woken (sk_data_ready) and has not run yet: the timer that runs it. */
  readerWakeup = -1;

  /** The peer's FIN arrived (RCV_SHUTDOWN). */
  rcvShutdown = false;

  /** onEnd is owed once the application read up to the FIN. */
  endPending = false;

  /** mss_cache: the payload of a full-sized segment we send. */
  mss = TCP_MSS_DEFAULT;

  peerMss = TCP_MSS_DEFAULT;

  tsOk = false;

  sackOk = false;

  wscaleOk = false;

  tsOffset = 0;

  tsRecent = 0;

  readonly received = new ReceivedOptions();

  /** The SACK blocks we announce and the out-of-order queue behind them. */
  readonly sack = new SackBlocks(false, () => this.sysctl('tcp_dsack') !== 0);

  readonly ofo = new OfoQueue(this.sack);

  // The delayed-ACK engine (icsk_ack).
  ackPending = 0;

  quick = 0;

  pingpong = 0;

  ato = 0;

  lrcvtime = 0;

  rcvMss = TCP_MSS_DEFAULT;

  lastSegSize = 0;

  // Congestion and retransmission.
  srtt = 0;

  /**
   * What recovery reads of the RTT estimator: srtt in µs. The estimator stays the socket's (one
   * timed segment per round trip, Karn's rule), so the scoreboard's per-ACK samples are not used.
   */
  readonly rttHost = { rttSample: (_us: number): void => {}, srttUs: 0, sackOk: false };

  rttvar = 0;

  rto = TIMEOUT_INIT;

  retransmits = 0;

  rttSeq = -1;

  rttSentAt = 0;

  rtoTimer = -1;

  /** The last SYN sent, for skb_still_in_host_queue: not sent again while a neighbour still holds it. */
  lastSyn: Packet | undefined;

  /** What the one transmit timer is armed for (icsk_pending): the RTO, a tail loss probe, RACK's reordering window. */
  xmitKind: 'retrans' | 'loss-probe' | 'reo-timeout' = 'retrans';

  /** When the oldest unacknowledged segment was first sent: where tcp_retries2's time budget starts (retrans_stamp). */
  headSentAt = 0;

  /** tcp_sock's rcv_tstamp: when the last ACK arrived (keepalive counts silence from it and from lrcvtime). */
  rcvTstamp = 0;

  /** SO_KEEPALIVE, with TCP_KEEPIDLE, TCP_KEEPINTVL and TCP_KEEPCNT in seconds (0: the sysctl's). */
  readonly keepalive = { on: false, idle: 0, interval: 0, count: 0 };

  keepaliveTimer = -1;

  /** The persist timer (ICSK_TIME_PROBE0), its backoff (icsk_backoff) and the probes sent unanswered by a window. */
  probeTimer = -1;

  probeBackoff = 0;

  probesOut = 0;

  /** tcp_oow_rate_limited's last_oow_ack_time, in ns (-1: never). */
  lastOowAck = -1;

  delackTimer = -1;

  waitTimer = -1;

  /**
   * The application holds the socket (lock_sock in a send from process context): segments that
   * arrive meanwhile wait in the socket's backlog until release_sock.
   */
  owned = false;

  /** A segment left while the socket was held: its consequences run before the next one leaves. */
  sentWhileOwned = false;

  readonly backlogViews: TcpView[] = [];

  readonly backlogPackets: Packet[] = [];

  /** An ICMP frag-needed came while the socket was held (TCP_MTU_REDUCED_DEFERRED). */
  mtuReducedDeferred = false;

  /** The application closed its socket: nothing more is reported (an orphan finishing its close). */
  orphan = false;

  closed = false;

  timeWaitSinceMs = -1;

  /** onClose ran (a connection in TIME_WAIT is closed for the application). */
  reportedClose = false;

  readonly pseudo = { srcAddr: 0, dstAddr: 0 };

  /**
   * inet_id: the IP id of the next segment, random at connect() or accept (get_random_u16; here the
   * top half of the timestamp offset's draw, so the seed's other draws stay put), one more per segment.
   */
  ipId = 0;

  readonly outputOptions = { protocol: IPPROTO_TCP, pmtudisc: 'do' as const, ident: 0 };

  readonly congestionSetsockopt: CongestionAlgorithm | undefined;

  /** The congestion control the connection runs (icsk_ca_ops): tcp_init_sock's, then the route's at establish. */
  congestion: CongestionAlgorithm;

  readonly outgoing: OutgoingOptions = {
    mss: 0,
    sackPermitted: false,
    timestamps: false,
    tsVal: 0,
    tsEcr: 0,
    wscale: -1,
  };

  /** tcp_info's counters (tcp_segs_in, tcp_event_data_sent, __tcp_transmit_skb, __tcp_retransmit_skb). */
  readonly counts = {
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

  constructor(
    readonly host: TcpHost,
    endpoints: TcpEndpoints,
    state: TcpState,
    /** The application's handle: its callbacks, and what the table and the listener know the connection by. */
    readonly socket: TcpSocket,
  ) {
    this.localAddr = endpoints.localAddr;
    this.localPort = endpoints.localPort;
    this.remoteAddr = endpoints.remoteAddr;
    this.remotePort = endpoints.remotePort;
    this.mark = endpoints.mark;
    this.uid = endpoints.uid ?? 0;
    this.gid = endpoints.gid ?? 0;
    this.transparent = endpoints.transparent ?? false;
    this.congestionSetsockopt = endpoints.congestion;
    this.congestion = endpoints.congestion ?? defaultCongestion(host.stack.sysctls);
    this.state = state;
    this.pseudo.srcAddr = endpoints.localAddr;
    this.pseudo.dstAddr = endpoints.remoteAddr;
    if (endpoints.receiveBuffer !== undefined) setReceiveBuffer(this, endpoints.receiveBuffer);
  }

  get stack(): Ipv4Stack {
    return this.host.stack;
  }

  sysctl(key: string): number {
    return this.stack.sysctls.int(`net.ipv4.${key}`);
  }

  get nowMs(): number {
    return Math.floor(this.stack.now / MS);
  }

  /** tcp_clock_ms plus the connection's offset: the TSval we send. */
  tsNow(): number {
    return (this.nowMs + this.tsOffset) >>> 0;
  }

  /** The route's MTU toward the peer, a learned path MTU included. */
  pathMtu(): number {
    const route = this.stack.routeOutput(this.remoteAddr, {
      src: this.localAddr,
      mark: this.mark,
      anySrc: this.transparent,
    });
    if (!route.ok) return 576;
    const dev = this.stack.interfaces.byIndex(route.ifindex);
    return dev === undefined ? 576 : this.stack.pathMtu(route, this.remoteAddr, dev);
  }

  synchronized(): boolean {
    return this.state !== 'SYN_SENT' && this.state !== 'SYN_RECV' && this.state !== 'CLOSE';
  }

  /** A method, so a state change inside a call is seen where the compiler narrowed the field. */
  isTimeWait(): boolean {
    return this.state === 'TIME_WAIT';
  }

  acceptsData(): boolean {
    return this.state === 'ESTABLISHED' || this.state === 'FIN_WAIT1' || this.state === 'FIN_WAIT2';
  }

  inPingpong(): boolean {
    return this.pingpong >= PINGPONG_THRESH;
  }

  hasUnsent(): boolean {
    return (this.sndNxt - this.bufSeq) >>> 0 < this.sendLen;
  }

  /**
   * tp->write_seq - tp->snd_una: bytes written and not yet acknowledged, an unacknowledged SYN or FIN
   * counting one (what inet_diag reports as the send queue, `ss`'s Send-Q).
   */
  get sendQueue(): number {
    const writeSeq = (this.bufSeq + this.sendLen + (this.finQueued ? 1 : 0)) >>> 0;
    return Math.max(0, (writeSeq - this.sndUna) | 0);
  }
}
