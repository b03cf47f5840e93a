// Test frame builders over the wire emitters (every checksum computed by wire/), and the all-frame-types capture the printer and real-tool tests share.

import type { Rng } from '../../src/core/rng.ts';
import { type Ipv4Addr, type MacAddr, parseIpv4, parseMac } from '../../src/wire/address.ts';
import { ARP_LEN, ARP_OP_REPLY, ARP_OP_REQUEST, ArpView, emitArp } from '../../src/wire/arp.ts';
import {
  ETHERTYPE_ARP,
  ETHERTYPE_IPV4,
  EthernetView,
  emitEthernet,
  ethernetHeaderLen,
  type VlanTag,
} from '../../src/wire/ethernet.ts';
import {
  emitIcmpv4,
  ICMPV4_EXC_TTL,
  ICMPV4_FRAG_NEEDED,
  ICMPV4_PORT_UNREACH,
  type Icmpv4Repr,
  Icmpv4View,
  icmpv4Len,
} from '../../src/wire/icmpv4.ts';
import { emitIpv4, IPPROTO_ICMP, IPPROTO_TCP, Ipv4View, ipv4HeaderLen } from '../../src/wire/ipv4.ts';
import {
  emitProxyV2,
  PROXY_TRANSPORT_STREAM,
  ProxyV2View,
  proxyV2HeaderLen,
} from '../../src/wire/proxy-v2.ts';
import {
  ARPHRD_ETHER,
  emitSll2,
  PACKET_BROADCAST,
  PACKET_HOST,
  PACKET_OUTGOING,
  SLL2_HEADER_LEN,
  Sll2View,
} from '../../src/wire/sll2.ts';
import { emitTcp, type TcpFlags, type TcpOption, TcpView, tcpHeaderLen } from '../../src/wire/tcp.ts';
import { emitUdp, IPPROTO_UDP, UDP_HEADER_LEN, UdpView } from '../../src/wire/udp.ts';
import {
  emitVxlan,
  VXLAN_HEADER_LEN,
  VXLAN_PORT_IANA,
  VXLAN_PORT_LINUX,
  VxlanView,
} from '../../src/wire/vxlan.ts';

export function ip(text: string): Ipv4Addr {
  const addr = parseIpv4(text);
  if (addr === undefined) throw new Error(`bad IPv4 address ${text}`);
  return addr;
}

export function mac(text: string): MacAddr {
  const addr = parseMac(text);
  if (addr === undefined) throw new Error(`bad MAC address ${text}`);
  return addr;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export interface Ipv4Options {
  readonly src: Ipv4Addr;
  readonly dst: Ipv4Addr;
  readonly protocol: number;
  readonly ttl?: number;
  readonly ident?: number;
  readonly dontFragment?: boolean;
  readonly moreFragments?: boolean;
  /** In bytes, a multiple of 8. */
  readonly fragmentOffset?: number;
  readonly dscp?: number;
}

/** An IPv4 packet around `payload`, header checksum filled by emitIpv4. */
export function ipv4(options: Ipv4Options, payload: Uint8Array): Uint8Array {
  const repr = {
    srcAddr: options.src,
    dstAddr: options.dst,
    protocol: options.protocol,
    ttl: options.ttl ?? 64,
    ident: options.ident ?? 0,
    dontFragment: options.dontFragment ?? true,
    moreFragments: options.moreFragments ?? false,
    fragmentOffset: options.fragmentOffset ?? 0,
    dscp: options.dscp ?? 0,
    ecn: 0,
    payloadLen: payload.length,
    options: new Uint8Array(0),
  };
  const headerLen = ipv4HeaderLen(repr);
  const packet = new Uint8Array(headerLen + payload.length);
  packet.set(payload, headerLen);
  emitIpv4(repr, Ipv4View.unchecked(packet));
  return packet;
}

const NO_FLAGS: TcpFlags = {
  fin: false,
  syn: false,
  rst: false,
  psh: false,
  ack: false,
  urg: false,
  ece: false,
  cwr: false,
};

export interface TcpOptions {
  readonly src: Ipv4Addr;
  readonly dst: Ipv4Addr;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly seq: number;
  readonly ack?: number;
  readonly flags: Partial<TcpFlags>;
  readonly window?: number;
  readonly options?: readonly TcpOption[];
  readonly payload?: Uint8Array;
  readonly ident?: number;
  readonly ttl?: number;
}

/** A TCP segment (checksum over the pseudo-header) as its bytes, without the IPv4 header. */
export function tcpSegment(options: TcpOptions): Uint8Array {
  const payload = options.payload ?? new Uint8Array(0);
  const repr = {
    srcPort: options.srcPort,
    dstPort: options.dstPort,
    seqNumber: options.seq >>> 0,
    ackNumber: (options.ack ?? 0) >>> 0,
    flags: { ...NO_FLAGS, ...options.flags },
    window: options.window ?? 64240,
    urgentPointer: 0,
    options: options.options ?? [],
    payloadLen: payload.length,
  };
  const headerLen = tcpHeaderLen(repr);
  const segment = new Uint8Array(headerLen + payload.length);
  segment.set(payload, headerLen);
  emitTcp(repr, TcpView.unchecked(segment), { srcAddr: options.src, dstAddr: options.dst });
  return segment;
}

/** An IPv4/TCP packet. */
export function tcp(options: TcpOptions): Uint8Array {
  return ipv4(
    {
      src: options.src,
      dst: options.dst,
      protocol: IPPROTO_TCP,
      ...(options.ident === undefined ? {} : { ident: options.ident }),
      ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
    },
    tcpSegment(options),
  );
}

/** Linux's SYN options: mss, sackOK, timestamps, nop, wscale. */
export function linuxSynOptions(mss: number, tsVal: number, tsEcr = 0, wscale = 7): TcpOption[] {
  return [
    { type: 'mss', mss },
    { type: 'sack-permitted' },
    { type: 'timestamps', tsVal, tsEcr },
    { type: 'nop' },
    { type: 'window-scale', shift: wscale },
  ];
}

/** The timestamps option as Linux aligns it on established segments: nop, nop, TS. */
export function linuxTsOptions(tsVal: number, tsEcr: number): TcpOption[] {
  return [{ type: 'nop' }, { type: 'nop' }, { type: 'timestamps', tsVal, tsEcr }];
}

export interface UdpOptions {
  readonly src: Ipv4Addr;
  readonly dst: Ipv4Addr;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly payload: Uint8Array;
  readonly ident?: number;
  /** False sends checksum 0 ("none"), as the kernel's VXLAN transmit does by default. */
  readonly checksum?: boolean;
}

/** A UDP datagram (header + payload), checksummed unless asked not to. */
export function udpDatagram(options: UdpOptions): Uint8Array {
  const datagram = new Uint8Array(UDP_HEADER_LEN + options.payload.length);
  datagram.set(options.payload, UDP_HEADER_LEN);
  const pseudo = options.checksum === false ? undefined : { srcAddr: options.src, dstAddr: options.dst };
  emitUdp(
    { srcPort: options.srcPort, dstPort: options.dstPort, payloadLen: options.payload.length },
    UdpView.unchecked(datagram),
    pseudo,
  );
  return datagram;
}

/** An IPv4/UDP packet. */
export function udp(options: UdpOptions): Uint8Array {
  return ipv4(
    {
      src: options.src,
      dst: options.dst,
      protocol: IPPROTO_UDP,
      ...(options.ident === undefined ? {} : { ident: options.ident }),
    },
    udpDatagram(options),
  );
}

/** An ICMPv4 message (checksum filled by emitIcmpv4), without the IPv4 header. */
export function icmpMessage(repr: Icmpv4Repr): Uint8Array {
  const message = new Uint8Array(icmpv4Len(repr));
  emitIcmpv4(repr, Icmpv4View.unchecked(message));
  return message;
}

/** An IPv4/ICMP packet. */
export function icmp(
  options: { src: Ipv4Addr; dst: Ipv4Addr; ident?: number },
  repr: Icmpv4Repr,
): Uint8Array {
  return ipv4(
    {
      src: options.src,
      dst: options.dst,
      protocol: IPPROTO_ICMP,
      dontFragment: repr.kind === 'echo-request' || repr.kind === 'echo-reply',
      ...(options.ident === undefined ? {} : { ident: options.ident }),
    },
    icmpMessage(repr),
  );
}

/**
 * What an ICMP error quotes, as icmp_send builds it: the offending packet cut so the whole
 * error stays within 576 bytes (20 IPv4 + 8 ICMP + 548 quoted).
 */
export function quote(packet: Uint8Array): Uint8Array {
  return packet.slice(0, Math.min(packet.length, 576 - 20 - 8));
}

export interface EthernetOptions {
  readonly dst: MacAddr;
  readonly src: MacAddr;
  readonly ethertype: number;
  readonly vlan?: VlanTag;
  /** Zero-pad the frame to the 60-byte Ethernet minimum, as a frame received from a wire is. */
  readonly pad?: boolean;
}

export function ethernet(options: EthernetOptions, payload: Uint8Array): Uint8Array {
  const repr = {
    dstAddr: options.dst,
    srcAddr: options.src,
    ethertype: options.ethertype,
    ...(options.vlan === undefined ? {} : { vlan: options.vlan }),
  };
  const headerLen = ethernetHeaderLen(repr);
  const length = Math.max(headerLen + payload.length, options.pad === true ? 60 : 0);
  const frame = new Uint8Array(length);
  frame.set(payload, headerLen);
  emitEthernet(repr, EthernetView.unchecked(frame));
  return frame;
}

export interface ArpOptions {
  readonly operation: 'request' | 'reply';
  readonly senderMac: MacAddr;
  readonly senderIp: Ipv4Addr;
  readonly targetMac: MacAddr;
  readonly targetIp: Ipv4Addr;
}

/** A 28-byte Ethernet/IPv4 ARP packet. */
export function arp(options: ArpOptions): Uint8Array {
  const packet = new Uint8Array(ARP_LEN);
  emitArp(
    {
      operation: options.operation === 'request' ? ARP_OP_REQUEST : ARP_OP_REPLY,
      senderMac: options.senderMac,
      senderIp: options.senderIp,
      targetMac: options.targetMac,
      targetIp: options.targetIp,
    },
    ArpView.unchecked(packet),
  );
  return packet;
}

export interface VxlanOptions {
  readonly src: Ipv4Addr;
  readonly dst: Ipv4Addr;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly vni: number;
  readonly ident?: number;
}

/** An outer IPv4/UDP/VXLAN packet carrying `inner` (an Ethernet frame); UDP checksum 0, as Linux sends it. */
export function vxlan(options: VxlanOptions, inner: Uint8Array): Uint8Array {
  const payload = new Uint8Array(VXLAN_HEADER_LEN + inner.length);
  payload.set(inner, VXLAN_HEADER_LEN);
  emitVxlan({ vni: options.vni }, VxlanView.unchecked(payload));
  return udp({ ...options, payload, checksum: false });
}

/** A PROXY v2 header for a proxied TCP (AF_INET) stream, followed by `stream`. */
export function proxyV2(
  addresses: { src: Ipv4Addr; dst: Ipv4Addr; srcPort: number; dstPort: number },
  stream: Uint8Array,
): Uint8Array {
  const repr = {
    command: 'proxy' as const,
    transport: PROXY_TRANSPORT_STREAM,
    addresses: {
      type: 'ipv4' as const,
      srcAddr: addresses.src,
      dstAddr: addresses.dst,
      srcPort: addresses.srcPort,
      dstPort: addresses.dstPort,
    },
    tlvs: [],
  };
  const headerLen = proxyV2HeaderLen(repr);
  const bytes = new Uint8Array(headerLen + stream.length);
  bytes.set(stream, headerLen);
  emitProxyV2(repr, ProxyV2View.unchecked(bytes));
  return bytes;
}

export type Direction = 'in' | 'out' | 'broadcast';

export interface Sll2Options {
  readonly ifIndex: number;
  readonly direction: Direction;
}

/**
 * The SLL2 form of an Ethernet frame, as `tcpdump -i any` stores it: the Ethernet header
 * becomes the 20-byte cooked header (protocol, ifindex, ARPHRD_ETHER, packet type, source MAC);
 * an 802.1Q tag stays in front of the payload with protocol 0x8100, as libpcap reinserts it.
 */
export function toSll2(frame: Uint8Array, options: Sll2Options): Uint8Array {
  const eth = EthernetView.unchecked(frame);
  const body = frame.subarray(eth.tagged ? 14 : eth.headerLen);
  const out = new Uint8Array(SLL2_HEADER_LEN + body.length);
  out.set(body, SLL2_HEADER_LEN);
  const srcMac = new Uint8Array(6);
  srcMac.set(frame.subarray(6, 12));
  emitSll2(
    {
      protocol: eth.outerEthertype,
      ifIndex: options.ifIndex,
      hatype: ARPHRD_ETHER,
      packetType:
        options.direction === 'out'
          ? PACKET_OUTGOING
          : options.direction === 'broadcast'
            ? PACKET_BROADCAST
            : PACKET_HOST,
      addrLen: 6,
      addr: srcMac,
    },
    Sll2View.unchecked(out),
  );
  return out;
}

/** The addresses, ports and bytes the all-frame-types capture is built from. */
export interface FrameParams {
  readonly podMacA: MacAddr;
  readonly podMacB: MacAddr;
  readonly nodeMacA: MacAddr;
  readonly nodeMacB: MacAddr;
  readonly podA: Ipv4Addr;
  readonly podB: Ipv4Addr;
  readonly gatewayA: Ipv4Addr;
  readonly gatewayB: Ipv4Addr;
  readonly nodeA: Ipv4Addr;
  readonly nodeB: Ipv4Addr;
  readonly serviceIp: Ipv4Addr;
  readonly dnsIp: Ipv4Addr;
  readonly clientPort: number;
  readonly servicePort: number;
  readonly tunnelPort: number;
  readonly isn: number;
  readonly serverIsn: number;
  readonly tsVal: number;
  readonly ipId: number;
  readonly payload: Uint8Array;
}

export const DEFAULT_PARAMS: FrameParams = {
  podMacA: mac('0a:58:0a:f4:01:05'),
  podMacB: mac('0a:58:0a:f4:02:07'),
  nodeMacA: mac('02:42:ac:12:00:02'),
  nodeMacB: mac('02:42:ac:12:00:03'),
  podA: ip('10.244.1.5'),
  podB: ip('10.244.2.7'),
  gatewayA: ip('10.244.1.1'),
  gatewayB: ip('10.244.2.1'),
  nodeA: ip('172.18.0.2'),
  nodeB: ip('172.18.0.3'),
  serviceIp: ip('10.96.40.12'),
  dnsIp: ip('10.96.0.10'),
  clientPort: 41234,
  servicePort: 80,
  tunnelPort: 54321,
  isn: 1,
  serverIsn: 3_000_000_000,
  tsVal: 1,
  ipId: 0x1c46,
  payload: new TextEncoder().encode('GET / HTTP/1.1\r\nHost: web\r\n\r\n'),
};

/** Frame parameters drawn from `rng`: same stream, same parameters. */
export function randomParams(rng: Rng): FrameParams {
  const podIp = (subnet: number) => ip(`10.244.${subnet}.${rng.intBetween(2, 254)}`);
  const randomMac = () => 0x0a58_0000_0000 + rng.u32();
  const subnetA = rng.intBetween(0, 127);
  const subnetB = rng.intBetween(128, 255);
  return {
    podMacA: randomMac(),
    podMacB: randomMac(),
    nodeMacA: 0x0242_0000_0000 + rng.u32(),
    nodeMacB: 0x0242_0000_0000 + rng.u32(),
    podA: podIp(subnetA),
    podB: podIp(subnetB),
    gatewayA: ip(`10.244.${subnetA}.1`),
    gatewayB: ip(`10.244.${subnetB}.1`),
    nodeA: ip(`172.18.0.${rng.intBetween(2, 127)}`),
    nodeB: ip(`172.18.0.${rng.intBetween(128, 254)}`),
    serviceIp: ip(`10.96.${rng.intBetween(0, 255)}.${rng.intBetween(1, 254)}`),
    dnsIp: ip('10.96.0.10'),
    // Ephemeral and NodePort ranges: no port there that tcpdump decodes an application protocol on.
    clientPort: rng.intBetween(32768, 49151),
    servicePort: rng.intBetween(30000, 32767),
    tunnelPort: rng.intBetween(32768, 49151),
    isn: rng.u32(),
    serverIsn: rng.u32(),
    tsVal: rng.u32(),
    ipId: rng.intBetween(0, 0xffff),
    payload: rng.bytes(rng.intBetween(1, 200)),
  };
}

/** One frame of the sample capture, in Ethernet form, with where an `-i any` capture would have seen it. */
export interface SampleFrame {
  readonly name: string;
  readonly frame: Uint8Array;
  readonly sll2: Sll2Options;
}

const ETHERTYPE_UNKNOWN = 0x88b5; // IEEE 802 local experimental EtherType 1
const IPPROTO_UNKNOWN = 253; // RFC 3692 experimentation

/**
 * Every frame type the printer knows, in one conversation-shaped list: ARP, ICMP echo and
 * errors, UDP, a TCP handshake and data (one carrying a PROXY v2 header), VXLAN on both
 * ports, an IPv4 fragment pair, an 802.1Q tag, an unknown EtherType and IP protocol.
 */
export function sampleFrames(params: FrameParams = DEFAULT_PARAMS): SampleFrame[] {
  const p = params;
  const broadcast = mac('ff:ff:ff:ff:ff:ff');
  const toB = { dst: p.podMacB, src: p.podMacA, ethertype: ETHERTYPE_IPV4 };
  const toA = { dst: p.podMacA, src: p.podMacB, ethertype: ETHERTYPE_IPV4 };
  const out = (ifIndex: number): Sll2Options => ({ ifIndex, direction: 'out' });
  const inn = (ifIndex: number): Sll2Options => ({ ifIndex, direction: 'in' });
  const frames: SampleFrame[] = [];
  const add = (name: string, frame: Uint8Array, sll2: Sll2Options) => frames.push({ name, frame, sll2 });

  add(
    'ARP request',
    ethernet(
      { dst: broadcast, src: p.podMacA, ethertype: ETHERTYPE_ARP },
      arp({
        operation: 'request',
        senderMac: p.podMacA,
        senderIp: p.podA,
        targetMac: 0,
        targetIp: p.gatewayA,
      }),
    ),
    { ifIndex: 1, direction: 'broadcast' },
  );
  add(
    'ARP reply',
    ethernet(
      { dst: p.podMacA, src: p.podMacB, ethertype: ETHERTYPE_ARP, pad: true },
      arp({
        operation: 'reply',
        senderMac: p.podMacB,
        senderIp: p.gatewayA,
        targetMac: p.podMacA,
        targetIp: p.podA,
      }),
    ),
    inn(1),
  );

  const echoData = new Uint8Array(56).map((_, i) => (p.payload[i % p.payload.length]! + i) & 0xff);
  add(
    'ICMP echo request',
    ethernet(
      toB,
      icmp(
        { src: p.podA, dst: p.podB, ident: p.ipId },
        { kind: 'echo-request', ident: 1, seqNo: 1, data: echoData },
      ),
    ),
    out(4),
  );
  add(
    'ICMP echo reply',
    ethernet(
      toA,
      icmp(
        { src: p.podB, dst: p.podA, ident: p.ipId + 1 },
        { kind: 'echo-reply', ident: 1, seqNo: 1, data: echoData },
      ),
    ),
    inn(4),
  );

  add(
    'UDP DNS-port datagram',
    ethernet(
      toB,
      udp({
        src: p.podA,
        dst: p.dnsIp,
        srcPort: p.clientPort,
        dstPort: 5353 + 1,
        payload: p.payload,
        ident: p.ipId + 2,
      }),
    ),
    out(4),
  );

  // A handshake and two data segments: tcpdump prints the later ones with relative numbers.
  const conn = { src: p.podA, dst: p.serviceIp, srcPort: p.clientPort, dstPort: p.servicePort };
  const back = { src: p.serviceIp, dst: p.podA, srcPort: p.servicePort, dstPort: p.clientPort };
  add(
    'TCP SYN',
    ethernet(
      toB,
      tcp({ ...conn, seq: p.isn, flags: { syn: true }, options: linuxSynOptions(1460, p.tsVal) }),
    ),
    out(4),
  );
  add(
    'TCP SYN-ACK',
    ethernet(
      toA,
      tcp({
        ...back,
        seq: p.serverIsn,
        ack: p.isn + 1,
        flags: { syn: true, ack: true },
        window: 65160,
        options: linuxSynOptions(1410, p.tsVal + 7, p.tsVal),
      }),
    ),
    inn(4),
  );
  add(
    'TCP ACK',
    ethernet(
      toB,
      tcp({
        ...conn,
        seq: p.isn + 1,
        ack: p.serverIsn + 1,
        flags: { ack: true },
        window: 502,
        options: linuxTsOptions(p.tsVal + 8, p.tsVal + 7),
      }),
    ),
    out(4),
  );
  const proxied = proxyV2(
    { src: p.podA, dst: p.serviceIp, srcPort: p.clientPort, dstPort: p.servicePort },
    p.payload,
  );
  add(
    'TCP data with PSH (PROXY v2 + request)',
    ethernet(
      toB,
      tcp({
        ...conn,
        seq: p.isn + 1,
        ack: p.serverIsn + 1,
        flags: { ack: true, psh: true },
        window: 502,
        options: linuxTsOptions(p.tsVal + 9, p.tsVal + 7),
        payload: proxied,
      }),
    ),
    out(4),
  );
  add(
    'TCP FIN',
    ethernet(
      toA,
      tcp({
        ...back,
        seq: p.serverIsn + 1,
        ack: p.isn + 1 + proxied.length,
        flags: { ack: true, fin: true },
        window: 509,
        options: linuxTsOptions(p.tsVal + 20, p.tsVal + 9),
      }),
    ),
    inn(4),
  );

  // A full-size segment the next hop cannot carry, and the router's answer quoting it.
  const bigSegment = tcp({
    ...conn,
    seq: p.isn + 1,
    ack: p.serverIsn + 1,
    flags: { ack: true },
    options: linuxTsOptions(p.tsVal + 30, p.tsVal + 20),
    payload: new Uint8Array(1448).fill(0x61),
    ident: p.ipId + 3,
  });
  add(
    'ICMP frag needed quoting TCP',
    ethernet(
      toA,
      icmp(
        { src: p.gatewayB, dst: p.podA, ident: p.ipId + 4 },
        { kind: 'dest-unreachable', code: ICMPV4_FRAG_NEEDED, nextHopMtu: 1450, quoted: quote(bigSegment) },
      ),
    ),
    inn(4),
  );
  const dnsQuery = udp({
    src: p.podA,
    dst: p.dnsIp,
    srcPort: p.clientPort,
    dstPort: 53,
    payload: p.payload,
    ident: p.ipId + 5,
  });
  add(
    'ICMP port unreachable quoting UDP',
    ethernet(
      toA,
      icmp(
        { src: p.dnsIp, dst: p.podA, ident: p.ipId + 6 },
        { kind: 'dest-unreachable', code: ICMPV4_PORT_UNREACH, nextHopMtu: 0, quoted: quote(dnsQuery) },
      ),
    ),
    inn(4),
  );
  const probe = udp({
    src: p.podA,
    dst: p.podB,
    srcPort: p.clientPort,
    dstPort: 33434,
    payload: p.payload,
    ident: p.ipId + 7,
  });
  add(
    'ICMP time exceeded',
    ethernet(
      toA,
      icmp(
        { src: p.gatewayA, dst: p.podA, ident: p.ipId + 8 },
        { kind: 'time-exceeded', code: ICMPV4_EXC_TTL, quoted: quote(probe) },
      ),
    ),
    inn(4),
  );

  // The pod-to-pod segment in flannel's tunnel (8472) and the same in an IANA-port tunnel.
  const innerSegment = ethernet(
    toB,
    tcp({
      ...conn,
      dst: p.podB,
      seq: p.isn + 100,
      flags: { syn: true },
      options: linuxSynOptions(1410, p.tsVal + 40),
    }),
  );
  const tunnel = { src: p.nodeA, dst: p.nodeB, srcPort: p.tunnelPort, vni: 1 };
  const nodeFrame = { dst: p.nodeMacB, src: p.nodeMacA, ethertype: ETHERTYPE_IPV4 };
  add(
    'VXLAN 8472 with inner TCP',
    ethernet(nodeFrame, vxlan({ ...tunnel, dstPort: VXLAN_PORT_LINUX, ident: p.ipId + 9 }, innerSegment)),
    out(2),
  );
  add(
    'VXLAN 4789 with inner TCP',
    ethernet(
      nodeFrame,
      vxlan({ ...tunnel, dstPort: VXLAN_PORT_IANA, vni: 4096, ident: p.ipId + 10 }, innerSegment),
    ),
    out(2),
  );

  // One UDP datagram of 2000 bytes, cut at 1480 like ip_fragment does for a 1500 MTU.
  const whole = udpDatagram({
    src: p.podA,
    dst: p.podB,
    srcPort: p.clientPort,
    dstPort: 8000,
    payload: new Uint8Array(2000 - UDP_HEADER_LEN).map((_, i) => p.payload[i % p.payload.length]!),
  });
  const fragment = {
    src: p.podA,
    dst: p.podB,
    protocol: IPPROTO_UDP,
    ident: p.ipId + 11,
    dontFragment: false,
  };
  add(
    'IPv4 first fragment',
    ethernet(toB, ipv4({ ...fragment, moreFragments: true }, whole.subarray(0, 1480))),
    out(4),
  );
  add(
    'IPv4 last fragment',
    ethernet(toB, ipv4({ ...fragment, fragmentOffset: 1480 }, whole.subarray(1480))),
    out(4),
  );

  add(
    '802.1Q tagged UDP',
    ethernet(
      { ...toB, vlan: { pcp: 5, dei: false, vid: 100 } },
      udp({ src: p.podA, dst: p.podB, srcPort: p.clientPort, dstPort: 8000, payload: p.payload }),
    ),
    out(4),
  );
  add(
    'unknown EtherType',
    ethernet({ dst: p.podMacB, src: p.podMacA, ethertype: ETHERTYPE_UNKNOWN }, concat(p.payload, p.payload)),
    out(4),
  );
  add(
    'unknown IP protocol',
    ethernet(
      toB,
      ipv4({ src: p.podA, dst: p.podB, protocol: IPPROTO_UNKNOWN, ident: p.ipId + 12 }, p.payload),
    ),
    out(4),
  );
  return frames;
}
