// A VXLAN device (drivers/net/vxlan/): Ethernet over UDP with a VNI, a static FDB of remote VTEPs as Flannel installs
// them, and an outer source port hashed from the inner flow; no learning, no multicast groups, no IPv6 underlay.

import type { Packet } from '../core/packet.ts';
import { TRACING } from '../core/trace.ts';
import type { Ipv4Addr, MacAddr } from '../wire/address.ts';
import { formatIpv4, readIpv4, readMac } from '../wire/address.ts';
import { readU16 } from '../wire/bytes.ts';
import { ETHERNET_HEADER_LEN, ETHERTYPE_IPV4 } from '../wire/ethernet.ts';
import { emitVxlan, VXLAN_HEADER_LEN, VXLAN_PORT_LINUX, VxlanView } from '../wire/vxlan.ts';
import { type DeviceOwner, type LinkContext, NetDevice } from './device.ts';
import { VxlanFdb } from './vxlan-fdb.ts';

/** Bytes VXLAN adds on an IPv4 underlay: outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8. */
export const VXLAN_OVERHEAD = 50;

export interface VxlanConfig {
  readonly vni: number;
  readonly local: Ipv4Addr | undefined;
  /** ifindex of the lower device (`dev eth0`), 0 for none. */
  readonly lowerIfindex: number;
  readonly dstPort: number;
  /** The source port range; [0, 0] means the namespace's ip_local_port_range (`srcport 0 0`). */
  readonly srcPortMin: number;
  readonly srcPortMax: number;
  readonly ttl: number;
  readonly learning: boolean;
  readonly udpChecksum: boolean;
  readonly ageingSeconds: number;
}

export const DEFAULT_VXLAN_CONFIG: Omit<VxlanConfig, 'vni'> = {
  local: undefined,
  lowerIfindex: 0,
  dstPort: VXLAN_PORT_LINUX,
  srcPortMin: 0,
  srcPortMax: 0,
  ttl: 0,
  learning: false,
  udpChecksum: true,
  ageingSeconds: 300,
};

/** What the device needs from its namespace's IP layer to send an encapsulated frame. */
export interface VxlanUnderlay {
  /**
   * Pushes UDP and IPv4 headers in front of the VXLAN header already in `pkt` and sends it
   * (udp_tunnel_xmit_skb → iptunnel_xmit). Returns false when there is no route.
   */
  sendEncapsulated(vxlan: Vxlan, pkt: Packet, remote: Ipv4Addr, srcPort: number, tos: number): boolean;
  /** The namespace's ip_local_port_range, for `srcport 0 0`. */
  localPortRange(): readonly [number, number];
}

export class Vxlan extends NetDevice {
  readonly kind = 'vxlan' as const;
  readonly config: VxlanConfig;
  /** Remote VTEP by inner destination MAC (`bridge fdb append MAC dev flannel.1 dst 172.18.0.3`). */
  readonly remotes = new VxlanFdb();
  /** Entries for `00:00:00:00:00:00`: where unknown or broadcast destinations go (head-end replication). */
  readonly defaultRemotes: Ipv4Addr[] = [];

  constructor(
    ctx: LinkContext,
    owner: DeviceOwner,
    ifindex: number,
    name: string,
    mac: MacAddr,
    mtu: number,
    config: VxlanConfig,
    private readonly underlay: VxlanUnderlay,
    private readonly hashSeed: number,
  ) {
    super(ctx, owner, ifindex, name, mac, mtu);
    this.config = config;
    this.header = { vni: config.vni };
  }

  /** The VXLAN header every frame gets (the VNI is fixed at creation). */
  private readonly header: { readonly vni: number };

  /** iptunnel_xmit counts the inner packet from its network header: the frame less its Ethernet header. */
  protected override txLength(pkt: Packet): number {
    return Math.max(pkt.length - ETHERNET_HEADER_LEN, 0);
  }

  /** vxlan_rcv counts skb->len after eth_type_trans pulled the inner Ethernet header. */
  protected override rxLength(pkt: Packet): number {
    return Math.max(pkt.length - ETHERNET_HEADER_LEN, 0);
  }

  /** vxlan_xmit: find the remote VTEP for the inner destination MAC, encapsulate, send over the underlay. */
  protected xmit(pkt: Packet): boolean {
    const dst = readMac(pkt.buf, pkt.start);
    const remote = this.remotes.get(dst);
    if (remote !== undefined) {
      this.xmitOne(pkt, remote, this.sourcePort(pkt), this.innerEcn(pkt));
      return true;
    }
    const targets = this.defaultRemotes;
    if (targets.length === 0) {
      // vxlan_xmit without a remote: counted as dropped, never as sent.
      this.stats.txDropped++;
      this.drop(pkt, 'NOT_SPECIFIED');
      return false;
    }
    const srcPort = this.sourcePort(pkt);
    const tos = this.innerEcn(pkt);
    for (let i = 0; i < targets.length; i++)
      this.xmitOne(i === targets.length - 1 ? pkt : pkt.clone(), targets[i]!, srcPort, tos);
    return true;
  }

  /** vxlan_xmit_one: the VXLAN header into the headroom, then the underlay's UDP and IPv4. */
  private xmitOne(pkt: Packet, remote: Ipv4Addr, srcPort: number, tos: number): void {
    // The detail string only when someone traces: this runs for every encapsulated frame.
    if (TRACING && this.ctx.bus.wants.step)
      this.step(pkt, 'vxlan_xmit_one', `remote ${formatIpv4(remote)} vni ${this.config.vni}`);
    pkt.push(VXLAN_HEADER_LEN);
    emitVxlan(this.header, VxlanView.unchecked(pkt.buf, pkt.start));
    if (!this.underlay.sendEncapsulated(this, pkt, remote, srcPort, tos)) {
      this.stats.txErrors++;
      this.drop(pkt, 'IP_OUTNOROUTES');
    }
  }

  /** vxlan_rcv after the UDP socket: check the header and VNI, strip it, receive the inner frame here. */
  receiveEncapsulated(pkt: Packet, vxlanOffset: number): void {
    const view = VxlanView.checked(
      pkt.end === pkt.buf.length ? pkt.buf : pkt.buf.subarray(0, pkt.end),
      vxlanOffset,
    );
    if (!(view instanceof VxlanView)) {
      this.stats.rxErrors++;
      this.drop(pkt, 'VXLAN_INVALID_HDR');
      return;
    }
    if (view.vni !== this.config.vni) {
      this.stats.rxDropped++;
      this.drop(pkt, 'VXLAN_VNI_NOT_FOUND');
      return;
    }
    pkt.start = vxlanOffset + VXLAN_HEADER_LEN;
    pkt.network = -1;
    if (pkt.length < ETHERNET_HEADER_LEN) {
      this.stats.rxErrors++;
      this.drop(pkt, 'PKT_TOO_SMALL');
      return;
    }
    // skb_scrub_packet(skb, xnet=false): the conntrack reference goes, the mark stays.
    pkt.ctIndex = -1;
    pkt.ctReply = false;
    pkt.ctInfo = 0;
    if (TRACING && this.ctx.bus.wants.step) this.step(pkt, 'vxlan_rcv', `vni ${view.vni}`);
    this.ctx.backlog.enqueue(this, pkt);
  }

  /**
   * udp_flow_src_port: a hash of the inner flow scaled into the port range. Linux hashes
   * with jhash and a per-boot secret; packetlab uses its own hash with a seeded secret, so
   * ports differ from a real host's but stay stable per flow and per seed.
   */
  private sourcePort(pkt: Packet): number {
    let min = this.config.srcPortMin;
    let max = this.config.srcPortMax;
    if (min === 0 && max === 0) {
      const range = this.underlay.localPortRange();
      min = range[0];
      max = range[1];
    }
    const hash = this.flowHash(pkt);
    return Math.floor((hash * (max - min)) / 0x1_0000_0000) + min;
  }

  /** A 32-bit hash of the inner IPv4 addresses, protocol and ports (or of the MACs for non-IP frames). */
  private flowHash(pkt: Packet): number {
    const buf = pkt.buf;
    const at = pkt.start;
    let h = this.hashSeed >>> 0;
    if (pkt.length >= ETHERNET_HEADER_LEN + 20 && readU16(buf, at + 12) === ETHERTYPE_IPV4) {
      const ip = at + ETHERNET_HEADER_LEN;
      const protocol = buf[ip + 9]!;
      h = mix(h, readIpv4(buf, ip + 12));
      h = mix(h, readIpv4(buf, ip + 16));
      h = mix(h, protocol);
      const l4 = ip + (buf[ip]! & 0xf) * 4;
      if ((protocol === 6 || protocol === 17) && l4 + 4 <= pkt.end)
        h = mix(h, (readU16(buf, l4) << 16) | readU16(buf, l4 + 2));
    } else {
      h = mix(h, readMac(buf, at) % 0x1_0000_0000);
      h = mix(h, readMac(buf, at + 6) % 0x1_0000_0000);
    }
    return h;
  }

  /** ip_tunnel_ecn_encap with tos 0: the outer header takes the inner ECN bits. */
  private innerEcn(pkt: Packet): number {
    if (pkt.length < ETHERNET_HEADER_LEN + 20 || readU16(pkt.buf, pkt.start + 12) !== ETHERTYPE_IPV4)
      return 0;
    return pkt.buf[pkt.start + ETHERNET_HEADER_LEN + 1]! & 3;
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

/** One round of the flow hash: multiply, then fold the high bits down. */
function mix(h: number, value: number): number {
  const m = Math.imul(h ^ value, 0x9e3779b1) >>> 0;
  return (m ^ (m >>> 15)) >>> 0;
}
