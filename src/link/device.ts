// The one interface every network device shares (veth, bridge, vxlan, loopback, underlay port), with stats and capture taps.
//
// Mirrors the split of net/core/dev.c: `transmit` is dev_queue_xmit (the root qdisc, if any,
// queues the frame; then dev_hard_start_xmit: taps see it and the driver's `xmit` runs),
// `receive` is __netif_receive_skb (taps, then the rx handler a bridge installs on its ports,
// else the namespace's protocol handlers). No offloads, no multiple queues, no ingress qdisc.

import type { DropReason } from '../core/drop-reason.ts';
import { type Packet, PacketType } from '../core/packet.ts';
import type { Scheduler } from '../core/scheduler.ts';
import { TRACING, type TraceBus } from '../core/trace.ts';
import { isMulticastMac, MAC_BROADCAST, type MacAddr, readMac } from '../wire/address.ts';
import type { Backlog } from './backlog.ts';
import type { Qdisc, QdiscHost } from './qdisc/qdisc.ts';

export type DeviceKind = 'loopback' | 'veth' | 'bridge' | 'vxlan';

/** The counters `ip -s link` prints (struct rtnl_link_stats64, the fields we model). */
export class DeviceStats {
  rxPackets = 0;
  rxBytes = 0;
  rxErrors = 0;
  rxDropped = 0;
  rxMulticast = 0;
  txPackets = 0;
  txBytes = 0;
  txErrors = 0;
  txDropped = 0;
  /** IFLA_CARRIER_CHANGES: carrier_up_count + carrier_down_count (`ip -s -s link`'s transns). */
  carrierChanges = 0;
}

/** What a device needs from the simulation around it. */
export interface LinkContext {
  readonly scheduler: Scheduler;
  readonly bus: TraceBus;
  readonly backlog: Backlog;
}

/** What a device needs from the namespace that holds it; the namespace implements it (link/ never imports netns/). */
export interface DeviceOwner {
  readonly name: string;
  /** Hands a received frame to the namespace's protocol handlers (ip_rcv, arp_rcv). */
  deliver(dev: NetDevice, pkt: Packet): void;
  /**
   * nf_ingress and nf_hook_egress: the netdev chains bound to the device, when the namespace has any (null
   * otherwise, the fast path); false drops the frame. Injected so link/ does not import netfilter/.
   */
  readonly deviceHooks?: DeviceNetfilterHooks | null;
}

export interface DeviceNetfilterHooks {
  /** 'stolen': a hook took the frame (the flowtable fast path forwarded it). */
  ingress(dev: NetDevice, pkt: Packet): 'continue' | 'drop' | 'stolen';
  egress(dev: NetDevice, pkt: Packet): boolean;
}

/** Sees every frame a device sends or receives, as a packet socket does (tcpdump). */
export type Tap = (dev: NetDevice, pkt: Packet, direction: 'rx' | 'tx') => void;

/** Consumes a frame received on a port before the namespace sees it (the bridge's br_handle_frame). */
export type RxHandler = (dev: NetDevice, pkt: Packet) => void;

export abstract class NetDevice {
  abstract readonly kind: DeviceKind;
  ifindex: number;
  name: string;
  mac: MacAddr;
  mtu: number;
  /** Administrative state (`ip link set up`). */
  adminUp = false;
  owner: DeviceOwner;
  /** The bridge this device is a port of, by ifindex in the same namespace (0: none). */
  masterIndex = 0;
  rxHandler: RxHandler | null = null;
  /** dev->promiscuity: how many users (a bridge for its ports, a packet capture) want every frame. */
  promiscuity = 0;
  readonly stats = new DeviceStats();
  readonly taps: Tap[] = [];
  readonly ctx: LinkContext;
  /** The root qdisc (`tc qdisc add dev X root ...`); null is `noqueue`, Linux's default for virtual devices. */
  private rootQdisc: Qdisc | null = null;
  private qdiscHost: QdiscHost | null = null;

  constructor(
    ctx: LinkContext,
    owner: DeviceOwner,
    ifindex: number,
    name: string,
    mac: MacAddr,
    mtu: number,
  ) {
    this.ctx = ctx;
    this.owner = owner;
    this.ifindex = ifindex;
    this.name = name;
    this.mac = mac;
    this.mtu = mtu;
  }

  /** Operational state: up and with carrier (a veth needs its peer up). */
  get operUp(): boolean {
    return this.adminUp && this.hasCarrier();
  }

  protected hasCarrier(): boolean {
    return true;
  }

  /** The carrier flag the driver last set (netif_carrier_on/off); undefined until first looked at. */
  protected carrierFlag: boolean | undefined;
  /** The flag a new device starts with: on, except for drivers that turn it off at creation (veth, bridge). */
  protected readonly initialCarrier: boolean = true;

  /** What the driver's netif_carrier_on/off calls leave the flag at; by default the carrier itself. */
  protected driverCarrier(): boolean {
    return this.hasCarrier();
  }

  /** Re-reads the driver's carrier after a state change and counts a flip, as netif_carrier_on/off do. */
  syncCarrier(): void {
    const before = this.carrierFlag ?? this.initialCarrier;
    const now = this.driverCarrier();
    this.carrierFlag = now;
    if (now !== before) this.stats.carrierChanges++;
  }

  /**
   * Sends a frame out of this device (dev_queue_xmit): with a root qdisc the frame is queued and
   * the queue runs (qdisc_run); without one it goes straight to dev_hard_start_xmit.
   */
  transmit(pkt: Packet): void {
    // __dev_queue_xmit: the egress hook runs first, before the qdisc and the device-up check.
    const hooks = this.owner.deviceHooks;
    if (hooks != null && !hooks.egress(this, pkt)) {
      this.drop(pkt, 'NETFILTER_DROP');
      return;
    }
    if (!this.operUp) {
      this.stats.txDropped++;
      this.drop(pkt, 'DEV_READY');
      return;
    }
    const qdisc = this.rootQdisc;
    if (qdisc === null) {
      this.startXmit(pkt);
      return;
    }
    qdisc.enqueue(pkt);
    this.runQueue();
  }

  /** The root qdisc, null for `noqueue`. */
  get qdisc(): Qdisc | null {
    return this.rootQdisc;
  }

  /** Grafts `qdisc` as the root (qdisc_graft), or restores noqueue with null; the old one is reset and detached. */
  setQdisc(qdisc: Qdisc | null): void {
    this.rootQdisc?.detach();
    this.rootQdisc = qdisc;
    if (qdisc === null) return;
    if (this.qdiscHost === null) {
      this.qdiscHost = {
        scheduler: this.ctx.scheduler,
        run: () => this.runQueue(),
        dropped: (pkt) => this.drop(pkt, 'QDISC_DROP'),
      };
    }
    qdisc.attach(this.qdiscHost);
  }

  /** qdisc_run: dequeue until the qdisc is empty or waits (its watchdog calls back); a device gone down drops. */
  private runQueue(): void {
    const qdisc = this.rootQdisc;
    if (qdisc === null) return;
    for (let pkt = qdisc.dequeue(); pkt !== null; pkt = qdisc.dequeue()) {
      if (this.operUp) this.startXmit(pkt);
      else {
        this.stats.txDropped++;
        this.drop(pkt, 'DEV_READY');
      }
    }
  }

  /**
   * dev_hard_start_xmit: taps see the frame (dev_queue_xmit_nit), then the driver takes it;
   * tx_packets and tx_bytes count it only if the driver sent it (a driver drop counts itself).
   */
  private startXmit(pkt: Packet): void {
    if (this.taps.length > 0) this.runTaps(pkt, 'tx');
    const bus = this.ctx.bus;
    if (TRACING && bus.wants.tx)
      bus.emit('tx', {
        time: this.ctx.scheduler.now,
        netns: this.owner.name,
        dev: this.name,
        frame: pkt.frame(),
      });
    const length = this.txLength(pkt);
    if (!this.xmit(pkt)) return;
    this.stats.txPackets++;
    this.stats.txBytes += length;
  }

  /** The driver's transmit (ndo_start_xmit): false when it dropped the frame (and counted the drop). */
  protected abstract xmit(pkt: Packet): boolean;

  /** Takes a frame off the wire (__netif_receive_skb): classify, count, tap, then bridge or protocol handlers. */
  receive(pkt: Packet): void {
    if (!this.adminUp) {
      this.stats.rxDropped++;
      this.drop(pkt, 'DEV_READY');
      return;
    }
    pkt.iif = this.ifindex;
    this.classify(pkt);
    this.stats.rxPackets++;
    this.stats.rxBytes += this.rxLength(pkt);
    if (pkt.pktType === PacketType.Multicast || pkt.pktType === PacketType.Broadcast)
      this.stats.rxMulticast++;
    if (this.taps.length > 0) this.runTaps(pkt, 'rx');
    const bus = this.ctx.bus;
    if (TRACING && bus.wants.rx)
      bus.emit('rx', {
        time: this.ctx.scheduler.now,
        netns: this.owner.name,
        dev: this.name,
        frame: pkt.frame(),
      });
    // __netif_receive_skb_core: taps, then nf_ingress, then the rx handler (a bridge port) or the protocols.
    const hooks = this.owner.deviceHooks;
    if (hooks != null) {
      const verdict = hooks.ingress(this, pkt);
      if (verdict === 'stolen') return;
      if (verdict === 'drop') {
        this.drop(pkt, 'NETFILTER_DROP');
        return;
      }
    }
    if (this.rxHandler !== null) this.rxHandler(this, pkt);
    else this.owner.deliver(this, pkt);
  }

  /** The bytes tx_bytes counts for a sent frame: all of it, for most drivers. */
  protected txLength(pkt: Packet): number {
    return pkt.length;
  }

  /** The bytes rx_bytes counts for a received frame: all of it, for most drivers. */
  protected rxLength(pkt: Packet): number {
    return pkt.length;
  }

  /** Sets the packet type from the destination MAC, as eth_type_trans does. */
  protected classify(pkt: Packet): void {
    if (pkt.length < 14) {
      pkt.pktType = PacketType.Host;
      return;
    }
    const dst = readMac(pkt.buf, pkt.start);
    if (dst === MAC_BROADCAST) pkt.pktType = PacketType.Broadcast;
    else if (isMulticastMac(dst)) pkt.pktType = PacketType.Multicast;
    else pkt.pktType = dst === this.mac ? PacketType.Host : PacketType.OtherHost;
  }

  private runTaps(pkt: Packet, direction: 'rx' | 'tx'): void {
    for (const tap of this.taps) tap(this, pkt, direction);
  }

  /** Drops a packet with a reason: the one place a device drop is reported. */
  drop(pkt: Packet, reason: DropReason): void {
    const bus = this.ctx.bus;
    if (TRACING && bus.wants.drop)
      bus.emit('drop', {
        time: this.ctx.scheduler.now,
        netns: this.owner.name,
        dev: this.name,
        reason,
        frame: pkt.frame(),
        networkOffset: -1,
        mark: pkt.mark,
      });
  }
}
