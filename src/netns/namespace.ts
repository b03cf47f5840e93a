// A network namespace (a node or a pod): its devices, sysctls, routes, IPv4 layer and UDP sockets, and the
// operations `ip` performs on them; no IPv6, no VLAN sub-interfaces.

import type { Packet } from '../core/packet.ts';
import type { Rng } from '../core/rng.ts';
import { Bridge, type BridgeNftHook } from '../link/bridge.ts';
import type { DeviceNetfilterHooks, DeviceOwner, NetDevice } from '../link/device.ts';
import { Loopback } from '../link/loopback.ts';
import { Veth } from '../link/veth.ts';
import {
  DEFAULT_VXLAN_CONFIG,
  VXLAN_OVERHEAD,
  Vxlan,
  type VxlanConfig,
  type VxlanUnderlay,
} from '../link/vxlan.ts';
import { Fib, newFlowKey } from '../net/fib.ts';
import { type AddrScope, type IfAddr, SCOPE_VALUE } from '../net/ifaddr.ts';
import { type Interfaces, Ipv4Stack, type NetContext } from '../net/ipv4.ts';
import { LOOPBACK_IFINDEX } from '../net/route.ts';
import { RouteScratch } from '../net/router.ts';
import { Sysctls } from '../net/sysctl.ts';
import { sendTcpReset } from '../net/tcp-reset.ts';
import { defineConntrackSysctls } from '../netfilter/conntrack/sysctl.ts';
import type { NetfilterHost } from '../netfilter/host.ts';
import { Nat } from '../netfilter/nat/nat.ts';
import { Netfilter } from '../netfilter/netfilter.ts';
import { TcpTable } from '../socket/tcp/table.ts';
import { UdpTable } from '../socket/udp.ts';
import type { Ipv4Addr, MacAddr } from '../wire/address.ts';
import { readU16 } from '../wire/bytes.ts';
import { ETHERNET_HEADER_LEN, ETHERTYPE_ARP, ETHERTYPE_IPV4 } from '../wire/ethernet.ts';
import { emitUdp, IPPROTO_UDP, UDP_HEADER_LEN, UdpView } from '../wire/udp.ts';
import {
  BRIDGE_NF_CALL_IPTABLES,
  brNetfilterHook,
  brNetfilterPostRouting,
  brNetfilterPreRouting,
} from './br-netfilter.ts';
import type { Simulation } from './simulation.ts';

export type DeviceError = 'EEXIST' | 'ENODEV' | 'EINVAL' | 'EADDRNOTAVAIL' | 'EADDRINUSE';
export type Result<T> = { ok: true; value: T } | { ok: false; error: DeviceError };

export interface VxlanOptions extends Partial<Omit<VxlanConfig, 'vni'>> {
  readonly vni: number;
  readonly mtu?: number;
  readonly mac?: MacAddr;
}

export class Namespace implements DeviceOwner, Interfaces {
  readonly name: string;
  readonly sim: Simulation;
  /** The namespace's inode number (`ls -L /proc/self/ns/net`, net->ns.inum), from the simulation's counter. */
  readonly inum: number;
  readonly sysctls = new Sysctls();
  readonly fib: Fib;
  /** The flow ipt_rpfilter's reverse lookups reuse (iif loopback, scope universe). */
  private readonly rpfilterFlow = newFlowKey({ iif: LOOPBACK_IFINDEX });
  readonly ipv4: Ipv4Stack;
  readonly udp: UdpTable;
  readonly tcp: TcpTable;
  readonly netfilter: Netfilter;
  readonly rng: Rng;
  /**
   * Whether the namespace has a name in /var/run/netns (`ip netns add`, containerd's `cni-…` sandboxes). A kind
   * node's own namespace is a container's and has none: `ip link` in its pods shows the peer as `link-netnsid N`.
   */
  listedInNetnsRun = true;
  private readonly devices = new Map<number, NetDevice>();
  /** The same devices by name (device names are unique in a namespace and never change here). */
  private readonly devicesByName = new Map<string, NetDevice>();
  /** The VXLAN devices in ifindex order: the receive handler's candidates, kept so it scans no device list per packet. */
  private vxlans: Vxlan[] = [];
  /** The route br_netfilter looks up for a frame DNATed at bridge level (br_nf_pre_routing_finish), read at once. */
  readonly bridgeDnatRoute = new RouteScratch();
  /** The outer route of the VXLAN device being sent through (vxlan_xmit_one's rt; read before the next one). */
  private readonly tunnelRoute = new RouteScratch();
  /** The outer UDP header and its pseudo-header, filled per encapsulated frame. */
  private readonly tunnelUdp = { srcPort: 0, dstPort: 0, payloadLen: 0 };
  private readonly tunnelPseudo = { srcAddr: 0, dstAddr: 0 };
  private readonly tunnelOutput: {
    readonly protocol: number;
    readonly pmtudisc: 'dont';
    tos: number;
    ttl: number | undefined;
  } = {
    protocol: IPPROTO_UDP,
    pmtudisc: 'dont',
    tos: 0,
    ttl: undefined,
  };
  /** ip_local_port_range parsed, with the text it was parsed from (re-read when the sysctl changes). */
  private portRangeText = '';
  private portRange: readonly [number, number] = [32768, 60999];
  private nextIfindex = 2;
  /** The ids this namespace gave the other namespaces its veths reach (peernet2id_alloc), in first-use order. */
  private readonly peerNsids = new Map<Namespace, number>();

  /** The id this namespace knows `peer` by (`link-netnsid`), given on first use from 0 up, as peernet2id_alloc does. */
  peerNsid(peer: Namespace): number {
    let id = this.peerNsids.get(peer);
    if (id === undefined) {
      id = this.peerNsids.size;
      this.peerNsids.set(peer, id);
    }
    return id;
  }

  /** `rngLabel` names the namespace's random stream (a name used again after a removal gets a new one). */
  constructor(sim: Simulation, name: string, rngLabel = `netns:${name}`) {
    this.name = name;
    this.sim = sim;
    this.inum = sim.allocateNetnsInum();
    this.rng = sim.rng.fork(rngLabel);
    // br_netfilter is loaded on Kubernetes nodes; a new namespace then starts with the switch on.
    this.sysctls.define(BRIDGE_NF_CALL_IPTABLES, { defaultValue: '1', min: 0, max: 1 });
    const ctx: NetContext = { scheduler: sim.scheduler, bus: sim.bus, backlog: sim.backlog, rng: this.rng };
    this.fib = new Fib();
    this.ipv4 = new Ipv4Stack(ctx, this, this.sysctls, this.fib);
    this.udp = new UdpTable(this.ipv4);
    this.tcp = new TcpTable(this.ipv4);
    const host = this.netfilterHost();
    this.netfilter = new Netfilter(host, sim.scheduler);
    this.netfilter.nat = new Nat(this.netfilter.conntrack, host);
    defineConntrackSysctls(this.sysctls, this.netfilter.conntrack);
    this.ipv4.netfilter = this.netfilter;
    // The flowtable fast path's route and neighbour transmit (nf_route, neigh_xmit).
    this.netfilter.flows.host = {
      route: (dst, mark) => {
        const route = this.ipv4.routeOutput(dst, { mark });
        if (!route.ok || route.type !== 'unicast') return undefined;
        return { oif: route.ifindex, nextHop: route.gateway !== 0 ? route.gateway : dst };
      },
      transmit: (pkt, oif, nextHop) => this.ipv4.neighbours.output(oif, nextHop, pkt),
    };
    this.attach(new Loopback(ctx, this));
  }

  get ctx(): NetContext {
    return this.ipv4.ctx;
  }

  // ---- Interfaces --------------------------------------------------------------------

  byIndex(ifindex: number): NetDevice | undefined {
    return this.devices.get(ifindex);
  }

  byName(name: string): NetDevice | undefined {
    return this.devicesByName.get(name);
  }

  all(): NetDevice[] {
    return [...this.devices.values()].sort((a, b) => a.ifindex - b.ifindex);
  }

  /** What rule evaluation asks of this namespace (NetfilterHost). */
  private netfilterHost(): NetfilterHost {
    const rng = this.rng.fork('netfilter');
    return {
      rng,
      now: () => this.sim.now,
      ifname: (ifindex) => this.nameOf(ifindex),
      ifindex: (name) => this.indexOf(name),
      addressType: (addr) => {
        const type = this.fib.addressType(addr);
        return type === 'throw' ? 'unspec' : type;
      },
      reverseRoute: (dst, src, mark, tos) => {
        // ipt_rpfilter.c: rpfilter_mt's flow (iif loopback) through fib_lookup.
        const flow = this.rpfilterFlow;
        flow.dstAddr = dst;
        flow.srcAddr = src;
        flow.mark = mark;
        flow.tos = tos;
        const result = this.fib.lookup(flow);
        if (!result.ok || result.route.oif === undefined) return undefined;
        return { type: result.type === 'throw' ? 'unspec' : result.type, oif: result.route.oif };
      },
      masqueradeAddress: (oif, dst) => {
        // nf_nat_masquerade_ipv4: inet_select_addr(out, nexthop, RT_SCOPE_UNIVERSE).
        const route = this.ipv4.routeOutput(dst, { oif });
        const nexthop = route.ok && route.gateway !== 0 ? route.gateway : dst;
        return this.ipv4.addresses.select(oif, nexthop, 'global');
      },
      reject: (pkt, how) => {
        if (how.kind === 'tcp-reset') sendTcpReset(this.ipv4, pkt);
        else if (how.kind === 'icmp') this.ipv4.icmp.sendError(pkt, 3, how.code, 0);
      },
      redirectAddress: (iif) => {
        // nf_nat_redirect_ipv4: the incoming device's first address (127.0.0.1 for locally generated packets).
        if (iif === 0) return 0x7f00_0001;
        return this.ipv4.addresses.onDevice(iif).find((ifa) => ifa.primary)?.addr;
      },
      // nf_socket_get_sock_v4 / nf_tproxy_get_sock_v4: TCP's tables, or UDP's.
      socketLookup: (proto, saddr, sport, daddr, dport, kind) =>
        proto === 6
          ? this.tcp.netfilterLookup(daddr, dport, saddr, sport, kind)
          : proto === 17
            ? this.udp.netfilterLookup(daddr, dport, saddr, sport, kind)
            : undefined,
      routeMtu: (dst) => {
        const route = this.ipv4.routeOutput(dst);
        if (!route.ok) return undefined;
        const dev = this.byIndex(route.ifindex);
        return dev === undefined ? undefined : this.ipv4.pathMtu(route, dst, dev);
      },
      routeNexthop: (dst) => {
        const route = this.ipv4.routeOutput(dst);
        return route.ok ? (route.gateway !== 0 ? route.gateway : dst) : undefined;
      },
      log: (line) => this.sim.printk(line),
      netRatelimit: () => this.sim.netRatelimit(),
      netnsInum: this.inum,
      softirq: this.sim.backlog,
    };
  }

  // ---- InterfaceResolver (for ip route / ip rule) ------------------------------------

  nameOf(ifindex: number): string | undefined {
    return this.devices.get(ifindex)?.name;
  }

  indexOf(name: string): number | undefined {
    return this.byName(name)?.ifindex;
  }

  selectSource(ifindex: number, dst: Ipv4Addr, scope: number): Ipv4Addr | undefined {
    const maxScope = scope >= SCOPE_VALUE.host ? 'host' : scope >= SCOPE_VALUE.link ? 'link' : 'global';
    return this.ipv4.addresses.select(ifindex, dst, maxScope);
  }

  forwarding(ifindex: number): boolean {
    const dev = this.devices.get(ifindex);
    return dev !== undefined && this.sysctls.int(this.sysctls.confKey(dev.name, 'forwarding')) !== 0;
  }

  routeLocalnet(ifindex: number): boolean {
    const dev = this.devices.get(ifindex);
    if (dev === undefined) return false;
    const { sysctls } = this;
    return (
      sysctls.int(sysctls.confKey('all', 'route_localnet')) !== 0 ||
      sysctls.int(sysctls.confKey(dev.name, 'route_localnet')) !== 0
    );
  }

  get loopback(): NetDevice {
    return this.devices.get(1)!;
  }

  // ---- DeviceOwner -------------------------------------------------------------------

  /** __netif_receive_skb_core's protocol dispatch: IPv4 and ARP; everything else is dropped. */
  /** The netdev family's chains on this namespace's devices, or null when it has none (family-hooks.ts). */
  get deviceHooks(): DeviceNetfilterHooks | null {
    return this.netfilter.families.deviceActive ? this.netfilter.families : null;
  }

  deliver(dev: NetDevice, pkt: Packet): void {
    if (pkt.length < ETHERNET_HEADER_LEN) {
      dev.stats.rxDropped++;
      this.ipv4.drop(pkt, 'PKT_TOO_SMALL', dev);
      return;
    }
    switch (readU16(pkt.buf, pkt.start + 12)) {
      case ETHERTYPE_IPV4:
        this.ipv4.receive(dev, pkt);
        return;
      case ETHERTYPE_ARP:
        this.ipv4.arp.receive(dev, pkt);
        return;
      default:
        // __netif_receive_skb_core: a frame no handler takes counts in the device's rx_dropped,
        // unless a packet socket on the device (tcpdump) took it: a tap is a handler (pt_prev).
        if (dev.taps.length === 0) dev.stats.rxDropped++;
        this.ipv4.drop(pkt, 'UNHANDLED_PROTO', dev);
        return;
    }
  }

  // ---- devices -----------------------------------------------------------------------

  allocateIfindex(): number {
    while (this.devices.has(this.nextIfindex)) this.nextIfindex++;
    return this.nextIfindex++;
  }

  private attach(dev: NetDevice): void {
    this.devices.set(dev.ifindex, dev);
    this.devicesByName.set(dev.name, dev);
    this.sysctls.addDevice(dev.name);
    if (dev instanceof Vxlan) this.vxlans = [...this.vxlans, dev].sort((a, b) => a.ifindex - b.ifindex);
  }

  /** Takes `dev` out of this namespace's tables (moved away or deleted). */
  private detach(dev: NetDevice): void {
    this.devices.delete(dev.ifindex);
    this.devicesByName.delete(dev.name);
    this.sysctls.removeDevice(dev.name);
    if (dev instanceof Vxlan) this.vxlans = this.vxlans.filter((vxlan) => vxlan !== dev);
  }

  private nameTaken(name: string): boolean {
    return this.byName(name) !== undefined;
  }

  /**
   * `ip link add NAME [mtu M] type veth peer name PEER [mtu N] [netns OTHER]`. Each end takes
   * only its own MTU: iproute2 sends the peer's attributes apart (VETH_INFO_PEER), so a peer
   * without `mtu` gets 1500 whatever NAME's is (veth_newlink).
   */
  addVeth(
    name: string,
    peerName: string,
    peerNs: Namespace = this,
    options: { mtu?: number; peerMtu?: number } = {},
  ): Result<[Veth, Veth]> {
    if (this.nameTaken(name) || peerNs.nameTaken(peerName) || (peerNs === this && name === peerName))
      return { ok: false, error: 'EEXIST' };
    const mtu = options.mtu ?? 1500;
    const peerMtu = options.peerMtu ?? 1500;
    // veth_newlink registers the peer first, so in one namespace the peer gets the lower ifindex.
    const peerIfindex = peerNs.allocateIfindex();
    const ifindex = this.allocateIfindex();
    const pair = Veth.pair(
      this.ctx,
      { owner: this, ifindex, name, mac: this.sim.randomMac(), mtu },
      { owner: peerNs, ifindex: peerIfindex, name: peerName, mac: this.sim.randomMac(), mtu: peerMtu },
    );
    this.attach(pair[0]);
    peerNs.attach(pair[1]);
    return { ok: true, value: pair };
  }

  /** `ip link add NAME type bridge`. */
  addBridge(name: string, options: { mac?: MacAddr; mtu?: number } = {}): Result<Bridge> {
    if (this.nameTaken(name)) return { ok: false, error: 'EEXIST' };
    const bridge = new Bridge(
      this.ctx,
      this,
      this.allocateIfindex(),
      name,
      options.mac ?? this.sim.randomMac(),
      options.mtu ?? 1500,
    );
    bridge.forwardHook = this.bridgeNetfilter;
    bridge.preRoutingHook = this.bridgePreRouting;
    bridge.nftHook = this.bridgeNft;
    bridge.postRoutingHook = this.bridgePostRouting;
    this.attach(bridge);
    return { ok: true, value: bridge };
  }

  /** `ip link set DEV master BRIDGE`. */
  setMaster(dev: NetDevice, bridge: Bridge): void {
    if (dev.masterIndex !== 0) (this.byIndex(dev.masterIndex) as Bridge | undefined)?.removePort(dev);
    bridge.addPort(dev);
  }

  /** `ip link add NAME type vxlan id VNI [local A] [dev D] [dstport P] [nolearning]`; MTU = lower MTU − 50. */
  addVxlan(name: string, options: VxlanOptions): Result<Vxlan> {
    if (this.nameTaken(name)) return { ok: false, error: 'EEXIST' };
    const config: VxlanConfig = { ...DEFAULT_VXLAN_CONFIG, ...options };
    const lower = config.lowerIfindex !== 0 ? this.byIndex(config.lowerIfindex) : undefined;
    if (config.lowerIfindex !== 0 && lower === undefined) return { ok: false, error: 'ENODEV' };
    const mtu = options.mtu ?? (lower !== undefined ? lower.mtu - VXLAN_OVERHEAD : 1500);
    const vxlan = new Vxlan(
      this.ctx,
      this,
      this.allocateIfindex(),
      name,
      options.mac ?? this.sim.randomMac(),
      mtu,
      config,
      this.underlay,
      this.rng.u32(),
    );
    this.attach(vxlan);
    return { ok: true, value: vxlan };
  }

  /** The UDP socket a VXLAN device opens when it comes up (vxlan_open → vxlan_sock_add). */
  private bindVxlanPort(vxlan: Vxlan): void {
    const port = vxlan.config.dstPort;
    if (this.udp.isBound(port)) return;
    // vxlan_sock_add → setup_udp_tunnel_sock: the socket's encap_rcv is vxlan_rcv.
    const encapRcv = (pkt: Packet, payloadOffset: number): void => {
      // The first device up on the port, in ifindex order: a plain loop over the VXLAN devices, no list built.
      let target: Vxlan | undefined;
      const vxlans = this.vxlans;
      for (let i = 0; i < vxlans.length; i++) {
        const dev = vxlans[i]!;
        if (dev.config.dstPort === port && dev.adminUp) {
          target = dev;
          break;
        }
      }
      if (target === undefined) {
        this.ipv4.drop(pkt, 'VXLAN_VNI_NOT_FOUND');
        return;
      }
      target.receiveEncapsulated(pkt, payloadOffset);
    };
    this.udp.bind(
      0,
      port,
      (datagram) => encapRcv(datagram.pkt, datagram.payloadOffset),
      undefined,
      undefined,
      {
        encapRcv,
      },
    );
  }

  private readonly bridgeNetfilter = brNetfilterHook(this);
  private readonly bridgePreRouting = brNetfilterPreRouting(this);
  private readonly bridgePostRouting = brNetfilterPostRouting(this);
  /** nftables' bridge family (netfilter/family-hooks.ts). */
  private readonly bridgeNft: BridgeNftHook = (point, pkt, inDev, outDev) =>
    this.netfilter.families.bridge(point, pkt, inDev, outDev);

  private readonly underlay: VxlanUnderlay = {
    sendEncapsulated: (vxlan, pkt, remote, srcPort, tos) => {
      const config = vxlan.config;
      // vxlan_xmit_one → udp_tunnel_dst_lookup: the outer route is looked up with the inner packet's mark
      // (flowi4_mark = skb->mark) and the remote's own ifindex as oif, which is 0 for an FDB entry added without
      // `via` (the only kind `bridge fdb` makes here): `dev eth0` does not pin the outer route.
      const route = this.ipv4.routeOutputInto(this.tunnelRoute, remote, config.local ?? 0, 0, pkt.mark);
      if (!route.ok) return false;
      // udp_tunnel_dst_lookup: a route back into the device itself is a circular route (-ELOOP): tx_errors and a
      // drop (the kernel also counts it in `collisions`, which packetlab does not keep).
      if (route.ifindex === vxlan.ifindex) return false;
      const payloadLen = pkt.length;
      pkt.push(UDP_HEADER_LEN);
      const header = this.tunnelUdp;
      header.srcPort = srcPort;
      header.dstPort = config.dstPort;
      header.payloadLen = payloadLen;
      const pseudo = this.tunnelPseudo;
      pseudo.srcAddr = route.src;
      pseudo.dstAddr = route.dst;
      emitUdp(header, UdpView.unchecked(pkt.buf, pkt.start), config.udpChecksum ? pseudo : undefined);
      // iptunnel_xmit → skb_scrub_packet(skb, xnet=false): the outer packet is a new one for conntrack
      // and tracing; the mark stays (it only goes when crossing namespaces).
      pkt.ctIndex = -1;
      pkt.ctReply = false;
      pkt.ctInfo = 0;
      pkt.nftrace = false;
      const output = this.tunnelOutput;
      output.tos = tos;
      output.ttl = config.ttl !== 0 ? config.ttl : undefined;
      const sent = this.ipv4.output(pkt, route, output);
      return sent.ok;
    },
    localPortRange: () => {
      const text = this.sysctls.text('net.ipv4.ip_local_port_range') ?? '';
      if (text !== this.portRangeText) {
        this.portRangeText = text;
        this.portRange = parsePortRange(text);
      }
      return this.portRange;
    },
  };

  /** Moves a device to another namespace (`ip link set DEV netns OTHER`): it goes down and loses its addresses. */
  moveDevice(dev: NetDevice, target: Namespace): void {
    this.setDown(dev);
    this.detach(dev);
    if (target.byIndex(dev.ifindex) !== undefined) dev.ifindex = target.allocateIfindex();
    dev.owner = target;
    target.attach(dev);
  }

  /** `ip link del DEV`: a veth takes its peer along. */
  deleteDevice(dev: NetDevice): void {
    this.setDown(dev);
    this.detach(dev);
    if (dev instanceof Veth && dev.peer !== null) {
      const peer = dev.peer;
      dev.peer = null;
      peer.peer = null;
      const peerNs = peer.owner as Namespace;
      peerNs.deleteDevice(peer);
    }
  }

  // ---- state -------------------------------------------------------------------------

  /** `ip link set DEV up`: kernel routes for its addresses appear (fib_netdev_event NETDEV_UP). */
  setUp(dev: NetDevice): void {
    if (dev.adminUp) return;
    dev.adminUp = true;
    if (dev.kind === 'loopback') this.addLoopbackAddress(dev);
    for (const ifa of this.ipv4.addresses.onDevice(dev.ifindex))
      this.ipv4.router.addKernelRoutes(ifa, dev.kind === 'loopback');
    if (dev instanceof Vxlan) this.bindVxlanPort(dev);
    syncCarriers(dev);
  }

  /** inetdev_event NETDEV_UP on a loopback: 127.0.0.1/8 scope host, unless it is already there. */
  private addLoopbackAddress(lo: NetDevice): void {
    const addr = 0x7f000001;
    if (this.ipv4.addresses.find(lo.ifindex, addr, 8) !== undefined) return;
    this.ipv4.addresses.add({
      ifindex: lo.ifindex,
      addr,
      prefixLen: 8,
      broadcast: undefined,
      scope: 'host',
      label: lo.name,
    });
  }

  /** `ip link set DEV down`: its routes and neighbours go (fib_disable_ip, neigh_ifdown). */
  setDown(dev: NetDevice): void {
    if (!dev.adminUp) return;
    dev.adminUp = false;
    this.ipv4.router.removeDeviceRoutes(dev.ifindex);
    this.ipv4.neighbours.flushDevice(dev.ifindex);
    syncCarriers(dev);
  }

  /**
   * `ip link set DEV mtu N`. On a bridge the MTU is then the user's (BROPT_MTU_SET_BY_USER); on
   * a port, its bridge follows the smallest port MTU unless the user set the bridge's
   * (NETDEV_CHANGEMTU → br_mtu_auto_adjust).
   */
  setMtu(dev: NetDevice, mtu: number): Result<number> {
    if (mtu < 68 || mtu > 65535) return { ok: false, error: 'EINVAL' };
    dev.mtu = mtu;
    if (dev instanceof Bridge) dev.mtuSetByUser = true;
    if (dev.masterIndex !== 0) (this.byIndex(dev.masterIndex) as Bridge | undefined)?.autoAdjustMtu();
    return { ok: true, value: mtu };
  }

  // ---- addresses ---------------------------------------------------------------------

  /** `ip addr add A/LEN dev DEV`: the address, then its local and prefix routes if the device is up. */
  addAddress(
    dev: NetDevice,
    addr: Ipv4Addr,
    prefixLen: number,
    options: { scope?: AddrScope; broadcast?: Ipv4Addr } = {},
  ): Result<IfAddr> {
    if (this.ipv4.addresses.find(dev.ifindex, addr, prefixLen) !== undefined)
      return { ok: false, error: 'EEXIST' };
    const scope = options.scope ?? (addr >>> 24 === 127 ? 'host' : 'global');
    const ifa = this.ipv4.addresses.add({
      ifindex: dev.ifindex,
      addr,
      prefixLen,
      broadcast: options.broadcast,
      scope,
      label: dev.name,
    });
    if (dev.adminUp) this.ipv4.router.addKernelRoutes(ifa, dev.kind === 'loopback');
    return { ok: true, value: ifa };
  }

  removeAddress(dev: NetDevice, addr: Ipv4Addr, prefixLen: number): Result<IfAddr> {
    const ifa = this.ipv4.addresses.find(dev.ifindex, addr, prefixLen);
    if (ifa === undefined) return { ok: false, error: 'EADDRNOTAVAIL' };
    this.ipv4.addresses.remove(ifa);
    this.ipv4.router.removeKernelRoutes(ifa);
    return { ok: true, value: ifa };
  }
}

/** `ip_local_port_range` is printed "32768\t60999". */
function parsePortRange(text: string): [number, number] {
  const [low, high] = text.split('\t').map(Number);
  return [low ?? 32768, high ?? 60999];
}

/** A device went up or down: its carrier, its veth peer's and the bridges above both may change (carrier_changes). */
function syncCarriers(dev: NetDevice): void {
  const ends = dev instanceof Veth && dev.peer !== null ? [dev, dev.peer] : [dev];
  for (const end of ends) {
    end.syncCarrier();
    if (end.masterIndex !== 0) (end.owner as Namespace).byIndex(end.masterIndex)?.syncCarrier();
  }
}
