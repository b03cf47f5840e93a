// TCP in one namespace (net/ipv4/tcp_ipv4.c): the socket tables (listeners, connections and TIME_WAIT by
// 4-tuple, bind buckets by port), bind(), connect() and listen() with SO_REUSEADDR and SO_REUSEPORT,
// demultiplexing with checksum checks, resets for segments no socket wants, and ICMP errors handed to the
// connection they concern. No SO_BINDTODEVICE, IPv6 or uids (every socket has one owner).

import type { Packet } from '../../core/packet.ts';
import type { Rng } from '../../core/rng.ts';
import type { Ipv4Stack, SendResult } from '../../net/ipv4.ts';
import type { CongestionAlgorithm } from '../../net/route.ts';
import { sendTcpReset } from '../../net/tcp-reset.ts';
import type { Ipv4Addr } from '../../wire/address.ts';
import { IPPROTO_ICMP, IPPROTO_TCP, type Ipv4View } from '../../wire/ipv4.ts';
import { TCP_HEADER_LEN, TcpView } from '../../wire/tcp.ts';
import { LocalPorts } from '../ports.ts';
import { optionsLength, writeOptions } from './options.ts';
import { type TcpError, type TcpHost, TcpSocket } from './socket.ts';
import { defineTcpSysctls } from './sysctl.ts';

/** A listening socket: SYNs to its address and port become connections handed to `onAccept` once established. */
export interface TcpListener {
  readonly addr: Ipv4Addr;
  readonly port: number;
  readonly onAccept: (socket: TcpSocket) => void;
  /** TCP_CONGESTION set on the listening socket: its children inherit it (tcp_ca_openreq_child). */
  readonly congestion: CongestionAlgorithm | undefined;
  /** SO_RCVBUF set on the listening socket: its children inherit the locked buffer (sk_clone_lock). */
  readonly receiveBuffer: number | undefined;
  /** The owner's uid/gid, IP_TRANSPARENT and SO_MARK, which its children inherit (sk_clone_lock). */
  readonly uid: number;
  readonly gid: number;
  readonly transparent: boolean;
  readonly mark: number;
  /** close() on the listening socket: connections still in the handshake are dropped. */
  close(): void;
}

/** SO_REUSEADDR and SO_REUSEPORT, as set before bind(). */
export interface ReuseOptions {
  readonly reuseAddr?: boolean;
  readonly reusePort?: boolean;
}

/** listen()'s socket options: SO_REUSEADDR, SO_REUSEPORT, TCP_CONGESTION and SO_RCVBUF (bytes as passed). */
export interface ListenOptions extends ReuseOptions {
  readonly congestion?: CongestionAlgorithm;
  readonly receiveBuffer?: number;
  /** The owning process's uid and gid (default 0). */
  readonly uid?: number;
  readonly gid?: number;
  /** IP_TRANSPARENT: the listener takes connections TPROXY sends it, for any destination. */
  readonly transparent?: boolean;
  /** SO_MARK (its children's; `-m socket --restore-skmark` reads it). */
  readonly mark?: number;
}

/** What netfilter's socket lookups read of the socket they find (netfilter/host.ts: SocketInfo). */
export interface TcpSocketView {
  readonly boundAddr: Ipv4Addr;
  readonly boundPort: number;
  readonly transparent: boolean;
  readonly mark: number;
  readonly listening: boolean;
  readonly timeWait: boolean;
}

/** A socket bound with bind() and neither listening nor connected: it holds its port. */
export interface TcpBinding {
  readonly addr: Ipv4Addr;
  readonly port: number;
  close(): void;
}

/** One socket holding a port (an entry of a bind bucket's owners): its address and reuse flags. */
interface PortOwner {
  readonly addr: Ipv4Addr;
  readonly reuseAddr: boolean;
  readonly reusePort: boolean;
  /** TCP_LISTEN: SO_REUSEADDR does not let a bind share its port. */
  readonly listening: boolean;
  /** The connection, for TIME_WAIT (its reuse rules) and removal; undefined for listeners and bound sockets. */
  readonly socket: TcpSocket | undefined;
}

/**
 * inet_bind_bucket: the sockets holding one local port. `byConnect` is the kernel's fastreuse of -1:
 * the bucket was made by connect()'s search, so that search may share it with other destinations;
 * a bucket made by bind() is never taken by the search.
 */
interface BindBucket {
  byConnect: boolean;
  readonly owners: Set<PortOwner>;
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
  /** The owning process's uid and gid (default 0). */
  readonly uid?: number;
  readonly gid?: number;
  /** SO_REUSEADDR (Node sets it whenever it binds, so with srcPort or src). */
  readonly reuseAddr?: boolean;
  readonly reusePort?: boolean;
  /** TCP_CONGESTION before connect(); a route's congctl still wins (tcp_ca_dst_init). */
  readonly congestion?: CongestionAlgorithm;
  /** SO_RCVBUF before connect(), in bytes as passed: it sizes the SYN's window and turns autotuning off. */
  readonly receiveBuffer?: number;
}

export type ConnectResult =
  | { ok: true; socket: TcpSocket }
  | { ok: false; error: TcpError | 'EADDRINUSE' | 'EADDRNOTAVAIL' };

export type ListenResult = TcpListener | 'EADDRINUSE';
export type BindResult = { ok: true; value: TcpBinding } | { ok: false; error: 'EADDRINUSE' };

/** The connections key on the remote half of the 4-tuple: address * 2^16 + port fits a double exactly. */
function remoteKey(addr: Ipv4Addr, port: number): number {
  return addr * 65536 + port;
}

/** The SYN bit of the flags byte. */
const TCP_FLAG_SYN = 0x02;

/** The local ports with a connection to one destination from one address (see TcpTable.tupleIndexes). */
interface TupleIndex {
  readonly bits: Uint32Array;
  count: number;
}

/** Ports held in a namespace before connect()'s scan reads bucket kinds from a typed array. */
const KINDS_AFTER_BUCKETS = 256;

/** Probes of connect()'s scan before it indexes the destination's ports. */
const INDEX_AFTER_PROBES = 64;

/** A 32-bit mix of the 4-tuple with a key: our stand-in for inet_ehashfn's jhash (SO_REUSEPORT's choice). */
function flowHash(key: number, saddr: Ipv4Addr, sport: number, daddr: Ipv4Addr, dport: number): number {
  let h = key;
  for (const word of [saddr, daddr, (sport << 16) | dport]) {
    h = Math.imul(h ^ word, 0x9e3779b1);
    h = (h ^ (h >>> 15)) >>> 0;
  }
  return Math.imul(h ^ (h >>> 13), 0x85ebca6b) >>> 0;
}

function isLoopback(addr: Ipv4Addr): boolean {
  return addr >>> 24 === 127;
}

export class TcpTable implements TcpHost {
  readonly stats = { inSegs: 0, inErrs: 0, inCsumErrors: 0, outRsts: 0, activeOpens: 0, passiveOpens: 0 };
  private readonly listeners = new Map<number, TcpListener[]>();
  /** SO_REUSEPORT listeners: the group each belongs to (sock_reuseport: same port, same address). */
  private readonly reuseGroups = new Map<TcpListener, TcpListener[]>();
  /** inet_bind_bucket by port. */
  private readonly buckets = new Map<number, BindBucket>();
  /**
   * The buckets' kinds by port, for connect()'s scan: 0 none, 1 made by connect(), 2 made by bind().
   * Allocated (64 KiB) once a namespace holds more than KINDS_AFTER_BUCKETS ports; until then the scan
   * asks the bucket map.
   */
  private bucketKinds: Uint8Array | undefined;
  /**
   * For destinations connect() scanned far for: (remote address and port) → local address → the local
   * ports with a connection to it, one bit each, so a scan over thousands of taken ports reads bits
   * rather than the tables. Built on the first long scan, kept up to date, dropped when empty.
   */
  private readonly tupleIndexes = new Map<number, Map<Ipv4Addr, TupleIndex>>();
  private readonly listenerOwners = new Map<TcpListener, PortOwner>();
  /** A connection's entry in its port's bucket. */
  private readonly owners = new Map<TcpSocket, PortOwner>();
  readonly ports: LocalPorts;
  private readonly reuseportKey: number;
  /** local port → remote key → connections (several only when local addresses differ). */
  private readonly connections = new Map<number, Map<number, TcpSocket[]>>();
  /** Which listener a connection in the handshake belongs to. */
  private readonly pending = new Map<TcpSocket, TcpListener>();
  private readonly rng: Rng;

  constructor(readonly stack: Ipv4Stack) {
    defineTcpSysctls(stack.sysctls);
    this.rng = stack.ctx.rng.fork('tcp');
    this.ports = new LocalPorts(stack.sysctls, stack.ctx.rng.fork('tcp-ports'));
    this.reuseportKey = stack.ctx.rng.fork('tcp-reuseport').u32();
    stack.protocols.set(IPPROTO_TCP, (pkt, ip) => this.receive(pkt, ip));
    stack.errorHandlers.set(IPPROTO_TCP, (quoted, type, code) => this.receiveError(quoted, type, code));
  }

  random32(): number {
    return this.rng.u32();
  }

  /**
   * bind() + listen() on `addr` (0 for any) and `port` (0: bind's search), with SO_REUSEADDR as Node and
   * most servers set it. With SO_REUSEPORT on every one of them, several listeners share an address and
   * port, and each new connection goes to one of them by a hash of its 4-tuple.
   */
  listen(
    addr: Ipv4Addr,
    port: number,
    onAccept: (socket: TcpSocket) => void,
    options: ListenOptions = {},
  ): ListenResult {
    const owner: PortOwner = {
      addr,
      reuseAddr: options.reuseAddr ?? true,
      reusePort: options.reusePort ?? false,
      listening: true,
      socket: undefined,
    };
    const bound = port === 0 ? this.bindSearch(owner) : this.bindConflict(owner, port) ? undefined : port;
    if (bound === undefined) return 'EADDRINUSE';
    this.addOwner(bound, owner, false);
    const listeners = this.listeners.get(bound) ?? [];
    const listener: TcpListener = {
      addr,
      port: bound,
      onAccept,
      congestion: options.congestion,
      receiveBuffer: options.receiveBuffer,
      uid: options.uid ?? 0,
      gid: options.gid ?? 0,
      transparent: options.transparent ?? false,
      mark: options.mark ?? 0,
      close: () => {
        const left = (this.listeners.get(bound) ?? []).filter((other) => other !== listener);
        if (left.length === 0) this.listeners.delete(bound);
        else this.listeners.set(bound, left);
        const group = this.reuseGroups.get(listener);
        if (group !== undefined) group.splice(group.indexOf(listener), 1);
        this.reuseGroups.delete(listener);
        this.listenerOwners.delete(listener);
        this.removeOwner(bound, owner);
        for (const [socket, owned] of this.pending) if (owned === listener) socket.abort();
      },
    };
    this.listenerOwners.set(listener, owner);
    // reuseport_add_sock: the group of the listeners already on this address and port with SO_REUSEPORT.
    if (owner.reusePort) {
      const peer = listeners.find((other) => other.addr === addr && this.reuseGroups.has(other));
      const group = peer === undefined ? [] : this.reuseGroups.get(peer)!;
      group.push(listener);
      this.reuseGroups.set(listener, group);
    }
    // A listener on a specific address wins over one on any address (inet_lhash2_lookup's scoring).
    listeners.push(listener);
    listeners.sort((a, b) => (a.addr === 0 ? 1 : 0) - (b.addr === 0 ? 1 : 0));
    this.listeners.set(bound, listeners);
    return listener;
  }

  /** bind() alone (`addr` 0 for any, `port` 0 for bind's search): the socket holds the port until close(). */
  bind(addr: Ipv4Addr, port: number, options: ReuseOptions = {}): BindResult {
    const owner: PortOwner = {
      addr,
      reuseAddr: options.reuseAddr ?? false,
      reusePort: options.reusePort ?? false,
      listening: false,
      socket: undefined,
    };
    const bound = port === 0 ? this.bindSearch(owner) : this.bindConflict(owner, port) ? undefined : port;
    if (bound === undefined) return { ok: false, error: 'EADDRINUSE' };
    this.addOwner(bound, owner, false);
    let open = true;
    const close = () => {
      if (open) this.removeOwner(bound, owner);
      open = false;
    };
    return { ok: true, value: { addr, port: bound, close } };
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
    const endpoints = { localAddr, localPort: 0, remoteAddr: options.dst, remotePort: options.dstPort, mark };
    const boundAddr = options.src ?? 0;
    const owner = (socket: TcpSocket | undefined): PortOwner => ({
      addr: boundAddr === 0 && socket !== undefined ? localAddr : boundAddr,
      reuseAddr: options.reuseAddr ?? false,
      reusePort: options.reusePort ?? false,
      listening: false,
      socket,
    });
    let recycled: TcpSocket | undefined;
    let localPort = options.srcPort ?? 0;
    let byConnect = false;
    if (localPort !== 0 || boundAddr !== 0) {
      // bind() first: inet_csk_get_port (port 0: inet_csk_find_open_port), then __inet_hash_connect's
      // check_established alone, where a TIME_WAIT with timestamps always gives way (twp == NULL).
      const probe = owner(undefined);
      if (localPort === 0) {
        const found = this.bindSearch(probe);
        if (found === undefined) return { ok: false, error: 'EADDRINUSE' };
        localPort = found;
      } else if (this.bindConflict(probe, localPort)) return { ok: false, error: 'EADDRINUSE' };
      const existing = this.find(localAddr, localPort, options.dst, options.dstPort);
      if (existing !== undefined) {
        if (existing.state !== 'TIME_WAIT' || !existing.timeWait.timestamps)
          return { ok: false, error: 'EADDRNOTAVAIL' };
        recycled = existing;
      }
    } else {
      const kinds = this.bucketKinds;
      const buckets = this.buckets;
      const destination = remoteKey(options.dst, options.dstPort);
      let index = this.tupleIndexes.get(destination)?.get(localAddr);
      let probes = 0;
      // Whether any TIME_WAIT could give way (tcp_twsk_unique's sysctl and loopback tests): if not, a
      // port with a connection to this destination is taken, whatever its state.
      const reuse = this.stack.sysctls.int('net.ipv4.tcp_tw_reuse');
      const mayReuse = reuse === 1 || (reuse === 2 && (isLoopback(options.dst) || isLoopback(localAddr)));
      const found = this.ports.connectSearch(localAddr, options.dst, options.dstPort, (port) => {
        const bucket = kinds === undefined ? buckets.get(port) : undefined;
        const kind = kinds !== undefined ? kinds[port] : bucket === undefined ? 0 : bucket.byConnect ? 1 : 2;
        if (kind === 0) return true;
        // A port bind() made (a listener, a bound socket, an accepted connection) is not connect()'s to share.
        if (kind === 2) return false;
        if (index === undefined && ++probes > INDEX_AFTER_PROBES)
          index = this.indexTuples(destination, localAddr);
        if (index !== undefined) {
          if ((index.bits[port >>> 5]! & (1 << (port & 31))) === 0) return true;
          if (!mayReuse) return false;
        }
        const existing = this.find(localAddr, port, options.dst, options.dstPort);
        if (existing === undefined) return true;
        if (!this.timeWaitReusable(existing)) return false;
        recycled = existing;
        return true;
      });
      if (found === undefined) return { ok: false, error: 'EADDRNOTAVAIL' };
      localPort = found;
      byConnect = true;
    }
    // tcp_twsk_unique: the new connection starts beyond the old one's sequence space, with its ts_recent.
    const reuse =
      recycled === undefined
        ? undefined
        : { iss: (recycled.timeWait.sndNxt + 65535 + 2) >>> 0 || 1, tsRecent: recycled.timeWait.tsRecent };
    recycled?.recycleTimeWait();
    const socket = new TcpSocket(
      this,
      {
        ...endpoints,
        localPort,
        ...(options.congestion !== undefined ? { congestion: options.congestion } : {}),
        ...(options.receiveBuffer !== undefined ? { receiveBuffer: options.receiveBuffer } : {}),
        ...(options.uid !== undefined ? { uid: options.uid } : {}),
        ...(options.gid !== undefined ? { gid: options.gid } : {}),
      },
      'SYN_SENT',
    );
    this.owners.set(socket, owner(socket));
    this.hash(socket, byConnect);
    this.stats.activeOpens++;
    socket.connect(reuse);
    return { ok: true, socket };
  }

  /**
   * tcp_twsk_unique for connect()'s search: net.ipv4.tcp_tw_reuse (2: only for loopback traffic) lets
   * a new connection take a TIME_WAIT's 4-tuple once the TIME_WAIT is tcp_tw_reuse_delay ms old, and
   * only when the old connection used timestamps (PAWS then keeps the two apart).
   */
  private timeWaitReusable(socket: TcpSocket): boolean {
    if (socket.state !== 'TIME_WAIT') return false;
    let reuse = this.stack.sysctls.int('net.ipv4.tcp_tw_reuse');
    if (reuse === 2 && !isLoopback(socket.remoteAddr) && !isLoopback(socket.localAddr)) reuse = 0;
    const { sinceMs, timestamps } = socket.timeWait;
    const nowMs = Math.floor(this.stack.now / 1_000_000);
    return (
      timestamps && reuse !== 0 && nowMs > sinceMs + this.stack.sysctls.int('net.ipv4.tcp_tw_reuse_delay')
    );
  }

  /**
   * mirrors inet_connection_sock.c:inet_csk_bind_conflict for bind() to a given port (relax on,
   * reuseport_ok on, after the fastreuse shortcuts): an owner at an overlapping address conflicts
   * unless both have SO_REUSEADDR and the owner does not listen, or both have SO_REUSEPORT.
   */
  private bindConflict(sk: PortOwner, port: number): boolean {
    const bucket = this.buckets.get(port);
    if (bucket === undefined) return false;
    for (const other of bucket.owners) {
      if (!(sk.addr === 0 || other.addr === 0 || sk.addr === other.addr)) continue;
      if (sk.reuseAddr && other.reuseAddr && !other.listening) continue;
      if (sk.reusePort && other.reusePort) continue;
      return true;
    }
    return false;
  }

  /** inet_csk_find_open_port: with relax off, any owner at an overlapping address rules a port out. */
  private bindSearch(sk: PortOwner): number | undefined {
    return this.ports.bindSearch(sk.reuseAddr, (port) => {
      const bucket = this.buckets.get(port);
      if (bucket === undefined) return false;
      for (const other of bucket.owners)
        if (sk.addr === 0 || other.addr === 0 || sk.addr === other.addr) return true;
      return false;
    });
  }

  private addOwner(port: number, owner: PortOwner, byConnect: boolean): void {
    let bucket = this.buckets.get(port);
    if (bucket === undefined) {
      bucket = { byConnect, owners: new Set() };
      this.buckets.set(port, bucket);
      if (this.bucketKinds !== undefined) this.bucketKinds[port] = byConnect ? 1 : 2;
      else if (this.buckets.size > KINDS_AFTER_BUCKETS) {
        this.bucketKinds = new Uint8Array(65536);
        for (const [held, each] of this.buckets) this.bucketKinds[held] = each.byConnect ? 1 : 2;
      }
    } else if (bucket.byConnect && !byConnect) {
      // inet_csk_update_fastreuse: a bind() to the port sets fastreuseport (and fastreuse without
      // SO_REUSEADDR) to 0, so connect()'s search no longer shares it.
      bucket.byConnect = false;
      if (this.bucketKinds !== undefined) this.bucketKinds[port] = 2;
    }
    bucket.owners.add(owner);
  }

  private removeOwner(port: number, owner: PortOwner): void {
    const bucket = this.buckets.get(port);
    if (bucket === undefined) return;
    bucket.owners.delete(owner);
    if (bucket.owners.size > 0) return;
    this.buckets.delete(port);
    if (this.bucketKinds !== undefined) this.bucketKinds[port] = 0;
  }

  /** Builds the index of the local ports connected from `localAddr` to `destination` (a remote key). */
  private indexTuples(destination: number, localAddr: Ipv4Addr): TupleIndex {
    const index: TupleIndex = { bits: new Uint32Array(2048), count: 0 };
    for (const [port, byRemote] of this.connections)
      for (const socket of byRemote.get(destination) ?? [])
        if (socket.localAddr === localAddr) {
          index.bits[port >>> 5]! |= 1 << (port & 31);
          index.count++;
        }
    let byAddr = this.tupleIndexes.get(destination);
    if (byAddr === undefined) {
      byAddr = new Map();
      this.tupleIndexes.set(destination, byAddr);
    }
    byAddr.set(localAddr, index);
    return index;
  }

  /** Keeps a destination's index (if it has one) in step with the connection table. */
  private updateIndex(socket: TcpSocket, added: boolean): void {
    const destination = remoteKey(socket.remoteAddr, socket.remotePort);
    const byAddr = this.tupleIndexes.get(destination);
    const index = byAddr?.get(socket.localAddr);
    if (byAddr === undefined || index === undefined) return;
    const word = socket.localPort >>> 5;
    const bit = 1 << (socket.localPort & 31);
    if (added) {
      index.bits[word]! |= bit;
      index.count++;
      return;
    }
    index.bits[word]! &= ~bit;
    index.count--;
    if (index.count > 0) return;
    byAddr.delete(socket.localAddr);
    if (byAddr.size === 0) this.tupleIndexes.delete(destination);
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

  /** Into the connection table and its port's bind bucket (made by connect()'s search when `byConnect`). */
  private hash(socket: TcpSocket, byConnect: boolean): void {
    let byRemote = this.connections.get(socket.localPort);
    if (byRemote === undefined) {
      byRemote = new Map();
      this.connections.set(socket.localPort, byRemote);
    }
    const key = remoteKey(socket.remoteAddr, socket.remotePort);
    const list = byRemote.get(key);
    if (list === undefined) byRemote.set(key, [socket]);
    else list.push(socket);
    this.updateIndex(socket, true);
    const owner = this.owners.get(socket);
    if (owner !== undefined) this.addOwner(socket.localPort, owner, byConnect);
  }

  unhash(socket: TcpSocket): void {
    this.pending.delete(socket);
    const owner = this.owners.get(socket);
    if (owner !== undefined) {
      this.owners.delete(socket);
      this.removeOwner(socket.localPort, owner);
    }
    const byRemote = this.connections.get(socket.localPort);
    const key = remoteKey(socket.remoteAddr, socket.remotePort);
    const list = byRemote?.get(key);
    if (byRemote === undefined || list === undefined || !list.includes(socket)) return;
    this.updateIndex(socket, false);
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
    // A SYN to a connection in TIME_WAIT opens a new one when a listener takes it (tcp_v4_rcv's
    // TCP_TW_SYN: inet_twsk_deschedule_put, silently); without a listener the TIME_WAIT answers it.
    const timeWaitSyn = socket !== undefined && socket.state === 'TIME_WAIT' && tcp.syn && !tcp.ack;
    if (socket !== undefined && !timeWaitSyn) {
      socket.receive(tcp, pkt);
      return;
    }
    // A socket TPROXY assigned (skb_steal_sock) stands in for the lookup by the packet's destination.
    const listener =
      pkt.tproxyPort !== 0
        ? this.listenerFor(pkt.tproxyAddr, pkt.tproxyPort, ip.srcAddr, tcp.srcPort)
        : this.listenerFor(ip.dstAddr, tcp.dstPort, ip.srcAddr, tcp.srcPort);
    if (socket !== undefined && listener === undefined) {
      socket.receive(tcp, pkt);
      return;
    }
    socket?.recycleTimeWait();
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
          mark: listener.mark,
          uid: listener.uid,
          gid: listener.gid,
          transparent: listener.transparent,
          ...(listener.congestion !== undefined ? { congestion: listener.congestion } : {}),
          ...(listener.receiveBuffer !== undefined ? { receiveBuffer: listener.receiveBuffer } : {}),
        },
        'SYN_RECV',
      );
      // __inet_inherit_port: the child holds the listener's port with the listener's flags.
      const parent = this.listenerOwners.get(listener);
      this.owners.set(child, {
        addr: ip.dstAddr,
        reuseAddr: parent?.reuseAddr ?? false,
        reusePort: parent?.reusePort ?? false,
        listening: false,
        socket: child,
      });
      this.hash(child, false);
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

  /**
   * inet_lookup / __inet_lookup_established / inet_lookup_listener as netfilter's socket lookups call them
   * (nf_socket_get_sock_v4, nf_tproxy_get_sock_v4): what xt_socket and TPROXY read of the socket found.
   */
  netfilterLookup(
    localAddr: Ipv4Addr,
    localPort: number,
    remoteAddr: Ipv4Addr,
    remotePort: number,
    kind: 'any' | 'established' | 'listener',
  ): TcpSocketView | undefined {
    if (kind !== 'listener') {
      const socket = this.find(localAddr, localPort, remoteAddr, remotePort);
      if (socket !== undefined)
        return {
          boundAddr: socket.localAddr,
          boundPort: socket.localPort,
          transparent: socket.transparent,
          mark: socket.mark,
          listening: false,
          timeWait: socket.state === 'TIME_WAIT',
        };
      if (kind === 'established') return undefined;
    }
    const listener = this.listenerFor(localAddr, localPort, remoteAddr, remotePort);
    if (listener === undefined) return undefined;
    return {
      boundAddr: listener.addr,
      boundPort: listener.port,
      transparent: listener.transparent,
      mark: listener.mark,
      listening: true,
      timeWait: false,
    };
  }

  /**
   * __inet_lookup_listener: the best-scoring listener (its own address before any), and within an
   * SO_REUSEPORT group the one reuseport_select_sock picks: reciprocal_scale of the flow hash.
   */
  private listenerFor(
    addr: Ipv4Addr,
    port: number,
    remoteAddr: Ipv4Addr,
    remotePort: number,
  ): TcpListener | undefined {
    const bound = this.listeners.get(port);
    if (bound === undefined) return undefined;
    for (const listener of bound) {
      if (listener.addr !== addr && listener.addr !== 0) continue;
      const group = this.reuseGroups.get(listener);
      if (group === undefined || group.length < 2) return listener;
      const hash = flowHash(this.reuseportKey, addr, port, remoteAddr, remotePort);
      return group[Math.floor((hash * group.length) / 0x1_0000_0000)];
    }
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
