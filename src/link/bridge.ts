// A Linux bridge (net/bridge/): ports, MAC learning with ageing, flooding, local delivery, hairpin, an MTU that follows its
// ports, promiscuous local_rcv, and the br_netfilter and nftables bridge-family hooks injected from above; no STP, no
// VLAN filtering.

import { type Packet, PacketType } from '../core/packet.ts';
import { TRACING } from '../core/trace.ts';
import { isMulticastMac, type MacAddr, readMac, writeMac } from '../wire/address.ts';
import { type DeviceOwner, type LinkContext, NetDevice } from './device.ts';
import { Fdb } from './fdb.ts';

/**
 * Called for frames the bridge forwards between ports, when br_netfilter is on
 * (`net.bridge.bridge-nf-call-iptables=1`); returns false to drop. Injected by the layer
 * above so link/ does not import netfilter/.
 */
export type BridgeForwardHook = (
  bridge: Bridge,
  pkt: Packet,
  inPort: NetDevice,
  outPort: NetDevice,
) => boolean;

/**
 * br_netfilter's NF_BR_PRE_ROUTING hook for a frame entering from a port: 'continue' bridges it
 * (to whatever its destination MAC now is), 'up' passes it to the host, 'drop' and 'taken'
 * (the hook sent it on itself) end it here.
 */
export type BridgePreRoutingHook = (
  bridge: Bridge,
  pkt: Packet,
  inPort: NetDevice,
) => 'continue' | 'up' | 'drop' | 'taken';

/**
 * Where the bridge runs nftables' bridge-family chains (NF_HOOK(NFPROTO_BRIDGE, ...)): prerouting in br_handle_frame,
 * input in br_pass_frame_up, forward (or output, for frames the host sends) in __br_forward, postrouting in
 * br_forward_finish. br_netfilter sits at priority 0 of prerouting and forward: `-late` runs the chains above it.
 */
export type BridgeHookPoint =
  | 'prerouting'
  | 'prerouting-late'
  | 'input'
  | 'forward'
  | 'forward-late'
  | 'output'
  | 'postrouting';

/** The nftables bridge family's hooks (netfilter/family-hooks.ts), injected: false drops the frame. */
export type BridgeNftHook = (
  point: BridgeHookPoint,
  pkt: Packet,
  inDev: NetDevice | undefined,
  outDev: NetDevice | undefined,
) => boolean;

export class Bridge extends NetDevice {
  readonly kind = 'bridge' as const;
  readonly fdb = new Fdb();
  readonly ports = new Map<number, NetDevice>();
  readonly hairpin = new Set<number>();
  forwardHook: BridgeForwardHook | null = null;
  preRoutingHook: BridgePreRoutingHook | null = null;
  nftHook: BridgeNftHook | null = null;
  /** br_netfilter's POSTROUTING (br_nf_post_routing), after the bridge family's postrouting chains. */
  postRoutingHook: BridgeForwardHook | null = null;
  /** `ip link set BR mtu N` was used: the MTU no longer follows the ports (BROPT_MTU_SET_BY_USER). */
  mtuSetByUser = false;
  private readonly handleFrame = (port: NetDevice, pkt: Packet): void => this.input(port, pkt);

  constructor(ctx: LinkContext, owner: DeviceOwner, ifindex: number, name: string, mac: MacAddr, mtu = 1500) {
    super(ctx, owner, ifindex, name, mac, mtu);
    this.fdb.install(mac, ifindex, { local: true });
  }

  /** A bridge has carrier when at least one port is up (br_port_carrier_check); with no port it is NO-CARRIER. */
  /**
   * br_port_state_selection turns the carrier on when a port is up and off when none is; a new bridge starts with
   * it on (LOWER_UP even without ports on Linux 6.18) and only port events change it: carrier_changes counts those.
   */
  protected override driverCarrier(): boolean {
    if (this.ports.size === 0) return this.carrierFlag ?? true;
    for (const port of this.ports.values()) if (port.operUp) return true;
    return false;
  }

  protected override hasCarrier(): boolean {
    if (this.ports.size === 0) return false;
    for (const port of this.ports.values()) if (port.operUp) return true;
    return false;
  }

  /** br_pass_frame_up counts skb->len after eth_type_trans pulled the Ethernet header. */
  protected override rxLength(pkt: Packet): number {
    return Math.max(pkt.length - 14, 0);
  }

  /** br_add_if: enslave `port`; its MAC becomes a local entry and its frames come to the bridge. */
  addPort(port: NetDevice): void {
    this.ports.set(port.ifindex, port);
    port.masterIndex = this.ifindex;
    port.rxHandler = this.handleFrame;
    port.promiscuity++;
    this.fdb.install(port.mac, port.ifindex, { local: true });
    this.autoAdjustMtu();
    this.syncCarrier();
  }

  /** br_mtu_auto_adjust: the smallest port MTU (1500 without ports), unless the user set one. */
  autoAdjustMtu(): void {
    if (this.mtuSetByUser) return;
    let mtu = 0;
    for (const port of this.ports.values()) if (mtu === 0 || port.mtu < mtu) mtu = port.mtu;
    this.mtu = mtu === 0 ? 1500 : mtu;
  }

  /** br_del_if. */
  removePort(port: NetDevice): void {
    this.ports.delete(port.ifindex);
    this.hairpin.delete(port.ifindex);
    port.masterIndex = 0;
    port.rxHandler = null;
    port.promiscuity--;
    this.fdb.flushPort(port.ifindex);
    this.autoAdjustMtu();
    this.syncCarrier();
  }

  setHairpin(port: NetDevice, on: boolean): void {
    if (on) this.hairpin.add(port.ifindex);
    else this.hairpin.delete(port.ifindex);
  }

  /**
   * br_handle_frame_finish: learn the source, then deliver locally, forward, or flood. A
   * promiscuous bridge device (a capture on it) also receives a copy of every frame it forwards
   * or floods (local_rcv), which goes no further than its taps: not for this host, ip_rcv drops it.
   */
  private input(port: NetDevice, pkt: Packet): void {
    const now = this.ctx.scheduler.now;
    if (pkt.length < 14) {
      this.drop(pkt, 'PKT_TOO_SMALL');
      return;
    }
    const src = readMac(pkt.buf, pkt.start + 6);
    if (isMulticastMac(src)) {
      // A group address as source is invalid (br_handle_frame: !is_valid_ether_addr).
      this.drop(pkt, 'MAC_INVALID_SOURCE');
      return;
    }
    // br_handle_frame: a frame for the bridge's own address is for this host, whatever the port made of it.
    if (readMac(pkt.buf, pkt.start) === this.mac) pkt.pktType = PacketType.Host;
    this.step(pkt, 'br_handle_frame', port.name);
    // NF_BR_PRE_ROUTING runs before br_handle_frame_finish learns the source: a dropped frame teaches nothing.
    if (!this.nft('prerouting', pkt, port, undefined)) return;
    this.fdb.learn(src, port.ifindex, now);
    if (this.preRoutingHook !== null) {
      const verdict = this.preRoutingHook(this, pkt, port);
      if (verdict === 'drop' || verdict === 'taken') return;
      if (verdict === 'up') {
        if (this.nft('prerouting-late', pkt, port, undefined)) this.passUp(pkt, port);
        return;
      }
    }
    if (!this.nft('prerouting-late', pkt, port, undefined)) return;
    this.deliverFrom(port, pkt, now);
  }

  /** One nftables bridge hook; a drop is counted here (NF_DROP in NF_HOOK). */
  private nft(
    point: BridgeHookPoint,
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
  ): boolean {
    if (this.nftHook === null || this.nftHook(point, pkt, inDev, outDev)) return true;
    this.drop(pkt, 'NETFILTER_DROP');
    return false;
  }

  /** The rest of br_handle_frame_finish: local delivery, forwarding or flooding of a frame from `port`. */
  private deliverFrom(port: NetDevice, pkt: Packet, now: number): void {
    if (pkt.pktType === PacketType.Broadcast || pkt.pktType === PacketType.Multicast) {
      this.flood(pkt, port);
      this.passUp(pkt, port);
      return;
    }
    const dst = readMac(pkt.buf, pkt.start);
    const entry = this.fdb.lookup(dst, now);
    if (entry?.local) {
      this.passUp(pkt, port);
      return;
    }
    const out = entry === undefined ? undefined : this.ports.get(entry.port);
    const localRcv = this.promiscuity > 0;
    if (out === undefined) this.flood(pkt, port);
    else this.forward(localRcv ? pkt.clone() : pkt, port, out);
    if (localRcv) this.receive(pkt);
  }

  /**
   * br_pass_frame_up: the frame is received again, on the bridge device itself, with the packet type its port
   * gave it (eth_type_trans against the port's address) or br_handle_frame set: a frame for the ingress port's
   * own MAC is for this host, one for another port's MAC is not (ip_rcv drops it), as on Linux.
   */
  private passUp(pkt: Packet, port: NetDevice): void {
    // NF_BR_LOCAL_IN, with the port as the input device.
    if (!this.nft('input', pkt, port, undefined)) return;
    this.receive(pkt);
  }

  /** The bridge device receives only frames a port already classified (br_pass_frame_up does not run eth_type_trans). */
  protected override classify(_pkt: Packet): void {}

  /** br_forward: to one port, unless it is the ingress port without hairpin mode (should_deliver). */
  private forward(pkt: Packet, inPort: NetDevice, out: NetDevice): void {
    if (out === inPort && !this.hairpin.has(out.ifindex)) return;
    if (!this.nft('forward', pkt, inPort, out)) return;
    if (this.forwardHook !== null && !this.forwardHook(this, pkt, inPort, out)) return;
    if (!this.nft('forward-late', pkt, inPort, out) || !this.nft('postrouting', pkt, undefined, out)) return;
    if (this.postRoutingHook !== null && !this.postRoutingHook(this, pkt, inPort, out)) return;
    this.step(pkt, 'br_forward', out.name);
    out.transmit(pkt);
  }

  /** __br_forward for a frame the host sends (local_orig): NF_BR_LOCAL_OUT from the bridge, then postrouting. */
  private localOut(pkt: Packet, out: NetDevice): boolean {
    return this.nft('output', pkt, this, out) && this.nft('postrouting', pkt, undefined, out);
  }

  /** br_flood: a copy to every other port that is up; `inPort` null when the host itself sends. */
  private flood(pkt: Packet, inPort: NetDevice | null): void {
    this.step(pkt, 'br_flood', inPort?.name ?? this.name);
    for (const out of this.ports.values()) {
      if (!out.operUp) continue;
      if (inPort === null) {
        const copy = pkt.clone();
        if (this.localOut(copy, out)) out.transmit(copy);
      } else this.forward(pkt.clone(), inPort, out);
    }
  }

  /** br_dev_xmit: the host sends through the bridge: to the port behind the destination MAC, or flooded. */
  protected xmit(pkt: Packet): boolean {
    if (pkt.brDnatPort !== 0) {
      // br_nf_dev_xmit → br_nf_pre_routing_finish_bridge_slow: a DNATed frame whose neighbour was just
      // resolved goes on being bridged from the port it came in on, with its own source MAC; not counted here.
      const port = this.ports.get(pkt.brDnatPort);
      writeMac(pkt.buf, pkt.start + 6, pkt.brDnatSrcMac);
      pkt.brDnatPort = 0;
      if (port !== undefined) this.deliverFrom(port, pkt, this.ctx.scheduler.now);
      return false;
    }
    const dst = readMac(pkt.buf, pkt.start);
    const entry = this.fdb.lookup(dst, this.ctx.scheduler.now);
    const out = entry === undefined || entry.local ? undefined : this.ports.get(entry.port);
    if (out === undefined) {
      this.flood(pkt, null);
      return true;
    }
    this.step(pkt, 'br_dev_xmit', out.name);
    if (this.localOut(pkt, out)) out.transmit(pkt);
    // br_dev_xmit counts every frame as sent before forwarding it; a port's drop is the port's.
    return true;
  }

  private step(pkt: Packet, step: string, detail: string): void {
    const bus = this.ctx.bus;
    if (TRACING && bus.wants.step)
      bus.emit('step', {
        time: this.ctx.scheduler.now,
        netns: this.owner.name,
        dev: this.name,
        step,
        detail,
        frame: pkt.frame(),
        networkOffset: -1,
        mark: pkt.mark,
      });
  }
}
