// One namespace's IPv4 layer: receive (ip_rcv), local delivery, forwarding (ip_forward) and output (ip_output)
// over its routes, neighbours and interfaces; no IP options processing beyond validation, no multicast routing.
//
// The function names in comments are those of net/ipv4/ip_input.c, ip_forward.c and
// ip_output.c, which this file mirrors step by step. ICMP, ARP and fragmentation live in
// their own files and are called from here.

import type { DropReason } from '../core/drop-reason.ts';
import { Packet, PacketType } from '../core/packet.ts';
import type { Rng } from '../core/rng.ts';
import { TRACING } from '../core/trace.ts';
import type { LinkContext, NetDevice } from '../link/device.ts';
import type { Ipv4Addr, MacAddr } from '../wire/address.ts';
import { writeMac } from '../wire/address.ts';
import { writeU16 } from '../wire/bytes.ts';
import { updateChecksum16 } from '../wire/checksum.ts';
import type { WireError } from '../wire/error.ts';
import { ETHERNET_HEADER_LEN, ETHERTYPE_IPV4 } from '../wire/ethernet.ts';
import { emitIpv4, IPPROTO_ICMP, IPV4_MIN_HEADER_LEN, type Ipv4Repr, Ipv4View } from '../wire/ipv4.ts';
import { Arp } from './arp.ts';
import type { Fib, InterfaceResolver } from './fib.ts';
import { fragmentAndSend, Reassembler } from './fragment.ts';
import { Icmp } from './icmp.ts';
import { InterfaceAddresses } from './ifaddr.ts';
import { NeighbourTable } from './neighbour.ts';
import { type RouteErrno, type RouteOk, type RouteResult, Router, RouteScratch } from './router.ts';
import type { Sysctls } from './sysctl.ts';

/** What the IPv4 layer needs from the simulation: the link context plus the seeded rng. */
export interface NetContext extends LinkContext {
  readonly rng: Rng;
}

/** The namespace's devices, as the IPv4 layer sees them. */
export interface Interfaces extends InterfaceResolver {
  readonly name: string;
  byIndex(ifindex: number): NetDevice | undefined;
  all(): Iterable<NetDevice>;
}

/** Local delivery of one transport protocol (udp_rcv, tcp_v4_rcv); the view is the packet's IPv4 header. */
export type ProtocolHandler = (pkt: Packet, ip: Ipv4View) => void;

/** An ICMP error about a datagram this namespace sent, for the protocol that sent it (udp_err, tcp_v4_err). */
export type ProtocolErrorHandler = (quoted: Ipv4View, type: number, code: number, info: number) => void;

/** The Netfilter hooks in the IPv4 path; a verdict of false means the packet was taken (dropped or stolen). */
export type Hook = 'PREROUTING' | 'INPUT' | 'FORWARD' | 'OUTPUT' | 'POSTROUTING';
export interface NetfilterHooks {
  /** Runs the hook's entries; undefined lets the packet go on, a reason means it was dropped. */
  run(
    hook: Hook,
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
  ): DropReason | undefined;
  /** The packet is being dropped: conntrack frees an entry it never confirmed (freed with the skb in Linux). */
  release(pkt: Packet): void;
  /** The arp family's NF_ARP_IN / NF_ARP_OUT chains, pkt.network at the ARP header; false drops the packet. */
  arp?(
    hook: 'input' | 'output',
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
  ): boolean;
}

/** How a locally generated datagram treats DF and path MTU (IP_MTU_DISCOVER). */
export type PmtuDisc = 'do' | 'dont' | 'want';

export interface OutputOptions {
  readonly protocol: number;
  readonly ttl?: number | undefined;
  readonly tos?: number | undefined;
  readonly pmtudisc: PmtuDisc;
  /** The IP id a connected socket chose (inet_id, ip_select_ident_segs); absent: __ip_select_ident's. */
  readonly ident?: number | undefined;
}

export type SendError = 'ENETUNREACH' | 'EHOSTUNREACH' | 'EACCES' | 'EINVAL' | 'EMSGSIZE' | 'EPERM';
export type SendResult = { ok: true } | { ok: false; error: SendError; mtu?: number };

/** The results without a figure, shared: the send path allocates none. */
const SENT: SendResult = Object.freeze({ ok: true });
const SEND_ERRORS: Readonly<Record<SendError, SendResult>> = {
  ENETUNREACH: Object.freeze({ ok: false, error: 'ENETUNREACH' }),
  EHOSTUNREACH: Object.freeze({ ok: false, error: 'EHOSTUNREACH' }),
  EACCES: Object.freeze({ ok: false, error: 'EACCES' }),
  EINVAL: Object.freeze({ ok: false, error: 'EINVAL' }),
  EMSGSIZE: Object.freeze({ ok: false, error: 'EMSGSIZE' }),
  EPERM: Object.freeze({ ok: false, error: 'EPERM' }),
};

/** The IP MIB counters `nstat`/`netstat -s` show, the ones this model moves. */
export class Ipv4Mib {
  inReceives = 0;
  inHdrErrors = 0;
  inCsumErrors = 0;
  inTruncatedPkts = 0;
  inAddrErrors = 0;
  inNoRoutes = 0;
  inUnknownProtos = 0;
  inDelivers = 0;
  forwDatagrams = 0;
  outRequests = 0;
  outNoRoutes = 0;
  reasmReqds = 0;
  reasmOKs = 0;
  reasmFails = 0;
  reasmTimeout = 0;
  fragOKs = 0;
  fragFails = 0;
  fragCreates = 0;
}

/** TCP's output counters in the TCP MIB (TCP_MIB_OUTSEGS, TCP_MIB_RETRANSSEGS): the connection table counts the input side. */
export class TcpOutputMib {
  outSegs = 0;
  retransSegs = 0;
  /** TcpExtTCPSpuriousRtxHostQueues: retransmissions skipped while the last copy waited in a host queue. */
  spuriousRtxHostQueues = 0;
}

/** A route exception learned from frag-needed (ip_rt_update_pmtu), expiring after ip_rt_mtu_expires (600 s). */
interface PmtuException {
  mtu: number;
  expiresNs: number;
}
const MTU_EXPIRES_NS = 600e9;
/** The smallest PMTU accepted from an ICMP (ip_rt_min_pmtu = 512 + 20 + 20). */
const MIN_PMTU = 552;

export class Ipv4Stack {
  readonly addresses = new InterfaceAddresses();
  readonly neighbours: NeighbourTable;
  readonly mib = new Ipv4Mib();
  readonly tcpOutMib = new TcpOutputMib();
  /** Packets dropped in this namespace, by reason. */
  readonly drops = new Map<DropReason, number>();
  readonly router: Router;
  readonly icmp: Icmp;
  readonly arp: Arp;
  readonly protocols = new Map<number, ProtocolHandler>();
  readonly errorHandlers = new Map<number, ProtocolErrorHandler>();
  netfilter: NetfilterHooks | null = null;
  private readonly reassembler: Reassembler;
  private readonly pmtu = new Map<Ipv4Addr, PmtuException>();
  private readonly identByDst = new Map<Ipv4Addr, number>();
  /** The input route of the packet being received (ip_route_input fills the skb's dst; one packet at a time). */
  private readonly inputRoute = new RouteScratch();
  /** The header `output` writes, reused (emitIpv4 reads it during the call). */
  private readonly header: MutableIpv4Repr = {
    srcAddr: 0,
    dstAddr: 0,
    protocol: 0,
    ttl: 0,
    ident: 0,
    dontFragment: false,
    moreFragments: false,
    fragmentOffset: 0,
    dscp: 0,
    ecn: 0,
    payloadLen: 0,
    options: NO_OPTIONS,
  };

  constructor(
    readonly ctx: NetContext,
    readonly interfaces: Interfaces,
    readonly sysctls: Sysctls,
    fib: Fib,
  ) {
    this.router = new Router(fib, interfaces);
    this.arp = new Arp(this);
    this.neighbours = new NeighbourTable(
      ctx.scheduler,
      ctx.rng.fork('neigh'),
      sysctls,
      this.arp,
      (ifindex) => interfaces.byIndex(ifindex)?.name,
    );
    this.icmp = new Icmp(this);
    this.reassembler = new Reassembler(this);
  }

  /** A packet with `length` bytes to fill and headroom for every header below. */
  allocatePacket(length: number): Packet {
    return Packet.allocate(length);
  }

  /** Datagrams waiting for their fragments (`ss -s`'s FRAG). */
  get fragmentQueues(): number {
    return this.reassembler.pending;
  }

  get now(): number {
    return this.ctx.scheduler.now;
  }

  /**
   * The one place the namespace's stack drops a packet: counted per reason (like the kernel's
   * drop monitor) and a trace event. Device counters (`ip -s link`) move only where Linux moves
   * them (core drops such as an unknown EtherType); IP errors count in the IP MIB instead.
   */
  drop(pkt: Packet, reason: DropReason, dev?: NetDevice): void {
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + 1);
    if (pkt.ctIndex >= 0) this.netfilter?.release(pkt);
    const device = dev ?? this.interfaces.byIndex(pkt.iif);
    const bus = this.ctx.bus;
    if (TRACING && bus.wants.drop)
      bus.emit('drop', {
        time: this.now,
        netns: this.interfaces.name,
        dev: device?.name ?? '',
        reason,
        frame: pkt.frame(),
        networkOffset: networkOffsetOf(pkt),
        mark: pkt.mark,
      });
  }

  /** Emits a path step for the tracer (pwru style). */
  step(pkt: Packet, step: string, dev: NetDevice | undefined, detail: string): void {
    const bus = this.ctx.bus;
    if (TRACING && bus.wants.step)
      bus.emit('step', {
        time: this.now,
        netns: this.interfaces.name,
        dev: dev?.name ?? '',
        step,
        detail,
        frame: pkt.frame(),
        networkOffset: networkOffsetOf(pkt),
        mark: pkt.mark,
      });
  }

  /** A view of the IPv4 header at `pkt.network`, checked against the frame's end. */
  viewOf(pkt: Packet): Ipv4View | WireError {
    const bytes = pkt.end === pkt.buf.length ? pkt.buf : pkt.buf.subarray(0, pkt.end);
    return Ipv4View.checked(bytes, pkt.network);
  }

  // ---- receive -----------------------------------------------------------------------

  /** ip_rcv / ip_rcv_core: validate the header, trim link padding, PREROUTING, then route. */
  receive(dev: NetDevice, pkt: Packet): void {
    if (pkt.pktType === PacketType.OtherHost) {
      this.drop(pkt, 'OTHERHOST', dev);
      return;
    }
    this.mib.inReceives++;
    pkt.network = pkt.start + ETHERNET_HEADER_LEN;
    const view = this.viewOf(pkt);
    if (!(view instanceof Ipv4View)) {
      const truncated = view.defect === 'ipv4.total-length-exceeds-buffer';
      if (truncated) this.mib.inTruncatedPkts++;
      else this.mib.inHdrErrors++;
      this.drop(pkt, truncated ? 'PKT_TOO_SMALL' : 'IP_INHDR', dev);
      return;
    }
    if (!view.verifyChecksum()) {
      this.mib.inCsumErrors++;
      this.drop(pkt, 'IP_CSUM', dev);
      return;
    }
    if (!view.optionsAreValid()) {
      this.mib.inHdrErrors++;
      this.drop(pkt, 'IP_INHDR', dev);
      return;
    }
    // eth_type_trans pulled the MAC header; from here the packet starts at its IP header, and
    // link padding beyond the total length goes (pskb_trim_rcsum).
    pkt.start = pkt.network;
    pkt.trim(view.totalLen);
    this.step(pkt, 'ip_rcv', dev, '');
    // ip_sabotage_in: a frame that came up through a bridge had its PREROUTING there (br_netfilter).
    const prerouted = pkt.brPrerouted;
    pkt.brPrerouted = false;
    if (!prerouted && this.hookDrops('PREROUTING', pkt, dev, undefined, dev)) return;
    // One view of the header for the rest of the path (hooks rewrite the bytes in place, not the buffer).
    this.routeInput(dev, pkt, view.bytes === pkt.buf ? view : Ipv4View.unchecked(pkt.buf, pkt.network));
  }

  /** ip_rcv_finish → ip_route_input_noref: local delivery, forwarding, or an error; `view` is the header over pkt.buf. */
  private routeInput(dev: NetDevice, pkt: Packet, view: Ipv4View): void {
    const route = this.router.input(view.dstAddr, view.srcAddr, dev.ifindex, pkt.mark, this.inputRoute);
    this.step(pkt, 'ip_route_input', dev, route.ok ? route.type : route.error);
    if (!route.ok) {
      this.inputError(dev, pkt, route.error);
      return;
    }
    switch (route.type) {
      case 'local':
      case 'broadcast':
        this.localDeliver(dev, pkt, view);
        return;
      case 'unicast':
        // Not forwarding on this device came back from the lookup as EHOSTUNREACH (ip_route_input_slow).
        this.forward(dev, pkt, route, view);
        return;
    }
  }

  /**
   * ip_error: with forwarding on, an unroutable packet gets net unreachable (no route),
   * host unreachable (an unreachable route) or packet filtered (prohibit); a blackhole, or
   * forwarding off, drops silently.
   */
  private inputError(dev: NetDevice, pkt: Packet, error: RouteErrno): void {
    if (error === 'ENETUNREACH') this.mib.inNoRoutes++;
    else this.mib.inAddrErrors++;
    const forwarding = this.sysctls.int(this.sysctls.confKey(dev.name, 'forwarding')) !== 0;
    if (forwarding && error !== 'EINVAL') this.icmp.sendError(pkt, 3, ICMP_CODE_FOR[error], 0);
    this.drop(pkt, error === 'ENETUNREACH' ? 'IP_INNOROUTES' : 'IP_INADDRERRORS', dev);
  }

  /** ip_local_deliver: reassemble, INPUT, then the protocol handler (ip_local_deliver_finish). */
  private localDeliver(dev: NetDevice, pkt: Packet, header: Ipv4View): void {
    let view = header;
    if (view.moreFragments || view.fragmentOffset !== 0) {
      const whole = this.reassembler.add(dev, pkt);
      if (whole === undefined) return;
      pkt = whole;
      view = Ipv4View.unchecked(pkt.buf, pkt.network);
    }
    if (this.hookDrops('INPUT', pkt, dev, undefined, dev)) return;
    this.step(pkt, 'ip_local_deliver', dev, '');
    this.mib.inDelivers++;
    if (view.protocol === IPPROTO_ICMP) {
      this.icmp.receive(dev, pkt, view);
      return;
    }
    const handler = this.protocols.get(view.protocol);
    if (handler === undefined) {
      this.mib.inUnknownProtos++;
      this.icmp.sendError(pkt, 3, 2, 0);
      this.drop(pkt, 'IP_NOPROTO', dev);
      return;
    }
    handler(pkt, view);
  }

  // ---- forward -----------------------------------------------------------------------

  /** ip_forward: TTL, then MTU with DF, then decrement TTL, FORWARD, and output. */
  private forward(inDev: NetDevice, pkt: Packet, route: RouteOk, view: Ipv4View): void {
    if (pkt.pktType !== PacketType.Host) {
      this.drop(pkt, 'OTHERHOST', inDev);
      return;
    }
    if (view.ttl <= 1) {
      this.icmp.sendError(pkt, 11, 0, 0);
      this.mib.inHdrErrors++;
      this.drop(pkt, 'IP_INHDR', inDev);
      return;
    }
    const outDev = this.interfaces.byIndex(route.ifindex);
    if (outDev === undefined) {
      this.drop(pkt, 'IP_INNOROUTES', inDev);
      return;
    }
    const mtu = this.pathMtu(route, view.dstAddr, outDev);
    if (view.totalLen > mtu && view.dontFragment) {
      // ip_exceeds_mtu: drop and tell the sender the next-hop MTU (frag-needed is never rate-limited).
      this.mib.fragFails++;
      this.icmp.sendError(pkt, 3, 4, mtu);
      this.drop(pkt, 'PKT_TOO_BIG', inDev);
      return;
    }
    // ip_decrease_ttl: TTL is the high byte of the TTL/protocol word; update the checksum incrementally.
    const ttlProtocolOld = (view.ttl << 8) | view.protocol;
    view.ttl = view.ttl - 1;
    view.checksum = updateChecksum16(view.checksum, ttlProtocolOld, (view.ttl << 8) | view.protocol);
    // The detail string only when someone traces: this runs for every forwarded packet.
    if (TRACING && this.ctx.bus.wants.step) this.step(pkt, 'ip_forward', outDev, `ttl ${view.ttl}`);
    if (this.hookDrops('FORWARD', pkt, inDev, outDev, inDev)) return;
    this.mib.forwDatagrams++;
    this.postRouting(pkt, route, outDev, view);
  }

  // ---- output ------------------------------------------------------------------------

  /** ip_route_output_key for a locally generated datagram; picks the source address when none is given. */
  routeOutput(
    dst: Ipv4Addr,
    options: { src?: Ipv4Addr; oif?: number; mark?: number; anySrc?: boolean } = {},
  ): RouteResult {
    return this.router.output(
      dst,
      options.src ?? 0,
      options.oif ?? 0,
      options.mark ?? 0,
      options.anySrc ?? false,
    );
  }

  /** routeOutput into a result the caller owns (router.ts: RouteScratch), for the packet path: allocates no result. */
  routeOutputInto(into: RouteScratch, dst: Ipv4Addr, src: Ipv4Addr, oif: number, mark: number): RouteResult {
    return this.router.output(dst, src, oif, mark, false, into);
  }

  /** The MTU toward `dst` on `route`: a learned PMTU exception, the route's mtu metric, or the device MTU. */
  pathMtu(route: RouteOk, dst: Ipv4Addr, dev: NetDevice): number {
    const exception = this.pmtu.get(dst);
    if (exception !== undefined) {
      if (exception.expiresNs > this.now) return Math.min(exception.mtu, dev.mtu);
      this.pmtu.delete(dst);
    }
    return route.mtu > 0 ? route.mtu : dev.mtu;
  }

  /** The unexpired PMTU exception toward `dst` (what `ip route get` shows as `cache expires Nsec mtu M`). */
  pmtuException(dst: Ipv4Addr): { readonly mtu: number; readonly remainingNs: number } | undefined {
    const exception = this.pmtu.get(dst);
    if (exception === undefined || exception.expiresNs <= this.now) return undefined;
    return { mtu: exception.mtu, remainingNs: exception.expiresNs - this.now };
  }

  /** ip_rt_update_pmtu from a received frag-needed. */
  learnPmtu(dst: Ipv4Addr, mtu: number): void {
    this.pmtu.set(dst, { mtu: Math.max(mtu, MIN_PMTU), expiresNs: this.now + MTU_EXPIRES_NS });
  }

  /**
   * ip_queue_xmit / ip_build_and_send_pkt: prepends an IPv4 header to the transport data in
   * `pkt` and sends it along `route`. The caller already filled the transport checksum using
   * `route.src`. Returns EMSGSIZE, with the MTU, when DF must be set and the datagram is too big.
   */
  output(pkt: Packet, route: RouteResult, options: OutputOptions): SendResult {
    if (!route.ok) {
      this.mib.outNoRoutes++;
      return SEND_ERRORS[route.error];
    }
    const outDev = this.interfaces.byIndex(route.ifindex);
    if (outDev === undefined) return SEND_ERRORS.ENETUNREACH;
    const payloadLen = pkt.length;
    const totalLen = IPV4_MIN_HEADER_LEN + payloadLen;
    const mtu = this.pathMtu(route, route.dst, outDev);
    const dontFragment = options.pmtudisc !== 'dont' && !(options.pmtudisc === 'want' && totalLen > mtu);
    if (options.pmtudisc === 'do' && totalLen > mtu) return { ok: false, error: 'EMSGSIZE', mtu };
    pkt.push(IPV4_MIN_HEADER_LEN);
    pkt.network = pkt.start;
    const header = this.header;
    header.srcAddr = route.src;
    header.dstAddr = route.dst;
    header.protocol = options.protocol;
    header.ttl = options.ttl ?? this.sysctls.int('net.ipv4.ip_default_ttl');
    header.ident = options.ident ?? this.selectIdent(route.dst, dontFragment);
    header.dontFragment = dontFragment;
    header.dscp = (options.tos ?? 0) >>> 2;
    header.ecn = (options.tos ?? 0) & 3;
    header.payloadLen = payloadLen;
    const view = Ipv4View.unchecked(pkt.buf, pkt.network);
    emitIpv4(header, view);
    this.mib.outRequests++;
    return this.localOutWith(pkt, route, outDev, view);
  }

  /** __ip_local_out: OUTPUT hook, then ip_output. The header is already complete. */
  localOut(pkt: Packet, route: RouteOk, outDev: NetDevice): SendResult {
    return this.localOutWith(pkt, route, outDev, Ipv4View.unchecked(pkt.buf, pkt.network));
  }

  private localOutWith(pkt: Packet, route: RouteOk, outDev: NetDevice, view: Ipv4View): SendResult {
    pkt.iif = 0;
    this.step(pkt, 'ip_local_out', outDev, '');
    const dstBefore = view.dstAddr;
    const markBefore = pkt.mark;
    if (this.hookDrops('OUTPUT', pkt, undefined, outDev, outDev)) return SEND_ERRORS.EPERM;
    if (view.dstAddr !== dstBefore || pkt.mark !== markBefore) {
      // ip_route_me_harder: DNAT or a new mark in OUTPUT may send the packet elsewhere.
      const rerouted = this.router.output(view.dstAddr, view.srcAddr, 0, pkt.mark);
      const newDev = rerouted.ok ? this.interfaces.byIndex(rerouted.ifindex) : undefined;
      if (!rerouted.ok || newDev === undefined) {
        this.mib.outNoRoutes++;
        this.drop(pkt, 'IP_OUTNOROUTES', outDev);
        return SEND_ERRORS[rerouted.ok ? 'ENETUNREACH' : rerouted.error];
      }
      this.postRouting(pkt, rerouted, newDev, view);
      return SENT;
    }
    this.postRouting(pkt, route, outDev, view);
    return SENT;
  }

  /** Runs a Netfilter hook; true when it dropped the packet (counted and traced here, on `dev`). */
  private hookDrops(
    hook: Hook,
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
    dev: NetDevice | undefined,
  ): boolean {
    if (this.netfilter === null) return false;
    const reason = this.netfilter.run(hook, pkt, inDev, outDev);
    if (reason === undefined) return false;
    this.drop(pkt, reason, dev);
    return true;
  }

  /**
   * __ip_select_ident: DF datagrams from unconnected sockets carry id 0; the others take the
   * next value of a per-destination counter with a seeded random start (ip_idents).
   */
  private selectIdent(dst: Ipv4Addr, dontFragment: boolean): number {
    if (dontFragment) return 0;
    let ident = this.identByDst.get(dst);
    if (ident === undefined) ident = this.ctx.rng.int(0x10000);
    this.identByDst.set(dst, (ident + 1) & 0xffff);
    return ident;
  }

  /** ip_output → POSTROUTING → ip_finish_output: fragment when needed, then the neighbour. */
  private postRouting(pkt: Packet, route: RouteOk, outDev: NetDevice, header: Ipv4View): void {
    if (this.hookDrops('POSTROUTING', pkt, undefined, outDev, outDev)) return;
    // TCPMSS may have grown the buffer in FORWARD, OUTPUT or here: then the header is read from the new one.
    const view = header.bytes === pkt.buf ? header : Ipv4View.unchecked(pkt.buf, pkt.network);
    const mtu = this.pathMtu(route, view.dstAddr, outDev);
    const nextHop = route.gateway !== 0 ? route.gateway : view.dstAddr;
    if (view.totalLen > mtu) {
      if (view.dontFragment) {
        // A forwarded DF packet was handled in ip_forward; here only a local one can be too big.
        this.mib.fragFails++;
        this.drop(pkt, 'PKT_TOO_BIG', outDev);
        return;
      }
      fragmentAndSend(this, pkt, mtu, (fragment) => this.neighbourOutput(fragment, outDev, nextHop));
      return;
    }
    this.neighbourOutput(pkt, outDev, nextHop);
  }

  /** ip_finish_output2 → neigh_output: loopback needs no neighbour, the rest resolve with ARP. */
  neighbourOutput(pkt: Packet, outDev: NetDevice, nextHop: Ipv4Addr): void {
    if (outDev.kind === 'loopback') {
      this.transmitTo(pkt, outDev, 0);
      return;
    }
    this.neighbours.output(outDev.ifindex, nextHop, pkt);
  }

  /** Prepends the Ethernet header (dev_hard_header) and hands the frame to the device. */
  transmitTo(pkt: Packet, outDev: NetDevice, dstMac: MacAddr): void {
    pkt.push(ETHERNET_HEADER_LEN);
    writeMac(pkt.buf, pkt.start, dstMac);
    writeMac(pkt.buf, pkt.start + 6, outDev.mac);
    writeU16(pkt.buf, pkt.start + 12, ETHERTYPE_IPV4);
    outDev.transmit(pkt);
  }
}

const NO_OPTIONS = new Uint8Array(0);

/** Ipv4Repr with its fields writable: the one header record `output` fills. */
type MutableIpv4Repr = { -readonly [K in keyof Ipv4Repr]: Ipv4Repr[K] };

/** Where the IPv4 header sits in the packet's frame, for trace events (-1: not set, read it as Ethernet). */
function networkOffsetOf(pkt: Packet): number {
  return pkt.network >= pkt.start ? pkt.network - pkt.start : -1;
}

/** The ICMP destination-unreachable code ip_error sends for each lookup error. */
const ICMP_CODE_FOR = { ENETUNREACH: 0, EHOSTUNREACH: 1, EACCES: 13, EINVAL: 0 } as const;
