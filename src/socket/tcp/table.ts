// TCP in one namespace (net/ipv4/tcp_ipv4.c): the socket tables (listeners, connections and TIME_WAIT by
// 4-tuple), connect() and listen(), demultiplexing with checksum checks, resets for segments no socket wants,
// and ICMP errors handed to the connection they concern.

import type { Packet } from '../../core/packet.ts';
import type { Rng } from '../../core/rng.ts';
import type { Ipv4Stack, SendResult } from '../../net/ipv4.ts';
import { sendTcpReset } from '../../net/tcp-reset.ts';
import type { Ipv4Addr } from '../../wire/address.ts';
import { IPPROTO_ICMP, IPPROTO_TCP, type Ipv4View } from '../../wire/ipv4.ts';
import { TCP_HEADER_LEN, TcpView } from '../../wire/tcp.ts';
import { optionsLength, writeOptions } from './options.ts';
import { type TcpError, type TcpHost, TcpSocket } from './socket.ts';
import { defineTcpSysctls } from './sysctl.ts';

/** A listening socket: SYNs to its address and port become connections handed to `onAccept` once established. */
export interface TcpListener {
  readonly addr: Ipv4Addr;
  readonly port: number;
  readonly onAccept: (socket: TcpSocket) => void;
  /** close() on the listening socket: connections still in the handshake are dropped. */
  close(): void;
}

export interface ConnectOptions {
  readonly dst: Ipv4Addr;
  readonly dstPort: number;
  /** bind() to this address before connect() (an ephemeral port then comes from bind's search); absent: the route's. */
  readonly src?: Ipv4Addr;
  /** bind() to a port; absent picks an ephemeral port from net.ipv4.ip_local_port_range. */
  readonly srcPort?: number;
  /** SO_MARK. */
  readonly mark?: number;
}

export type ConnectResult =
  | { ok: true; socket: TcpSocket }
  | { ok: false; error: TcpError | 'EADDRINUSE' | 'EADDRNOTAVAIL' };

/** The connections key on the remote half of the 4-tuple: address * 2^16 + port fits a double exactly. */
function remoteKey(addr: Ipv4Addr, port: number): number {
  return addr * 65536 + port;
}

/** The SYN bit of the flags byte. */
const TCP_FLAG_SYN = 0x02;

export class TcpTable implements TcpHost {
  readonly stats = { inSegs: 0, inErrs: 0, inCsumErrors: 0, outRsts: 0, activeOpens: 0, passiveOpens: 0 };
  private readonly listeners = new Map<number, TcpListener[]>();
  /** local port → remote key → connections (several only when local addresses differ). */
  private readonly connections = new Map<number, Map<number, TcpSocket[]>>();
  /** Which listener a connection in the handshake belongs to. */
  private readonly pending = new Map<TcpSocket, TcpListener>();
  private readonly rng: Rng;

  constructor(readonly stack: Ipv4Stack) {
    defineTcpSysctls(stack.sysctls);
    this.rng = stack.ctx.rng.fork('tcp');
    stack.protocols.set(IPPROTO_TCP, (pkt, ip) => this.receive(pkt, ip));
    stack.errorHandlers.set(IPPROTO_TCP, (quoted, type, code) => this.receiveError(quoted, type, code));
  }

  random32(): number {
    return this.rng.u32();
  }

  /** listen() on `addr` (0 for any) and `port`, with SO_REUSEADDR as Node and most servers set it. */
  listen(addr: Ipv4Addr, port: number, onAccept: (socket: TcpSocket) => void): TcpListener | 'EADDRINUSE' {
    const bound = this.listeners.get(port) ?? [];
    if (bound.some((other) => other.addr === addr || other.addr === 0 || addr === 0)) return 'EADDRINUSE';
    const listener: TcpListener = {
      addr,
      port,
      onAccept,
      close: () => {
        const left = (this.listeners.get(port) ?? []).filter((other) => other !== listener);
        if (left.length === 0) this.listeners.delete(port);
        else this.listeners.set(port, left);
        for (const [socket, owner] of this.pending) if (owner === listener) socket.abort();
      },
    };
    // A listener on a specific address wins over one on any address (inet_lhash2_lookup's scoring).
    bound.push(listener);
    bound.sort((a, b) => (a.addr === 0 ? 1 : 0) - (b.addr === 0 ? 1 : 0));
    this.listeners.set(port, bound);
    return listener;
  }

  /**
   * tcp_v4_connect: route, source address, port (bind()'s or __inet_hash_connect's), then the
   * SYN. Errors the kernel returns from connect() itself come back here; later failures reach
   * the socket's onClose.
   */
  connect(options: ConnectOptions): ConnectResult {
    const mark = options.mark ?? 0;
    const route = this.stack.routeOutput(options.dst, { ...(options.src ? { src: options.src } : {}), mark });
    if (!route.ok) return { ok: false, error: route.error };
    const localAddr = route.src;
    let localPort = options.srcPort ?? 0;
    if (localPort !== 0) {
      if (this.portTaken(localAddr, localPort)) return { ok: false, error: 'EADDRINUSE' };
      if (this.find(localAddr, localPort, options.dst, options.dstPort) !== undefined)
        return { ok: false, error: 'EADDRNOTAVAIL' };
    } else {
      // bind(addr, 0) before connect() picks a port the way bind does, else connect() does.
      const port =
        options.src !== undefined && options.src !== 0
          ? this.bindPort(localAddr)
          : this.ephemeralPort(localAddr, options.dst, options.dstPort);
      if (port === undefined) return { ok: false, error: 'EADDRNOTAVAIL' };
      localPort = port;
    }
    const socket = new TcpSocket(
      this,
      { localAddr, localPort, remoteAddr: options.dst, remotePort: options.dstPort, mark },
      'SYN_SENT',
    );
    this.hash(socket);
    this.stats.activeOpens++;
    socket.connect();
    return { ok: true, socket };
  }

  /** Whether a bind() to addr:port without SO_REUSEADDR conflicts (inet_csk_bind_conflict). */
  private portTaken(addr: Ipv4Addr, port: number): boolean {
    if ((this.listeners.get(port) ?? []).some((l) => l.addr === 0 || l.addr === addr)) return true;
    for (const list of this.connections.get(port)?.values() ?? [])
      if (list.some((socket) => socket.localAddr === addr)) return true;
    return false;
  }

  /**
   * __inet_hash_connect: a random start in the range, even ports first (bind() gets the odd
   * ones), the first whose 4-tuple is free. Linux's start is a keyed hash of the 4-tuple plus a
   * perturbation table; ours comes from the seed.
   */
  private ephemeralPort(localAddr: Ipv4Addr, dst: Ipv4Addr, dstPort: number): number | undefined {
    const [low, high] = this.portRange();
    const remaining = high - low + 1;
    const offset = this.rng.int(remaining) & ~1;
    for (const parity of [0, 1])
      for (let i = 0; i < remaining; i += 2) {
        const port = low + ((offset + parity + i) % remaining);
        if ((this.listeners.get(port) ?? []).length > 0) continue;
        if (this.find(localAddr, port, dst, dstPort) === undefined) return port;
      }
    return undefined;
  }

  /**
   * inet_csk_get_port for bind(addr, 0): a random start, odd ports first (connect() takes the
   * even ones), the first port no socket on this address holds.
   */
  private bindPort(localAddr: Ipv4Addr): number | undefined {
    const [low, high] = this.portRange();
    const remaining = high - low + 1;
    const offset = this.rng.int(remaining) | 1;
    for (const parity of [0, 1])
      for (let i = 0; i < remaining; i += 2) {
        const port = low + ((offset - parity + i) % remaining);
        if (!this.portTaken(localAddr, port)) return port;
      }
    return undefined;
  }

  private portRange(): [number, number] {
    const range = this.stack.sysctls.get('net.ipv4.ip_local_port_range');
    return (range.ok ? range.value : '32768\t60999').split('\t').map(Number) as [number, number];
  }

  private find(
    localAddr: Ipv4Addr,
    localPort: number,
    remoteAddr: Ipv4Addr,
    remotePort: number,
  ): TcpSocket | undefined {
    const list = this.connections.get(localPort)?.get(remoteKey(remoteAddr, remotePort));
    if (list === undefined) return undefined;
    for (const socket of list) if (socket.localAddr === localAddr) return socket;
    return undefined;
  }

  private hash(socket: TcpSocket): void {
    let byRemote = this.connections.get(socket.localPort);
    if (byRemote === undefined) {
      byRemote = new Map();
      this.connections.set(socket.localPort, byRemote);
    }
    const key = remoteKey(socket.remoteAddr, socket.remotePort);
    const list = byRemote.get(key);
    if (list === undefined) byRemote.set(key, [socket]);
    else list.push(socket);
  }

  unhash(socket: TcpSocket): void {
    this.pending.delete(socket);
    const byRemote = this.connections.get(socket.localPort);
    const key = remoteKey(socket.remoteAddr, socket.remotePort);
    const list = byRemote?.get(key);
    if (byRemote === undefined || list === undefined) return;
    const left = list.filter((other) => other !== socket);
    if (left.length > 0) byRemote.set(key, left);
    else {
      byRemote.delete(key);
      if (byRemote.size === 0) this.connections.delete(socket.localPort);
    }
  }

  established(socket: TcpSocket): void {
    const listener = this.pending.get(socket);
    this.pending.delete(socket);
    if (listener !== undefined) listener.onAccept(socket);
  }

  /** The listening sockets in this namespace, for `ss`-style listings. */
  *listening(): IterableIterator<TcpListener> {
    for (const bound of this.listeners.values()) yield* bound;
  }

  /** The connections in this namespace, for `ss`-style listings and tests. */
  *sockets(): IterableIterator<TcpSocket> {
    for (const byRemote of this.connections.values()) for (const list of byRemote.values()) yield* list;
  }

  /**
   * A bare SYN without a socket behind it, as a port scanner sends it: Linux's SYN layout (mss
   * from the route MTU, sackOK, timestamps, nop, wscale 7), window 64240, a seeded ISN. Whatever
   * answers finds no socket here and is reset.
   */
  sendSyn(dst: Ipv4Addr, dstPort: number, srcPort: number, options: { mark?: number } = {}): SendResult {
    const route = this.stack.routeOutput(dst, options.mark !== undefined ? { mark: options.mark } : {});
    if (!route.ok) return { ok: false, error: route.error };
    const dev = this.stack.interfaces.byIndex(route.ifindex);
    const mss = (route.mtu || dev?.mtu || 1500) - 40;
    const synOptions = {
      mss,
      sackPermitted: true,
      timestamps: true,
      tsVal: Math.floor(this.stack.now / 1e6) >>> 0,
      tsEcr: 0,
      wscale: 7,
    };
    const headerLen = TCP_HEADER_LEN + optionsLength(synOptions);
    const pkt = this.stack.allocatePacket(headerLen);
    if (options.mark !== undefined) pkt.mark = options.mark;
    const tcp = TcpView.unchecked(pkt.buf, pkt.start, headerLen);
    tcp.srcPort = srcPort;
    tcp.dstPort = dstPort;
    tcp.seqNumber = this.stack.ctx.rng.u32();
    tcp.ackNumber = 0;
    tcp.headerLen = headerLen;
    tcp.flags = TCP_FLAG_SYN;
    tcp.window = 64240;
    tcp.urgentPointer = 0;
    writeOptions(pkt.buf, pkt.start + TCP_HEADER_LEN, synOptions);
    tcp.fillChecksum({ srcAddr: route.src, dstAddr: route.dst }, headerLen);
    return this.stack.output(pkt, route, { protocol: IPPROTO_TCP, pmtudisc: 'do' });
  }

  /**
   * tcp_v4_rcv: length and checksum checks, then the connection for the 4-tuple, else a
   * listener (for a SYN), else a reset (never in answer to a reset) and drop NO_SOCKET.
   */
  private receive(pkt: Packet, ip: Ipv4View): void {
    const segmentLen = ip.totalLen - ip.headerLen;
    const tcp = TcpView.checked(
      ip.bytes.subarray(0, ip.offset + ip.totalLen),
      ip.offset + ip.headerLen,
      segmentLen,
    );
    if (!(tcp instanceof TcpView)) {
      this.stats.inErrs++;
      this.stack.drop(pkt, 'PKT_TOO_SMALL');
      return;
    }
    if (!tcp.verifyChecksum({ srcAddr: ip.srcAddr, dstAddr: ip.dstAddr })) {
      this.stats.inCsumErrors++;
      this.stack.drop(pkt, 'TCP_CSUM');
      return;
    }
    this.stats.inSegs++;
    const socket = this.find(ip.dstAddr, tcp.dstPort, ip.srcAddr, tcp.srcPort);
    // A SYN to a connection in TIME_WAIT may open a new one (tcp_timewait_state_process → TCP_TW_SYN).
    if (socket !== undefined && !(socket.state === 'TIME_WAIT' && tcp.syn && !tcp.ack)) {
      socket.receive(tcp, pkt);
      return;
    }
    if (socket !== undefined) socket.abort();
    const listener = this.listenerFor(ip.dstAddr, tcp.dstPort);
    // tcp_rcv_state_process in LISTEN: a reset is ignored, an ACK is reset, a SYN opens a request, the rest is dropped.
    if (listener !== undefined && tcp.rst) {
      this.stack.drop(pkt, 'NO_SOCKET');
      return;
    }
    if (listener !== undefined && tcp.syn && !tcp.ack) {
      // tcp_conn_request: the request lives in the connection table until the handshake completes.
      const child = new TcpSocket(
        this,
        {
          localAddr: ip.dstAddr,
          localPort: tcp.dstPort,
          remoteAddr: ip.srcAddr,
          remotePort: tcp.srcPort,
          mark: 0,
        },
        'SYN_RECV',
      );
      this.hash(child);
      this.pending.set(child, listener);
      this.stats.passiveOpens++;
      child.acceptSyn(tcp);
      return;
    }
    if (listener !== undefined && !tcp.ack) {
      this.stack.drop(pkt, 'NO_SOCKET');
      return;
    }
    if (!tcp.rst) {
      this.stats.outRsts++;
      sendTcpReset(this.stack, pkt);
    }
    this.stack.drop(pkt, 'NO_SOCKET');
  }

  private listenerFor(addr: Ipv4Addr, port: number): TcpListener | undefined {
    const bound = this.listeners.get(port);
    if (bound === undefined) return undefined;
    for (const listener of bound) if (listener.addr === addr || listener.addr === 0) return listener;
    return undefined;
  }

  /** tcp_v4_err: the connection the quoted segment came from, if the quoted sequence number is in flight. */
  private receiveError(quoted: Ipv4View, type: number, code: number): void {
    const at = quoted.offset + quoted.headerLen;
    if (quoted.bytes.length < at + 8 || quoted.protocol === IPPROTO_ICMP) return;
    const bytes = quoted.bytes;
    const srcPort = (bytes[at]! << 8) | bytes[at + 1]!;
    const dstPort = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    const seq =
      ((bytes[at + 4]! << 24) | (bytes[at + 5]! << 16) | (bytes[at + 6]! << 8) | bytes[at + 7]!) >>> 0;
    this.find(quoted.srcAddr, srcPort, quoted.dstAddr, dstPort)?.icmpError(type, code, seq);
  }
}
