// ARP for IPv4 over Ethernet (net/ipv4/arp.c): answering requests for local addresses, learning, and soliciting for
// the neighbour table; no proxy ARP, no arp_filter, arp_ignore/arp_announce at their default 0 only.

import { type Packet, PacketType } from '../core/packet.ts';
import type { NetDevice } from '../link/device.ts';
import { type Ipv4Addr, MAC_BROADCAST, type MacAddr, writeMac } from '../wire/address.ts';
import { ARP_LEN, ARP_OP_REPLY, ARP_OP_REQUEST, ArpView, emitArp } from '../wire/arp.ts';
import { writeU16 } from '../wire/bytes.ts';
import { ETHERNET_HEADER_LEN, ETHERTYPE_ARP } from '../wire/ethernet.ts';
import { Ipv4View } from '../wire/ipv4.ts';
import type { Ipv4Stack } from './ipv4.ts';
import type { Neighbour, NeighbourOps } from './neighbour.ts';

export class Arp implements NeighbourOps {
  constructor(private readonly stack: Ipv4Stack) {}

  /** arp_rcv → arp_process. */
  receive(dev: NetDevice, pkt: Packet): void {
    const view = ArpView.checked(pkt.buf.subarray(0, pkt.end), pkt.start + ETHERNET_HEADER_LEN);
    if (!(view instanceof ArpView)) {
      this.stack.drop(pkt, 'PKT_TOO_SMALL', dev);
      return;
    }
    if (dev.kind === 'loopback') return;
    // arp_rcv: NF_HOOK(NFPROTO_ARP, NF_ARP_IN, ..., arp_process).
    if (!this.hook('input', pkt, dev, undefined)) return;
    const op = view.operation;
    const senderIp = view.senderIp;
    const senderMac = view.senderMac;
    const targetIp = view.targetIp;
    if (op !== ARP_OP_REQUEST && op !== ARP_OP_REPLY) {
      this.stack.drop(pkt, 'NOT_SPECIFIED', dev);
      return;
    }
    this.stack.step(pkt, 'arp_process', dev, op === ARP_OP_REQUEST ? 'request' : 'reply');
    const neighbours = this.stack.neighbours;
    // A request for one of our addresses (inet_addr_type == RTN_LOCAL: any interface, arp_ignore=0).
    if (op === ARP_OP_REQUEST && this.stack.addresses.isLocal(targetIp) && senderIp !== 0) {
      neighbours.update(dev.ifindex, senderIp, senderMac, { solicited: false, create: true });
      this.send(dev, ARP_OP_REPLY, senderMac, targetIp, senderMac, senderIp);
      return;
    }
    // Anything else may only refresh an existing entry (arp_accept=0); a reply addressed to us confirms it.
    const solicited = op === ARP_OP_REPLY && pkt.pktType === PacketType.Host;
    neighbours.update(dev.ifindex, senderIp, senderMac, { solicited, create: false });
  }

  /** arp_solicit: the request's source address is that of the packet waiting when it is local (arp_announce=0). */
  solicit(neigh: Neighbour, unicastTo: MacAddr | undefined, trigger: Packet | undefined): void {
    const dev = this.stack.interfaces.byIndex(neigh.ifindex);
    if (dev === undefined) return;
    let src: Ipv4Addr | undefined;
    if (trigger !== undefined && trigger.network >= 0) {
      const candidate = Ipv4View.unchecked(trigger.buf, trigger.network).srcAddr;
      if (this.stack.addresses.isLocal(candidate)) src = candidate;
    }
    src ??= this.stack.addresses.select(dev.ifindex, neigh.addr, 'link') ?? 0;
    this.send(dev, ARP_OP_REQUEST, unicastTo ?? MAC_BROADCAST, src, 0, neigh.addr);
  }

  output(neigh: Neighbour, pkt: Packet): void {
    const dev = this.stack.interfaces.byIndex(neigh.ifindex);
    if (dev === undefined) return;
    this.stack.transmitTo(pkt, dev, neigh.lladdr ?? MAC_BROADCAST);
  }

  /** neigh_invalidate → arp_error_report → ipv4_link_failure: host unreachable back to the sender. */
  failed(neigh: Neighbour, pkt: Packet): void {
    const dev = this.stack.interfaces.byIndex(neigh.ifindex);
    this.stack.icmp.sendError(pkt, 3, 1, 0);
    this.stack.drop(pkt, 'NEIGH_FAILED', dev);
  }

  /** __neigh_event_send: kfree_skb_reason(NEIGH_QUEUEFULL) for the oldest packet beyond unres_qlen_bytes. */
  discarded(neigh: Neighbour, pkt: Packet): void {
    this.stack.drop(pkt, 'NEIGH_QUEUEFULL', this.stack.interfaces.byIndex(neigh.ifindex));
  }

  /** arp_create + arp_xmit: a 42-byte frame (no padding: veths and bridges do not pad). */
  private send(
    dev: NetDevice,
    op: number,
    ethDst: MacAddr,
    senderIp: Ipv4Addr,
    targetMac: MacAddr,
    targetIp: Ipv4Addr,
  ): void {
    const pkt = this.allocate();
    writeMac(pkt.buf, pkt.start, ethDst);
    writeMac(pkt.buf, pkt.start + 6, dev.mac);
    writeU16(pkt.buf, pkt.start + 12, ETHERTYPE_ARP);
    emitArp(
      { operation: op, senderMac: dev.mac, senderIp, targetMac, targetIp },
      ArpView.unchecked(pkt.buf, pkt.start + ETHERNET_HEADER_LEN),
    );
    // arp_xmit: NF_HOOK(NFPROTO_ARP, NF_ARP_OUT, ..., arp_xmit_finish).
    if (!this.hook('output', pkt, undefined, dev)) return;
    dev.transmit(pkt);
  }

  /** The arp family's chains (netfilter/family-hooks.ts) with the network header at the ARP header. */
  private hook(
    hook: 'input' | 'output',
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
  ): boolean {
    const netfilter = this.stack.netfilter;
    if (netfilter?.arp === undefined) return true;
    const saved = pkt.network;
    pkt.network = pkt.start + ETHERNET_HEADER_LEN;
    const accepted = netfilter.arp(hook, pkt, inDev, outDev);
    pkt.network = saved;
    if (!accepted) this.stack.drop(pkt, 'NETFILTER_DROP', inDev ?? outDev);
    return accepted;
  }

  private allocate(): Packet {
    return this.stack.allocatePacket(ETHERNET_HEADER_LEN + ARP_LEN);
  }
}
