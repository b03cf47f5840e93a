// UDP in one namespace (net/ipv4/udp.c): receive with length and checksum checks, demux to bound sockets, port
// unreachable for the rest, sending, and bind(addr, 0)'s port choice (udp_lib_get_port); no SO_REUSEADDR or
// SO_REUSEPORT, no GSO.

import type { Packet } from '../core/packet.ts';
import type { Rng } from '../core/rng.ts';
import type { Ipv4Stack, PmtuDisc, SendResult } from '../net/ipv4.ts';
import { RouteScratch } from '../net/router.ts';
import type { Ipv4Addr } from '../wire/address.ts';
import { IPPROTO_ICMP, type Ipv4View } from '../wire/ipv4.ts';
import { emitUdp, IPPROTO_UDP, UDP_HEADER_LEN, UdpView } from '../wire/udp.ts';
import { LocalPorts } from './ports.ts';

/**
 * UDP_HTABLE_SIZE: the UDP hash table's slots, which udp_lib_get_port's search strides by. The kernel
 * sizes it from memory at boot ("UDP hash table entries: 16384" on the machines the harness runs on).
 */
export const UDP_HTABLE_SIZE = 16384;

/** A datagram as a socket receives it. */
export interface UdpDatagram {
  readonly srcAddr: Ipv4Addr;
  readonly srcPort: number;
  readonly dstAddr: Ipv4Addr;
  readonly dstPort: number;
  readonly payload: Uint8Array;
  /** The whole packet, for kernel users that keep working on it (the VXLAN device). */
  readonly pkt: Packet;
  /** Offset in `pkt.buf` of the UDP payload. */
  readonly payloadOffset: number;
}

/** The datagram a socket is handed: its payload view is made on first read (the VXLAN socket never reads it). */
class ReceivedDatagram implements UdpDatagram {
  private view: Uint8Array | undefined = undefined;

  constructor(
    readonly srcAddr: Ipv4Addr,
    readonly srcPort: number,
    readonly dstAddr: Ipv4Addr,
    readonly dstPort: number,
    readonly pkt: Packet,
    readonly payloadOffset: number,
    private readonly payloadEnd: number,
  ) {}

  get payload(): Uint8Array {
    this.view ??= this.pkt.buf.subarray(this.payloadOffset, this.payloadEnd);
    return this.view;
  }
}

export type UdpHandler = (datagram: UdpDatagram) => void;
export type UdpErrorHandler = (
  type: number,
  code: number,
  info: number,
  dstAddr: Ipv4Addr,
  dstPort: number,
) => void;

export interface UdpSocket {
  readonly addr: Ipv4Addr;
  readonly port: number;
  /** Set for a connected socket: only datagrams from this address and port reach it (udp4_lib_lookup's scoring). */
  readonly remote: { readonly addr: Ipv4Addr; readonly port: number } | undefined;
  readonly onDatagram: UdpHandler;
  readonly onError: UdpErrorHandler | undefined;
  /** IP_TRANSPARENT (TPROXY hands it datagrams for any destination; `-m socket --transparent`). */
  readonly transparent: boolean;
  /** SO_MARK, which `-m socket --restore-skmark` reads. */
  readonly mark: number;
  /**
   * A tunnel's receive hook (udp_sk(sk)->encap_rcv, set by setup_udp_tunnel_sock): the packet and the offset of the
   * UDP payload, instead of a datagram record; the VXLAN device's socket has one.
   */
  readonly encapRcv: UdpEncapReceive | undefined;
}

export type UdpEncapReceive = (pkt: Packet, payloadOffset: number) => void;

export interface UdpSendOptions {
  readonly dst: Ipv4Addr;
  readonly dstPort: number;
  readonly srcPort: number;
  readonly src?: Ipv4Addr;
  readonly payload: Uint8Array;
  readonly ttl?: number;
  readonly tos?: number;
  readonly pmtudisc?: PmtuDisc;
  readonly mark?: number;
  readonly checksum?: boolean;
  /** The sending process's uid and gid (the socket file's credentials, `-m owner`); absent: 0. */
  readonly uid?: number;
  readonly gid?: number;
}

export class UdpTable {
  private readonly sockets = new Map<number, UdpSocket[]>();
  readonly stats = { inDatagrams: 0, noPorts: 0, inErrors: 0, inCsumErrors: 0, outDatagrams: 0 };

  private readonly rng: Rng;
  private readonly ports: LocalPorts;
  private readonly route = new RouteScratch();
  private readonly header = { srcPort: 0, dstPort: 0, payloadLen: 0 };
  private readonly pseudo = { srcAddr: 0, dstAddr: 0 };
  private readonly output: {
    readonly protocol: number;
    pmtudisc: PmtuDisc;
    ttl: number | undefined;
    tos: number | undefined;
  } = { protocol: IPPROTO_UDP, pmtudisc: 'want', ttl: undefined, tos: undefined };

  constructor(private readonly stack: Ipv4Stack) {
    this.rng = stack.ctx.rng.fork('udp-ports');
    this.ports = new LocalPorts(stack.sysctls, this.rng.fork('search'));
    stack.protocols.set(IPPROTO_UDP, (pkt, ip) => this.receive(pkt, ip));
    stack.errorHandlers.set(IPPROTO_UDP, (quoted, type, code, info) =>
      this.receiveError(quoted, type, code, info),
    );
  }

  /**
   * bind(), and connect() when `remote` is given: `addr` 0 is INADDR_ANY. A connected socket
   * hears only its peer; a datagram from anyone else finds no socket. Returns false for EADDRINUSE.
   */
  bind(
    addr: Ipv4Addr,
    port: number,
    onDatagram: UdpHandler,
    onError?: UdpErrorHandler,
    remote?: { readonly addr: Ipv4Addr; readonly port: number },
    options: {
      readonly transparent?: boolean;
      readonly mark?: number;
      readonly encapRcv?: UdpEncapReceive;
    } = {},
  ): boolean {
    const bound = this.sockets.get(port) ?? [];
    if (bound.some((socket) => socket.addr === addr || socket.addr === 0 || addr === 0)) return false;
    bound.push({
      addr,
      port,
      onDatagram,
      onError,
      remote,
      transparent: options.transparent ?? false,
      mark: options.mark ?? 0,
      encapRcv: options.encapRcv,
    });
    this.sockets.set(port, bound);
    return true;
  }

  /**
   * bind(addr, 0), or the autobind of connect() and of a first sendto(): a port from
   * udp_lib_get_port's search, then bind(). Returns the port, or EADDRINUSE when none is free (what
   * bind() returns; connect() and sendto() report EAGAIN then, from inet_autobind).
   */
  autobind(
    addr: Ipv4Addr,
    onDatagram: UdpHandler,
    onError?: UdpErrorHandler,
    remote?: { readonly addr: Ipv4Addr; readonly port: number },
  ): number | 'EADDRINUSE' {
    const port = this.searchPort(addr);
    if (port === undefined || !this.bind(addr, port, onDatagram, onError, remote)) return 'EADDRINUSE';
    return port;
  }

  /**
   * mirrors udp.c:udp_lib_get_port with snum 0: a random first port in ip_local_port_range
   * (reciprocal_scale of one random word), then, slot by slot from there, the ports of that hash slot
   * in strides of an odd multiple of UDP_HTABLE_SIZE (16-bit arithmetic, so every port of the slot
   * comes once), skipping ports in use at an overlapping address and reserved ones.
   */
  private searchPort(addr: Ipv4Addr): number | undefined {
    const [low, high] = this.ports.range();
    const remaining = high - low + 1;
    const rand = this.rng.u32();
    let first = (low + Math.floor((rand * remaining) / 0x1_0000_0000)) & 0xffff;
    const stride = Math.imul(rand | 1, UDP_HTABLE_SIZE) & 0xffff;
    const last = (first + UDP_HTABLE_SIZE) & 0xffff;
    const reserved = this.ports.reservedPorts();
    do {
      let port = first;
      do {
        if (low <= port && port <= high && reserved?.[port] !== 1 && !this.inUse(addr, port)) return port;
        port = (port + stride) & 0xffff;
      } while (port !== first);
      first = (first + 1) & 0xffff;
    } while (first !== last);
    return undefined;
  }

  private inUse(addr: Ipv4Addr, port: number): boolean {
    const bound = this.sockets.get(port);
    return bound?.some((socket) => socket.addr === addr || socket.addr === 0 || addr === 0) ?? false;
  }

  unbind(addr: Ipv4Addr, port: number): void {
    const bound = this.sockets.get(port)?.filter((socket) => socket.addr !== addr) ?? [];
    if (bound.length === 0) this.sockets.delete(port);
    else this.sockets.set(port, bound);
  }

  /**
   * udp4_lib_lookup as netfilter's socket lookups call it (nf_socket_get_sock_v4, nf_tproxy_get_sock_v4): for TPROXY's
   * 'established' lookup only a connected socket bound to an address counts, for its 'listener' one only an
   * unconnected socket.
   */
  netfilterLookup(
    localAddr: Ipv4Addr,
    localPort: number,
    remoteAddr: Ipv4Addr,
    remotePort: number,
    kind: 'any' | 'established' | 'listener',
  ):
    | {
        boundAddr: Ipv4Addr;
        boundPort: number;
        transparent: boolean;
        mark: number;
        listening: boolean;
        timeWait: boolean;
      }
    | undefined {
    const socket = this.lookup(localAddr, localPort, remoteAddr, remotePort);
    if (socket === undefined) return undefined;
    const connected = socket.remote !== undefined;
    if (kind === 'established' && (!connected || socket.addr === 0)) return undefined;
    if (kind === 'listener' && connected) return undefined;
    return {
      boundAddr: socket.addr,
      boundPort: socket.port,
      transparent: socket.transparent,
      mark: socket.mark,
      listening: !connected,
      timeWait: false,
    };
  }

  /** The bound sockets, for `ss`-style listings. */
  *bound(): IterableIterator<UdpSocket> {
    for (const list of this.sockets.values()) yield* list;
  }

  isBound(port: number): boolean {
    return this.sockets.has(port);
  }

  /** udp_rcv → __udp4_lib_rcv: length, checksum, socket lookup, else port unreachable. */
  private receive(pkt: Packet, ip: Ipv4View): void {
    const end = ip.offset + ip.totalLen;
    // The view is checked against the datagram's end: the buffer itself when it ends there (no view to allocate).
    const bytes = end === ip.bytes.length ? ip.bytes : ip.bytes.subarray(0, end);
    const udp = UdpView.checked(bytes, ip.offset + ip.headerLen);
    if (!(udp instanceof UdpView) || udp.offset + udp.length !== end) {
      this.stats.inErrors++;
      this.stack.drop(pkt, 'PKT_TOO_SMALL');
      return;
    }
    if (!udp.verifyChecksum({ srcAddr: ip.srcAddr, dstAddr: ip.dstAddr })) {
      this.stats.inCsumErrors++;
      this.stack.drop(pkt, 'UDP_CSUM');
      return;
    }
    // A socket TPROXY assigned (skb_steal_sock) stands in for the lookup by the packet's destination.
    const socket =
      pkt.tproxyPort !== 0
        ? this.lookup(pkt.tproxyAddr, pkt.tproxyPort, ip.srcAddr, udp.srcPort)
        : this.lookup(ip.dstAddr, udp.dstPort, ip.srcAddr, udp.srcPort);
    if (socket === undefined) {
      this.stats.noPorts++;
      this.stack.icmp.sendError(pkt, 3, 3, 0);
      this.stack.drop(pkt, 'NO_SOCKET');
      return;
    }
    this.stats.inDatagrams++;
    // udp_queue_rcv_one_skb: a tunnel socket's encap_rcv takes the packet itself.
    if (socket.encapRcv !== undefined) {
      socket.encapRcv(pkt, udp.offset + UDP_HEADER_LEN);
      return;
    }
    socket.onDatagram(
      new ReceivedDatagram(
        ip.srcAddr,
        udp.srcPort,
        ip.dstAddr,
        udp.dstPort,
        pkt,
        udp.offset + UDP_HEADER_LEN,
        udp.offset + udp.length,
      ),
    );
  }

  /** __udp4_lib_err: an ICMP error about a datagram we sent reaches the socket that sent it. */
  private receiveError(quoted: Ipv4View, type: number, code: number, info: number): void {
    const at = quoted.offset + quoted.headerLen;
    if (quoted.bytes.length < at + 4 || quoted.protocol === IPPROTO_ICMP) return;
    const srcPort = (quoted.bytes[at]! << 8) | quoted.bytes[at + 1]!;
    const dstPort = (quoted.bytes[at + 2]! << 8) | quoted.bytes[at + 3]!;
    this.lookup(quoted.srcAddr, srcPort, quoted.dstAddr, dstPort)?.onError?.(
      type,
      code,
      info,
      quoted.dstAddr,
      dstPort,
    );
  }

  private lookup(
    addr: Ipv4Addr,
    port: number,
    remoteAddr: Ipv4Addr,
    remotePort: number,
  ): UdpSocket | undefined {
    const bound = this.sockets.get(port);
    if (bound === undefined) return undefined;
    // A socket bound to the address wins over one bound to any (plain loops: no closure per datagram).
    let wildcard: UdpSocket | undefined;
    for (const socket of bound) {
      const remote = socket.remote;
      if (remote !== undefined && (remote.addr !== remoteAddr || remote.port !== remotePort)) continue;
      if (socket.addr === addr) return socket;
      if (socket.addr === 0 && wildcard === undefined) wildcard = socket;
    }
    return wildcard;
  }

  /**
   * udp_sendmsg: route, build header and checksum, then the IP layer. The route, header and output records are this
   * table's own, filled per datagram (the IP layer reads them during the call): a send allocates only its packet.
   */
  send(options: UdpSendOptions): SendResult {
    const route = this.stack.routeOutputInto(this.route, options.dst, options.src ?? 0, 0, options.mark ?? 0);
    if (!route.ok) return { ok: false, error: route.error };
    const pkt = this.stack.allocatePacket(UDP_HEADER_LEN + options.payload.length);
    if (options.mark !== undefined) pkt.mark = options.mark;
    pkt.skUid = options.uid ?? 0;
    pkt.skGid = options.gid ?? 0;
    pkt.buf.set(options.payload, pkt.start + UDP_HEADER_LEN);
    const header = this.header;
    header.srcPort = options.srcPort;
    header.dstPort = options.dstPort;
    header.payloadLen = options.payload.length;
    const pseudo = this.pseudo;
    pseudo.srcAddr = route.src;
    pseudo.dstAddr = route.dst;
    emitUdp(header, UdpView.unchecked(pkt.buf, pkt.start), options.checksum === false ? undefined : pseudo);
    this.stats.outDatagrams++;
    const output = this.output;
    output.pmtudisc = options.pmtudisc ?? 'want';
    output.ttl = options.ttl;
    output.tos = options.tos;
    return this.stack.output(pkt, route, output);
  }
}
