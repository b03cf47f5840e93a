// The application's handle on one TCP connection, modelled on Linux 6.18 (tcp_input.c, tcp_output.c,
// tcp_timer.c) for what exchanges and bulk transfers between two applications need: this file is the
// public API only, each call handed to the file that does that job on the connection's state
// (control-block.ts): opening (handshake.ts), the application's calls and reads (application.ts), the
// receive path (receive-path.ts), the ACK policy (ack-policy.ts), the send path (send-path.ts), one
// segment onto IP (transmit.ts), the transmit timer (rto.ts), keepalive and persist (probe-timers.ts),
// closing and TIME_WAIT (closing.ts), and what ss reads (stats.ts).
// Not modelled: the RTT estimator from per-ACK samples (one timed segment per round trip here),
// receive-buffer autotuning (DRS), receive-queue coalescing and collapsing, TSO/GSO, urgent data.

import type { Packet } from '../../core/packet.ts';
import type { CongestionAlgorithm } from '../../net/route.ts';
import type { Ipv4Addr } from '../../wire/address.ts';
import type { TcpView } from '../../wire/tcp.ts';
import * as application from './application.ts';
import * as closing from './closing.ts';
import type { TcpError } from './constants.ts';
import { Tcb, type TcpEndpoints, type TcpHost, type TcpState } from './control-block.ts';
import * as handshake from './handshake.ts';
import type { TcpInfo } from './info.ts';
import { setReceiveBuffer } from './rcv-autotune.ts';
import { icmpError } from './send-path.ts';
import { info } from './stats.ts';

export type { TcpError } from './constants.ts';
export type { TcpEndpoints, TcpHost, TcpState } from './control-block.ts';

export class TcpSocket implements TcpEndpoints {
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

  private readonly tcb: Tcb;

  constructor(host: TcpHost, endpoints: TcpEndpoints, state: TcpState) {
    this.localAddr = endpoints.localAddr;
    this.localPort = endpoints.localPort;
    this.remoteAddr = endpoints.remoteAddr;
    this.remotePort = endpoints.remotePort;
    this.mark = endpoints.mark;
    this.tcb = new Tcb(host, endpoints, state, this);
  }

  get state(): TcpState {
    return this.tcb.state;
  }

  /** IP_TRANSPARENT (inherited from the listener that accepted it). */
  get transparent(): boolean {
    return this.tcb.transparent;
  }

  /** The owning process's uid and gid (`-m owner`). */
  get uid(): number {
    return this.tcb.uid;
  }

  get gid(): number {
    return this.tcb.gid;
  }

  /** The congestion control the connection runs (icsk_ca_ops): tcp_init_sock's, then the route's at establish. */
  get congestion(): CongestionAlgorithm {
    return this.tcb.congestion;
  }

  /**
   * tcp_v4_connect → tcp_connect_init + tcp_connect: picks ISN and windows, sends the SYN. `reuse` is
   * what tcp_twsk_unique carried over when the 4-tuple came from a TIME_WAIT connection: write_seq and
   * ts_recent (the SYN echoes it, and the window is a multiple of the MSS less timestamps).
   */
  connect(reuse?: { readonly iss: number; readonly tsRecent: number }): void {
    handshake.connect(this.tcb, reuse);
  }

  /** A listener's answer to a SYN (tcp_conn_request → tcp_make_synack). */
  acceptSyn(view: TcpView): void {
    handshake.acceptSyn(this.tcb, view);
  }

  /** send(): queues bytes and sends what the windows and Nagle allow. False once the sending side is shut. */
  write(data: Uint8Array): boolean {
    return application.write(this.tcb, data);
  }

  /** shutdown(SHUT_WR) (Node's end()): a FIN after the queued data. */
  end(): void {
    closing.end(this.tcb);
  }

  /** Node's pause(): the application stops reading; arriving data waits in the receive buffer. */
  pauseReading(): void {
    application.pauseReading(this.tcb);
  }

  /** Node's resume(): the application reads what waits (one onData), and on arrival from now on. */
  resumeReading(): void {
    application.resumeReading(this.tcb);
  }

  /** setsockopt SO_KEEPALIVE with TCP_KEEPIDLE, TCP_KEEPINTVL and TCP_KEEPCNT (seconds and a count). */
  setKeepAlive(on: boolean, options: { idle?: number; interval?: number; count?: number } = {}): void {
    application.setKeepAlive(this.tcb, on, options);
  }

  /** setsockopt TCP_NODELAY (Node's setNoDelay). */
  setNoDelay(on = true): void {
    application.setNoDelay(this.tcb, on);
  }

  /**
   * setsockopt SO_RCVBUF: sk_rcvbuf becomes twice `bytes` (at most net.core.rmem_max before doubling)
   * and is locked, so receive-buffer autotuning leaves it. On an established connection the window
   * scale stays what the handshake chose.
   */
  setReceiveBuffer(bytes: number): void {
    setReceiveBuffer(this.tcb, bytes);
  }

  /** setsockopt SO_LINGER: l_onoff and l_linger in seconds. */
  setLinger(on: boolean, seconds = 0): void {
    application.setLinger(this.tcb, on, seconds);
  }

  /**
   * close(): like end(), and the application hears nothing more (the orphan finishes the close alone);
   * `onReturn` runs when close() returns (with SO_LINGER and a time: true when the linger time ran out).
   */
  destroy(onReturn?: (timedOut: boolean) => void): void {
    closing.destroy(this.tcb, onReturn);
  }

  /** close() with SO_LINGER 0: a reset, and the connection is gone. */
  abort(): void {
    closing.abort(this.tcb);
  }

  /** tcp_v4_rcv for a segment the table found for this connection (checksum verified). */
  receive(view: TcpView, pkt: Packet): void {
    application.receive(this.tcb, view, pkt);
  }

  /** tcp_twsk_unique's view of a TIME_WAIT connection: its entry time (tw_entry_stamp, ms), timestamps, snd_nxt, ts_recent. */
  get timeWait(): {
    readonly sinceMs: number;
    readonly timestamps: boolean;
    readonly sndNxt: number;
    readonly tsRecent: number;
  } {
    const s = this.tcb;
    return { sinceMs: s.timeWaitSinceMs, timestamps: s.tsOk, sndNxt: s.sndNxt, tsRecent: s.tsRecent };
  }

  /** inet_twsk_deschedule_put: a new connection takes this TIME_WAIT's 4-tuple; it goes without a segment. */
  recycleTimeWait(): void {
    closing.recycleTimeWait(this.tcb);
  }

  /** An ICMP error about a segment we sent (tcp_v4_err); `seq` is the quoted sequence number. */
  icmpError(type: number, code: number, seq: number): void {
    icmpError(this.tcb, type, code, seq);
  }

  /** tp->write_seq - tp->snd_una: `ss`'s Send-Q. */
  get sendQueue(): number {
    return this.tcb.sendQueue;
  }

  /** The connection's tcp_info, timer and buffer sizes, read at this instant. */
  info(): TcpInfo {
    return info(this.tcb);
  }
}
