// The per-hook evaluation context: the packet, the hook and devices, the host services and the conntrack table;
// one object per namespace, reset for every hook run so evaluation allocates nothing.

import type { Packet } from '../core/packet.ts';
import type { NetDevice } from '../link/device.ts';
import { type Conntrack, ctStateBits } from './conntrack/conntrack.ts';
import { createTuple } from './conntrack/tuple.ts';
import type { FlowOffloads } from './flowtable.ts';
import type { NetfilterHost } from './host.ts';
import type { Family, HookName } from './ir.ts';

export class PacketState {
  pkt!: Packet;
  hook: HookName = 'prerouting';
  inDev: NetDevice | undefined;
  outDev: NetDevice | undefined;
  /** skb->protocol: the EtherType of the packet (IPv4 at the IP hooks; the frame's own in bridge and netdev). */
  l2Protocol = 0x0800;
  /** The family of the chain being run (family-hooks.ts sets the bridge, netdev and arp ones). */
  family: Family = 'ip';
  /** Where skb->data is when it is not the network header (netdev egress, arp output: the Ethernet header); else -1. */
  lengthFrom = -1;
  /** Where the frame's Ethernet header starts, set by the bridge and netdev hooks; -1: 14 bytes before network. */
  linkOffset = -1;
  /** The namespace's flowtables, for `flow add @ft` (flowtable.ts); undefined where none can be reached. */
  flows: FlowOffloads | undefined;
  /** Reused by ct tuple reads. */
  readonly scratchTuple = createTuple();

  constructor(
    readonly host: NetfilterHost,
    readonly conntrack: Conntrack | undefined,
  ) {}

  reset(pkt: Packet, hook: HookName, inDev: NetDevice | undefined, outDev: NetDevice | undefined): void {
    this.pkt = pkt;
    this.hook = hook;
    this.inDev = inDev;
    this.outDev = outDev;
    this.l2Protocol = 0x0800;
    this.linkOffset = -1;
    this.family = 'ip';
    this.lengthFrom = -1;
  }

  /** nft's ct state bits for the packet (invalid when conntrack saw nothing valid). */
  ctStateBits(): number {
    return ctStateBits(this.pkt);
  }

  /** The length nft counters count: skb->len, from the network header at the IP hooks. */
  get length(): number {
    return this.pkt.end - (this.lengthFrom >= 0 ? this.lengthFrom : this.pkt.network);
  }
}
