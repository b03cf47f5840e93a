// NAT test helpers: a fake NetfilterHost on a seeded Rng, nat statements as the front ends build them, the NAT hooks run the way nf_nat_inet_fn runs them, a router's trip (PREROUTING → POSTROUTING → confirm), and checksum checks through the wire views.

import type { Packet } from '../../../src/core/packet.ts';
import { Rng } from '../../../src/core/rng.ts';
import {
  Conntrack,
  IP_CT_NEW,
  IP_CT_RELATED,
  IP_CT_RELATED_REPLY,
} from '../../../src/netfilter/conntrack/conntrack.ts';
import type { AddressType, NetfilterHost } from '../../../src/netfilter/host.ts';
import type { NatFlags, RejectWith } from '../../../src/netfilter/ir.ts';
import { hookManip, Nat, type NatExpr, type NatHook } from '../../../src/netfilter/nat/nat.ts';
import { Icmpv4View } from '../../../src/wire/icmpv4.ts';
import { IPPROTO_ICMP, IPPROTO_TCP, Ipv4View } from '../../../src/wire/ipv4.ts';
import { TcpView } from '../../../src/wire/tcp.ts';
import { IPPROTO_UDP, UdpView } from '../../../src/wire/udp.ts';
import { ip } from '../../support/packets.ts';

export const SEC = 1_000_000_000;

export class FakeHost implements NetfilterHost {
  readonly rng: Rng;
  readonly logs: string[] = [];
  readonly netnsInum = 4026532096;
  /** oif → MASQUERADE address. */
  readonly masquerade = new Map<number, number>();
  /** iif → primary address (REDIRECT). */
  readonly primary = new Map<number, number>();
  clock = 0;

  constructor(seed: string | number) {
    this.rng = new Rng(seed);
  }

  now(): number {
    return this.clock;
  }
  ifname(ifindex: number): string | undefined {
    return `eth${ifindex}`;
  }
  addressType(_addr: number): AddressType {
    return 'unicast';
  }
  masqueradeAddress(oif: number, _dst: number): number | undefined {
    return this.masquerade.get(oif);
  }
  redirectAddress(iif: number): number | undefined {
    return this.primary.get(iif);
  }
  reject(_pkt: Packet, _how: RejectWith, _hook: string): void {}
  log(line: string): void {
    this.logs.push(line);
  }
}

export interface Lab {
  readonly host: FakeHost;
  readonly ct: Conntrack;
  readonly nat: Nat;
}

export function lab(seed: string | number = 'lesson'): Lab {
  const host = new FakeHost(seed);
  const ct = new Conntrack();
  return { host, ct, nat: new Nat(ct, host) };
}

const NO_FLAGS: NatFlags = { random: false, fullyRandom: false, persistent: false };

/** "10.0.0.1", "10.0.0.1-10.0.0.9", ":8000", "10.0.0.1:8000-8010" as the `to` of snat/dnat. */
function parseTo(to: string): NatExpr['range'] {
  const colon = to.indexOf(':');
  const addrs = colon < 0 ? to : to.slice(0, colon);
  const ports = colon < 0 ? '' : to.slice(colon + 1);
  const [addrLow, addrHigh] = addrs === '' ? [undefined, undefined] : addrs.split('-').map((a) => ip(a));
  const [portLow, portHigh] = ports === '' ? [undefined, undefined] : ports.split('-').map(Number);
  return { addrLow, addrHigh, portLow, portHigh };
}

export function snat(to: string, flags: Partial<NatFlags> = {}): NatExpr {
  return { kind: 'nat', type: 'snat', range: parseTo(to), flags: { ...NO_FLAGS, ...flags } };
}

export function dnat(to: string, flags: Partial<NatFlags> = {}): NatExpr {
  return { kind: 'nat', type: 'dnat', range: parseTo(to), flags: { ...NO_FLAGS, ...flags } };
}

export function masquerade(flags: Partial<NatFlags> = {}, ports = ''): NatExpr {
  return { kind: 'nat', type: 'masquerade', range: parseTo(ports), flags: { ...NO_FLAGS, ...flags } };
}

export function redirect(ports = ''): NatExpr {
  return { kind: 'nat', type: 'redirect', range: parseTo(ports), flags: NO_FLAGS };
}

export interface HookDevices {
  readonly iif?: number;
  readonly oif?: number;
}

/**
 * One NAT hook as nf_nat_inet_fn runs it for a connection's first packet: the rule (if any),
 * else a null binding; then nf_nat_packet. Returns the verdict.
 */
export function natHook(
  l: Lab,
  pkt: Packet,
  hook: NatHook,
  rule: NatExpr | undefined,
  devices: HookDevices = {},
): 'accept' | 'drop' {
  const { nat, host } = l;
  const manip = hookManip(hook);
  const now = host.clock;
  const info = pkt.ctInfo;
  if (pkt.ctIndex >= 0 && (info === IP_CT_NEW || info === IP_CT_RELATED || info === IP_CT_RELATED_REPLY)) {
    if (!nat.isInitialized(pkt, manip)) {
      if (rule !== undefined) {
        const verdict = nat.setup(pkt, rule, manip, devices.iif ?? 0, devices.oif ?? 0, now);
        if (verdict === 'drop') return 'drop';
      }
      if (!nat.isInitialized(pkt, manip)) nat.nullBinding(pkt, manip, now);
    }
  }
  return nat.apply(pkt, hook, now);
}

export interface RouterRules {
  readonly prerouting?: NatExpr;
  readonly postrouting?: NatExpr;
  readonly iif?: number;
  readonly oif?: number;
}

/** What became of a packet forwarded through the router. */
export type TripResult = 'accept' | 'nat-drop' | 'CONNTRACK_INSERT_FAILED' | 'CONNTRACK_TABLE_FULL';

/** A forwarded packet: conntrack at PREROUTING, NAT at PREROUTING and POSTROUTING, confirm. */
export function forward(l: Lab, pkt: Packet, rules: RouterRules = {}): TripResult {
  const now = l.host.clock;
  const processed = l.ct.process(pkt, 'PREROUTING', now);
  if (processed !== 'accept') return processed;
  const devices = { iif: rules.iif ?? 1, oif: rules.oif ?? 2 };
  if (natHook(l, pkt, 'prerouting', rules.prerouting, devices) === 'drop') {
    l.ct.abandon(pkt);
    return 'nat-drop';
  }
  if (natHook(l, pkt, 'postrouting', rules.postrouting, devices) === 'drop') {
    l.ct.abandon(pkt);
    return 'nat-drop';
  }
  return l.ct.confirm(pkt, now);
}

/** The packet's addresses and ports as "src:sport > dst:dport" (ICMP: "src > dst id N"). */
export function flow(pkt: Packet): string {
  const view = Ipv4View.unchecked(pkt.buf, pkt.network);
  const src = addr(view.srcAddr);
  const dst = addr(view.dstAddr);
  const l4 = pkt.network + view.headerLen;
  if (view.protocol === IPPROTO_ICMP) {
    return `${src} > ${dst} icmp ${pkt.buf[l4]} id ${(pkt.buf[l4 + 4]! << 8) | pkt.buf[l4 + 5]!}`;
  }
  const sport = (pkt.buf[l4]! << 8) | pkt.buf[l4 + 1]!;
  const dport = (pkt.buf[l4 + 2]! << 8) | pkt.buf[l4 + 3]!;
  return `${src}:${sport} > ${dst}:${dport}`;
}

export function addr(value: number): string {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

/** The datagram's bytes, from its network header to its end. */
export function datagram(pkt: Packet): Uint8Array {
  return pkt.buf.slice(pkt.network, pkt.end);
}

/**
 * Every checksum of an IPv4 datagram, verified through the wire views: the IPv4 header, then
 * TCP/UDP over the pseudo-header, or the whole ICMP message; for an ICMP error also the quoted
 * IPv4 header, and the quoted TCP/UDP checksum when the whole segment is quoted. Returns the
 * names of the checksums that fail.
 */
export function badChecksums(bytes: Uint8Array): string[] {
  const bad: string[] = [];
  const outer = Ipv4View.checked(bytes);
  if (!(outer instanceof Ipv4View)) return ['ipv4-parse'];
  if (!outer.verifyChecksum()) bad.push('ipv4');
  const payload = outer.payload();
  const pseudo = { srcAddr: outer.srcAddr, dstAddr: outer.dstAddr };
  switch (outer.protocol) {
    case IPPROTO_TCP: {
      const tcp = TcpView.checked(payload);
      if (!(tcp instanceof TcpView) || !tcp.verifyChecksum(pseudo)) bad.push('tcp');
      break;
    }
    case IPPROTO_UDP: {
      const udp = UdpView.checked(payload);
      if (!(udp instanceof UdpView) || !udp.verifyChecksum(pseudo)) bad.push('udp');
      break;
    }
    case IPPROTO_ICMP: {
      const icmp = Icmpv4View.checked(payload);
      if (!(icmp instanceof Icmpv4View)) return [...bad, 'icmp-parse'];
      if (!icmp.verifyChecksum()) bad.push('icmp');
      if (icmp.type === 3 || icmp.type === 11) {
        const inner = Ipv4View.checkedHeader(icmp.quoted());
        if (!(inner instanceof Ipv4View)) return [...bad, 'inner-ipv4-parse'];
        if (!inner.verifyChecksum()) bad.push('inner-ipv4');
        const innerPseudo = { srcAddr: inner.srcAddr, dstAddr: inner.dstAddr };
        const quotedL4 = icmp.quoted().subarray(inner.headerLen);
        const wholeSegment = quotedL4.length >= inner.totalLen - inner.headerLen;
        if (wholeSegment && inner.protocol === IPPROTO_TCP) {
          const tcp = TcpView.checked(quotedL4.subarray(0, inner.totalLen - inner.headerLen));
          if (!(tcp instanceof TcpView) || !tcp.verifyChecksum(innerPseudo)) bad.push('inner-tcp');
        }
        if (wholeSegment && inner.protocol === IPPROTO_UDP) {
          const udp = UdpView.checked(quotedL4);
          if (!(udp instanceof UdpView) || !udp.verifyChecksum(innerPseudo)) bad.push('inner-udp');
        }
      }
      break;
    }
  }
  return bad;
}
