// The flowtable fast path (net/netfilter/nf_flow_table_core.c, nf_flow_table_ip.c, nft_flow_offload.c): `flow add
// @ft` in a forward chain offloads an established TCP or a UDP connection, both directions, with the route each
// takes; then nf_flow_offload_ip_hook, at the ingress of the flowtable's devices, forwards the connection's packets
// itself (TTL decremented, to the cached next hop), so they skip prerouting, forward and postrouting. A TCP FIN or
// RST tears the flow down (the packet and the rest go the normal way), and a flow idle for the flowtable timeout
// (nf_flowtable_tcp_timeout / nf_flowtable_udp_timeout, 30 s) leaves at the next garbage collection.
// While offloaded the conntrack entry shows [OFFLOAD] and is kept alive; when the flow leaves it gets the
// established TCP (or replied UDP) timeout back. Not modelled: NAT'd connections (not offloaded here), hardware
// offload, IPv6, PPPoE/VLAN encapsulation, `counter` on the flowtable, the timeouts' sysctls at teardown.

import type { Packet } from '../core/packet.ts';
import type { NetDevice } from '../link/device.ts';
import type { Conntrack } from './conntrack/conntrack.ts';
import type { Tuple } from './conntrack/tuple.ts';
import type { NetfilterHost } from './host.ts';
import type { Table } from './ir.ts';
import type { PacketState } from './packet-state.ts';

const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const IPS_SRC_NAT = 0x10;
const IPS_DST_NAT = 0x20;
const IPS_CONFIRMED = 0x08;
const TCP_CONNTRACK_ESTABLISHED = 3;
const TCP_FIN = 0x01;
const TCP_RST = 0x04;
/** nf_flowtable_tcp_timeout and nf_flowtable_udp_timeout (NF_FLOW_TIMEOUT), in ns. */
export const FLOW_TIMEOUT_NS = 30_000_000_000;
/** nf_conntrack_tcp_timeout_established and nf_conntrack_udp_timeout_stream at their defaults (not the sysctls). */
const TCP_ESTABLISHED_TIMEOUT_NS = 432_000_000_000_000;
const UDP_REPLIED_TIMEOUT_NS = 120_000_000_000;

/** What the fast path needs from the namespace: the route of an offloaded direction and a neighbour transmit. */
export interface FlowHost {
  /** The output device and next hop toward `dst` (nf_route), or undefined without a route. */
  route(dst: number, mark: number): { readonly oif: number; readonly nextHop: number } | undefined;
  /** neigh_xmit on `oif` to `nextHop`, the IPv4 packet at pkt.network (the Ethernet header is rebuilt). */
  transmit(pkt: Packet, oif: number, nextHop: number): void;
}

/** One direction of an offloaded flow (flow_offload_tuple): its key, and where its packets leave. */
interface FlowDirection {
  /** tupleHash of the fields below, the byTuple bucket it lives in. */
  readonly hash: number;
  readonly protocol: number;
  readonly src: number;
  readonly dst: number;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly iif: number;
  readonly oif: number;
  readonly nextHop: number;
  readonly mtu: number;
}

/** One offloaded connection (struct flow_offload). */
interface Flow {
  readonly flowtable: string;
  readonly ctIndex: number;
  readonly protocol: number;
  readonly directions: readonly [FlowDirection, FlowDirection];
  /** When it expires, in virtual ns (flow->timeout). */
  expires: number;
}

function u16(buf: Uint8Array, at: number): number {
  return (buf[at]! << 8) | buf[at + 1]!;
}

function u32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

/** A flowtable's identity across commits: `family table name`. */
export function flowtableId(table: Table, name: string): string {
  return `${table.family} ${table.name} ${name}`;
}

/** A 32-bit mix of a direction's tuple and input device (any well-mixed hash: buckets are compared in full). */
function tupleHash(
  protocol: number,
  src: number,
  dst: number,
  sport: number,
  dport: number,
  iif: number,
): number {
  let h = Math.imul(src ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ dst ^ (h >>> 15), 0xc2b2ae35);
  h = Math.imul(h ^ ((sport << 16) | dport) ^ (h >>> 13), 0x27d4eb2f);
  h = Math.imul(h ^ (protocol << 24) ^ iif ^ (h >>> 16), 0x165667b1);
  return (h ^ (h >>> 15)) >>> 0;
}

interface Slot {
  readonly flow: Flow;
  readonly dir: 0 | 1;
}

/** The offloaded flows of one namespace, by flowtable (keyed `family table name`). */
export class FlowOffloads {
  /** Direction keys to flows (the flowtable's rhashtable of tuples). */
  private readonly byTuple = new Map<number, Slot[]>();
  /** Conntrack entries with IPS_OFFLOAD set. */
  private readonly offloaded = new Set<number>();
  host: FlowHost | undefined;

  constructor(
    private readonly netfilterHost: NetfilterHost,
    private readonly conntrack: Conntrack,
  ) {}

  /** How many flows a flowtable holds (for tests and listings of the conntrack table's [OFFLOAD] flag). */
  size(flowtable: string): number {
    let n = 0;
    for (const slots of this.byTuple.values())
      for (const { flow, dir } of slots) if (dir === 0 && flow.flowtable === flowtable) n++;
    return n;
  }

  /** Whether the packet's conntrack entry is offloaded (IPS_OFFLOAD, conntrack -L's [OFFLOAD]). */
  isOffloaded(ctIndex: number): boolean {
    return this.offloaded.has(ctIndex);
  }

  /**
   * nft_flow_offload_eval: offloads the packet's connection; false (NFT_BREAK, the rule ends) when it cannot:
   * no conntrack, not TCP or UDP, a TCP FIN or RST or a connection not established, not confirmed, NAT'd (not
   * modelled), already offloaded, or no route for a direction.
   */
  offload(state: PacketState, table: Table, name: string): boolean {
    const pkt = state.pkt;
    const ct = this.conntrack;
    const flowtable = table.flowtables?.find((candidate) => candidate.name === name);
    const id = flowtableId(table, name);
    const host = this.host;
    if (flowtable === undefined || host === undefined || pkt.ctIndex < 0) return false;
    const index = pkt.ctIndex;
    const protocol = ct.protocol(index);
    const { buf, network } = pkt;
    const l4 = network + (buf[network]! & 0x0f) * 4;
    if (protocol === IPPROTO_TCP) {
      if (l4 + 14 > pkt.end) return false;
      const flags = buf[l4 + 13]!;
      if ((flags & (TCP_FIN | TCP_RST)) !== 0 || ct.tcpState(index) !== TCP_CONNTRACK_ESTABLISHED)
        return false;
    } else if (protocol !== IPPROTO_UDP) return false;
    const status = ct.status(index);
    if ((status & IPS_CONFIRMED) === 0 || (status & (IPS_SRC_NAT | IPS_DST_NAT)) !== 0) return false;
    if (this.offloaded.has(index)) return false;
    const original = ct.tuple(index, 0);
    const reply = ct.tuple(index, 1);
    const there = host.route(original.dst, pkt.mark);
    const back = host.route(reply.dst, pkt.mark);
    const inDev = state.inDev;
    const outDev = state.outDev;
    if (there === undefined || back === undefined || inDev === undefined || outDev === undefined)
      return false;
    // The packet's direction decides which device is which (CTINFO2DIR): the reply comes in on the out device.
    const fromOriginal = !pkt.ctReply;
    const originalIif = fromOriginal ? inDev : outDev;
    const replyIif = fromOriginal ? outDev : inDev;
    const flow: Flow = {
      flowtable: id,
      ctIndex: index,
      protocol,
      directions: [
        this.direction(original, originalIif, there.oif, there.nextHop, fromOriginal ? outDev : inDev),
        this.direction(reply, replyIif, back.oif, back.nextHop, fromOriginal ? inDev : outDev),
      ],
      expires: this.netfilterHost.now() + FLOW_TIMEOUT_NS,
    };
    for (const dir of [0, 1] as const) {
      const hash = flow.directions[dir].hash;
      const slots = this.byTuple.get(hash);
      if (slots === undefined) this.byTuple.set(hash, [{ flow, dir }]);
      else slots.push({ flow, dir });
    }
    this.offloaded.add(index);
    ct.setOffloaded(index, true, this.netfilterHost.now(), 0);
    return true;
  }

  private direction(
    tuple: Tuple,
    iif: NetDevice,
    oif: number,
    nextHop: number,
    out: NetDevice,
  ): FlowDirection {
    return {
      hash: tupleHash(tuple.protocol, tuple.src, tuple.dst, tuple.srcPort, tuple.dstPort, iif.ifindex),
      protocol: tuple.protocol,
      src: tuple.src,
      dst: tuple.dst,
      srcPort: tuple.srcPort,
      dstPort: tuple.dstPort,
      iif: iif.ifindex,
      oif,
      nextHop,
      mtu: out.mtu,
    };
  }

  /**
   * nf_flow_offload_ip_hook at the ingress of a flowtable device: true when the fast path took the frame (the
   * stack never sees it), false to let it go the normal way.
   */
  fastPath(id: string, dev: NetDevice, pkt: Packet): boolean {
    const host = this.host;
    if (host === undefined || this.byTuple.size === 0) return false;
    const { buf } = pkt;
    const ip = pkt.start + 14;
    // nf_flow_tuple_ip: IPv4 without options, not a fragment, with a TCP or UDP header.
    if (pkt.end < ip + 20 || u16(buf, pkt.start + 12) !== 0x0800 || buf[ip] !== 0x45) return false;
    if ((u16(buf, ip + 6) & 0x3fff) !== 0) return false;
    const protocol = buf[ip + 9]!;
    if (protocol !== IPPROTO_TCP && protocol !== IPPROTO_UDP) return false;
    const l4 = ip + 20;
    if (pkt.end < l4 + (protocol === IPPROTO_TCP ? 20 : 8)) return false;
    const src = u32(buf, ip + 12);
    const dst = u32(buf, ip + 16);
    const srcPort = u16(buf, l4);
    const dstPort = u16(buf, l4 + 2);
    const slots = this.byTuple.get(tupleHash(protocol, src, dst, srcPort, dstPort, dev.ifindex));
    if (slots === undefined) return false;
    let found: Slot | undefined;
    for (const slot of slots) {
      const d = slot.flow.directions[slot.dir];
      if (
        slot.flow.flowtable === id &&
        d.iif === dev.ifindex &&
        d.protocol === protocol &&
        d.src === src &&
        d.dst === dst &&
        d.srcPort === srcPort &&
        d.dstPort === dstPort
      ) {
        found = slot;
        break;
      }
    }
    if (found === undefined) return false;
    const { flow, dir } = found;
    const now = this.netfilterHost.now();
    if (now >= flow.expires) {
      this.teardown(flow);
      return false;
    }
    const direction = flow.directions[dir];
    // nf_flow_exceeds_mtu: a packet too big goes the slow way (and its ICMP error).
    if (u16(buf, ip + 2) > direction.mtu) return false;
    // nf_flow_state_check: a FIN or RST ends the flow; this packet goes through the stack.
    if (protocol === IPPROTO_TCP && (buf[l4 + 13]! & (TCP_FIN | TCP_RST)) !== 0) {
      this.teardown(flow);
      return false;
    }
    // nf_flow_offload_ip_hook: TTL expiring here goes the slow way too (ip_forward sends the ICMP error).
    if (buf[ip + 8]! <= 1) return false;
    flow.expires = now + FLOW_TIMEOUT_NS;
    // nf_flow_offload_gc_step keeps the entry alive while the flow is (nf_ct_offload_timeout).
    this.conntrack.setOffloaded(flow.ctIndex, true, now, 0);
    // ip_decrease_ttl: TTL - 1 and the RFC 1624 checksum update of the TTL/protocol word.
    buf[ip + 8] = buf[ip + 8]! - 1;
    let sum = u16(buf, ip + 10) + 0x0100;
    sum = (sum & 0xffff) + (sum >>> 16);
    buf[ip + 10] = sum >>> 8;
    buf[ip + 11] = sum & 0xff;
    pkt.start = ip;
    pkt.network = ip;
    host.transmit(pkt, direction.oif, direction.nextHop);
    return true;
  }

  /** flow_offload_teardown: the flow leaves the flowtable, the connection is no longer offloaded. */
  private teardown(flow: Flow): void {
    for (const direction of flow.directions) {
      const slots = this.byTuple.get(direction.hash);
      if (slots === undefined) continue;
      const rest = slots.filter((slot) => slot.flow !== flow);
      if (rest.length === 0) this.byTuple.delete(direction.hash);
      else this.byTuple.set(direction.hash, rest);
    }
    this.offloaded.delete(flow.ctIndex);
    // flow_offload_fixup_ct: the established TCP timeout, or UDP's replied (stream) one.
    const timeout = flow.protocol === IPPROTO_TCP ? TCP_ESTABLISHED_TIMEOUT_NS : UDP_REPLIED_TIMEOUT_NS;
    this.conntrack.setOffloaded(flow.ctIndex, false, this.netfilterHost.now(), timeout);
  }

  /** The flowtables of a commit: flows of a flowtable that no longer exists go (nf_flow_table_free). */
  prune(names: ReadonlySet<string>): void {
    const flows = new Set<Flow>();
    for (const slots of this.byTuple.values()) for (const { flow } of slots) flows.add(flow);
    for (const flow of flows) if (!names.has(flow.flowtable)) this.teardown(flow);
  }
}
