// A veth pair: what one end transmits, the other end receives, across namespaces (drivers/net/veth.c); no XDP, no GRO.

import type { Packet } from '../core/packet.ts';
import type { MacAddr } from '../wire/address.ts';
import { type DeviceOwner, type LinkContext, NetDevice } from './device.ts';

/** Largest frame a device accepts beyond its MTU: the Ethernet header plus one VLAN tag (is_skb_forwardable). */
const ETH_HARD_HEADER_WITH_VLAN = 18;

export class Veth extends NetDevice {
  readonly kind = 'veth' as const;
  peer: Veth | null = null;

  /** Creates both ends; `ifindexOf(end)` lets each end's namespace number it. */
  static pair(
    ctx: LinkContext,
    a: { owner: DeviceOwner; ifindex: number; name: string; mac: MacAddr; mtu: number },
    b: { owner: DeviceOwner; ifindex: number; name: string; mac: MacAddr; mtu: number },
  ): [Veth, Veth] {
    const first = new Veth(ctx, a.owner, a.ifindex, a.name, a.mac, a.mtu);
    const second = new Veth(ctx, b.owner, b.ifindex, b.name, b.mac, b.mtu);
    first.peer = second;
    second.peer = first;
    // veth_newlink turns the carrier off on both ends of a registered device: one change each.
    first.stats.carrierChanges = 1;
    second.stats.carrierChanges = 1;
    return [first, second];
  }

  protected override hasCarrier(): boolean {
    return this.peer?.adminUp === true;
  }

  protected override readonly initialCarrier = false;

  /** veth_open turns the carrier on at both ends once both are up; veth_close turns both off. */
  protected override driverCarrier(): boolean {
    return this.adminUp && this.peer?.adminUp === true;
  }

  /**
   * veth_xmit: hand the frame to the peer's backlog. A frame too big for the peer is dropped by
   * __dev_forward_skb (is_skb_forwardable), which counts it in the peer's rx_dropped; veth_xmit
   * then counts it in this end's tx_dropped (priv->dropped), and not as transmitted.
   */
  protected xmit(pkt: Packet): boolean {
    const peer = this.peer!;
    if (pkt.length > peer.mtu + ETH_HARD_HEADER_WITH_VLAN) {
      peer.stats.rxDropped++;
      this.stats.txDropped++;
      peer.drop(pkt, 'PKT_TOO_BIG');
      return false;
    }
    // skb_scrub_packet → skb_ext_reset: br_netfilter's state never crosses a veth.
    pkt.brPrerouted = false;
    pkt.brDnatPort = 0;
    if (peer.owner !== this.owner) scrubAcrossNamespaces(pkt);
    this.ctx.backlog.enqueue(peer, pkt);
    return true;
  }
}

/** skb_scrub_packet(skb, xnet=true): crossing namespaces forgets the mark and the conntrack reference. */
function scrubAcrossNamespaces(pkt: Packet): void {
  pkt.mark = 0;
  pkt.ctIndex = -1;
  pkt.ctReply = false;
  pkt.ctInfo = 0;
}
