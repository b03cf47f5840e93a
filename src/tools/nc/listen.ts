// nc's listen side (netcat.c: local_listen, the accept/recvfrom loop, report_sock): a TCP listener serving one
// connection at a time (-k for more) or a UDP socket that connects to its first peer (-k: hears everyone), what
// arrives printed on stdout; no stdin (a background process's stdin is empty), no SO_REUSEPORT sharing.

import type { Namespace } from '../../netns/namespace.ts';
import type { TcpSocket } from '../../socket/tcp/socket.ts';
import type { TcpListener } from '../../socket/tcp/table.ts';
import type { UdpDatagram } from '../../socket/udp.ts';
import { formatIpv4, type Ipv4Addr } from '../../wire/address.ts';
import { inetAton } from '../libc.ts';
import { type CommandResult, fail } from '../result.ts';
import { localPort, type NcOptions } from './options.ts';

/** A running `nc -l`, as `spawn` returns it: what it printed so far, and stop() to end it. */
export interface NcListenerHandle {
  /** True once nc exited by itself (its one connection ended, without -k), or after stop(). */
  readonly done: boolean;
  /** What it received so far. */
  readonly stdout: string;
  /** Ends nc (if still running) and returns what it printed: received bytes on stdout, -v lines on stderr. */
  stop(): CommandResult;
}

/** One accepted connection and what it sent while waiting its turn (nc serves one at a time). */
interface Served {
  readonly socket: TcpSocket;
  buffered: string;
  ended: boolean;
  idleTimer: number;
}

class NcListener implements NcListenerHandle {
  done = false;
  stdout = '';
  stderr = '';
  private readonly decoder = new TextDecoder();
  private readonly queue: Served[] = [];
  private tcp: TcpListener | undefined;
  private udpBound = false;
  private udpPeer: { addr: Ipv4Addr; port: number } | undefined;
  private quitTimer = -1;

  constructor(
    private readonly ns: Namespace,
    private readonly options: NcOptions,
    private readonly addr: Ipv4Addr,
    private readonly port: number,
  ) {}

  /** local_listen: bind (and listen for TCP); false when the address is taken. */
  open(): boolean {
    if (this.options.udp) {
      this.udpBound = this.ns.udp.bind(this.addr, this.port, (d) => this.datagram(d));
      if (!this.udpBound) return false;
      this.report('Bound on', this.addr, this.port);
      return true;
    }
    const listener = this.ns.tcp.listen(this.addr, this.port, (socket) => this.accept(socket));
    if (listener === 'EADDRINUSE') return false;
    this.tcp = listener;
    this.report('Listening on', this.addr, this.port);
    return true;
  }

  /** report_sock: `MSG HOST PORT`; without -n the host goes through getnameinfo, which has no resolver here. */
  private report(message: string, addr: Ipv4Addr, port: number): void {
    if (!this.options.verbose) return;
    if (this.options.numeric) this.stderr += `${message} ${formatIpv4(addr)} ${port}\n`;
    else this.stderr += 'nc: getnameinfo: Temporary failure in name resolution\n';
  }

  private accept(socket: TcpSocket): void {
    if (this.done) {
      socket.abort();
      return;
    }
    const served: Served = { socket, buffered: '', ended: false, idleTimer: -1 };
    this.queue.push(served);
    socket.onData = (_s, data) => {
      const text = this.decoder.decode(data, { stream: true });
      if (this.queue[0] === served) {
        this.stdout += text;
        this.armIdle(served);
      } else served.buffered += text;
    };
    socket.onEnd = () => this.ended(served);
    socket.onClose = () => this.ended(served);
    if (this.queue.length === 1) this.serve(served);
  }

  /** accept() returned this connection: readwrite starts on it. */
  private serve(served: Served): void {
    this.report('Connection received on', served.socket.remoteAddr, served.socket.remotePort);
    this.stdout += served.buffered;
    served.buffered = '';
    // stdin is empty: EOF at once, so -N shuts the sending side and -q closes and quits.
    if (this.options.shutdownOnEof) served.socket.end();
    if (this.options.quitAfterEof >= 0) {
      served.socket.destroy();
      this.quitAfter(this.options.quitAfterEof);
      return;
    }
    this.armIdle(served);
    if (served.ended) this.finish(served);
  }

  private ended(served: Served): void {
    served.ended = true;
    if (this.queue[0] === served) this.finish(served);
  }

  /** readwrite returned (peer's EOF, or -w idle time): close the connection, take the next or exit. */
  private finish(served: Served): void {
    if (this.queue[0] !== served) return;
    this.queue.shift();
    if (served.idleTimer !== -1) this.ns.sim.scheduler.cancel(served.idleTimer);
    served.socket.destroy();
    if (!this.options.keepListening) {
      this.exit();
      return;
    }
    const next = this.queue[0];
    if (next !== undefined) this.serve(next);
  }

  /** readwrite's poll timeout (-w): that long without input ends the connection. */
  private armIdle(served: Served): void {
    if (this.options.timeoutMs < 0) return;
    const scheduler = this.ns.sim.scheduler;
    if (served.idleTimer !== -1) scheduler.cancel(served.idleTimer);
    served.idleTimer = scheduler.schedule(this.options.timeoutMs * 1e6, () => {
      served.idleTimer = -1;
      this.finish(served);
    });
  }

  private quitAfter(seconds: number): void {
    if (seconds === 0) this.exit();
    else this.quitTimer = this.ns.sim.scheduler.schedule(seconds * 1e9, () => this.exit());
  }

  /** recvfrom's first caller (connect() to it without -k); with -k every sender is heard. */
  private datagram(datagram: UdpDatagram): void {
    if (this.done) return;
    const peer = this.udpPeer;
    if (peer === undefined || peer.addr !== datagram.srcAddr || peer.port !== datagram.srcPort) {
      if (peer !== undefined && !this.options.keepListening) return;
      this.udpPeer = { addr: datagram.srcAddr, port: datagram.srcPort };
      if (!this.options.keepListening) {
        // 1.219 reports the caller only when it connects to it (not with -k, checked on Debian 12).
        this.report('Connection received on', datagram.srcAddr, datagram.srcPort);
        // connect(): from now on only this peer reaches the socket.
        this.ns.udp.unbind(this.addr, this.port);
        this.ns.udp.bind(this.addr, this.port, (d) => this.datagram(d), undefined, this.udpPeer);
      }
    }
    this.stdout += this.decoder.decode(datagram.payload, { stream: true });
    // readwrite's poll timeout (-w) ends a UDP listener without -k once its caller goes quiet.
    if (this.options.timeoutMs >= 0 && !this.options.keepListening) {
      const scheduler = this.ns.sim.scheduler;
      if (this.quitTimer !== -1) scheduler.cancel(this.quitTimer);
      this.quitTimer = scheduler.schedule(this.options.timeoutMs * 1e6, () => this.exit());
    }
  }

  private exit(): void {
    if (this.done) return;
    this.done = true;
    if (this.quitTimer !== -1) this.ns.sim.scheduler.cancel(this.quitTimer);
    this.tcp?.close();
    this.tcp = undefined;
    // The connection being served is closed (FIN); those still in the accept queue are reset when
    // the listener closes (inet_csk_listen_stop).
    this.queue.forEach((served, i) => {
      if (served.idleTimer !== -1) this.ns.sim.scheduler.cancel(served.idleTimer);
      if (i === 0) served.socket.destroy();
      else served.socket.abort();
    });
    this.queue.length = 0;
    if (this.udpBound) this.ns.udp.unbind(this.addr, this.port);
    this.udpBound = false;
    this.stdout += this.decoder.decode();
  }

  stop(): CommandResult {
    this.exit();
    return { stdout: this.stdout, stderr: this.stderr, exitCode: 0 };
  }
}

/** Starts `nc -l`: the listener runs while the simulation does; the failure result when it cannot bind. */
export function startNcListener(ns: Namespace, options: NcOptions): NcListenerHandle | CommandResult {
  const proto = options.udp ? 'udp' : 'tcp';
  let addr = 0;
  if (options.host !== undefined) {
    const parsed = inetAton(options.host);
    if (parsed === undefined) return fail('nc: getaddrinfo: Temporary failure in name resolution\n');
    addr = parsed;
  }
  const port = localPort(options.ports[0]!, proto);
  if (port === undefined) return fail('nc: getaddrinfo: Servname not supported for ai_socktype\n');
  if (addr !== 0 && !ns.ipv4.addresses.isLocal(addr)) return fail('nc: Cannot assign requested address\n');
  const listener = new NcListener(ns, options, addr, port);
  if (!listener.open()) return fail('nc: Address already in use\n');
  return listener;
}
