// The packet `packetlab trace` sends, as the user writes it: `tcp 203.0.113.7:5555 > 172.18.0.2:30080 in eth0`,
// `udp A:P > B:Q in DEV`, `icmp A > B in DEV` (an echo request), or `... out` (sent by a local process); and its
// bytes: a TCP SYN (window 64240, no options), a UDP datagram with 8 bytes of payload, or an echo request, all with
// TTL 64 and DF set. Not supported: IPv6, TCP flags other than SYN, payloads, marks or a source socket's options.

import { formatIpv4, type Ipv4Addr, type MacAddr, parseIpv4 } from '../wire/address.ts';
import { ETHERTYPE_IPV4, EthernetView, emitEthernet, ethernetHeaderLen } from '../wire/ethernet.ts';
import { emitIcmpv4, Icmpv4View, icmpv4Len } from '../wire/icmpv4.ts';
import { emitIpv4, IPPROTO_ICMP, IPPROTO_TCP, Ipv4View, ipv4HeaderLen } from '../wire/ipv4.ts';
import { emitTcp, NO_TCP_FLAGS, TCP_HEADER_LEN, TcpView } from '../wire/tcp.ts';
import { emitUdp, IPPROTO_UDP, UDP_HEADER_LEN, UdpView } from '../wire/udp.ts';

export type TraceProtocol = 'tcp' | 'udp' | 'icmp';

export interface PacketSpec {
  readonly protocol: TraceProtocol;
  readonly src: Ipv4Addr;
  readonly srcPort: number;
  readonly dst: Ipv4Addr;
  readonly dstPort: number;
  /** `in DEV`: received on that interface; `out`: sent by a local process. */
  readonly direction: { readonly kind: 'in'; readonly dev: string } | { readonly kind: 'out' };
}

export const PACKET_SPEC_USAGE =
  "expected 'tcp|udp SRC:PORT > DST:PORT in IFACE', 'icmp SRC > DST in IFACE', or the same ending in 'out'";

function endpoint(text: string, withPort: boolean): { addr: Ipv4Addr; port: number } | string {
  const colon = text.lastIndexOf(':');
  const addrText = withPort ? text.slice(0, colon) : text;
  if (withPort && colon < 0) return `'${text}' needs a port (ADDRESS:PORT)`;
  const addr = parseIpv4(addrText);
  if (addr === undefined) return `'${addrText}' is not an IPv4 address`;
  if (!withPort) return { addr, port: 0 };
  const portText = text.slice(colon + 1);
  const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : -1;
  if (port < 0 || port > 65535) return `'${portText}' is not a port (0-65535)`;
  return { addr, port };
}

/** Reads the packet's description; an error says what was expected. */
export function parsePacketSpec(text: string): PacketSpec | { readonly error: string } {
  const words = text.trim().split(/\s+/);
  const [protocol, from, arrow, to, where, dev, ...rest] = words;
  if (protocol !== 'tcp' && protocol !== 'udp' && protocol !== 'icmp')
    return { error: `'${protocol ?? ''}' is not tcp, udp or icmp: ${PACKET_SPEC_USAGE}` };
  if (from === undefined || arrow !== '>' || to === undefined) return { error: PACKET_SPEC_USAGE };
  const withPort = protocol !== 'icmp';
  const source = endpoint(from, withPort);
  if (typeof source === 'string') return { error: source };
  const target = endpoint(to, withPort);
  if (typeof target === 'string') return { error: target };
  let direction: PacketSpec['direction'];
  if (where === 'out' && dev === undefined) direction = { kind: 'out' };
  else if (where === 'in' && dev !== undefined && rest.length === 0) direction = { kind: 'in', dev };
  else return { error: PACKET_SPEC_USAGE };
  return {
    protocol,
    src: source.addr,
    srcPort: source.port,
    dst: target.addr,
    dstPort: target.port,
    direction,
  };
}

/** The description back, as the user would write it. */
export function formatPacketSpec(spec: PacketSpec): string {
  const port = (addr: Ipv4Addr, value: number): string =>
    spec.protocol === 'icmp' ? formatIpv4(addr) : `${formatIpv4(addr)}:${value}`;
  const where = spec.direction.kind === 'in' ? `in ${spec.direction.dev}` : 'out';
  return `${spec.protocol} ${port(spec.src, spec.srcPort)} > ${port(spec.dst, spec.dstPort)} ${where}`;
}

/** A local TCP SYN's first sequence number and the echo request's identifier: fixed, so every run sends the same bytes. */
const ISN = 1;
const ECHO_ID = 0x504c;
const UDP_PAYLOAD = new TextEncoder().encode('packetlb');

/** The transport header and payload of the packet, checksummed for its addresses. */
export function transportBytes(spec: PacketSpec): { readonly protocol: number; readonly bytes: Uint8Array } {
  switch (spec.protocol) {
    case 'tcp': {
      const bytes = new Uint8Array(TCP_HEADER_LEN);
      emitTcp(
        {
          srcPort: spec.srcPort,
          dstPort: spec.dstPort,
          seqNumber: ISN,
          ackNumber: 0,
          flags: { ...NO_TCP_FLAGS, syn: true },
          window: 64240,
          urgentPointer: 0,
          options: [],
          payloadLen: 0,
        },
        TcpView.unchecked(bytes, 0, TCP_HEADER_LEN),
        { srcAddr: spec.src, dstAddr: spec.dst },
      );
      return { protocol: IPPROTO_TCP, bytes };
    }
    case 'udp': {
      const bytes = new Uint8Array(UDP_HEADER_LEN + UDP_PAYLOAD.length);
      bytes.set(UDP_PAYLOAD, UDP_HEADER_LEN);
      emitUdp(
        { srcPort: spec.srcPort, dstPort: spec.dstPort, payloadLen: UDP_PAYLOAD.length },
        UdpView.unchecked(bytes, 0),
        { srcAddr: spec.src, dstAddr: spec.dst },
      );
      return { protocol: IPPROTO_UDP, bytes };
    }
    case 'icmp': {
      const repr = { kind: 'echo-request', ident: ECHO_ID, seqNo: 1, data: new Uint8Array(0) } as const;
      const bytes = new Uint8Array(icmpv4Len(repr));
      emitIcmpv4(repr, Icmpv4View.unchecked(bytes, 0));
      return { protocol: IPPROTO_ICMP, bytes };
    }
  }
}

/** The whole Ethernet frame of an `in` packet: from `srcMac` to the receiving interface's `dstMac`. */
export function traceFrame(spec: PacketSpec, dstMac: MacAddr, srcMac: MacAddr): Uint8Array {
  const transport = transportBytes(spec);
  const ipRepr = {
    srcAddr: spec.src,
    dstAddr: spec.dst,
    protocol: transport.protocol,
    ttl: 64,
    ident: 1,
    dontFragment: true,
    moreFragments: false,
    fragmentOffset: 0,
    dscp: 0,
    ecn: 0,
    payloadLen: transport.bytes.length,
    options: new Uint8Array(0),
  };
  const ethRepr = { dstAddr: dstMac, srcAddr: srcMac, ethertype: ETHERTYPE_IPV4 };
  const l2 = ethernetHeaderLen(ethRepr);
  const l3 = ipv4HeaderLen(ipRepr);
  const frame = new Uint8Array(l2 + l3 + transport.bytes.length);
  emitEthernet(ethRepr, EthernetView.unchecked(frame, 0));
  emitIpv4(ipRepr, Ipv4View.unchecked(frame, l2));
  frame.set(transport.bytes, l2 + l3);
  return frame;
}

/** The sender's MAC on the wire for an `in` packet (locally administered, `02:70:6c` for "pl"). */
export const TRACE_SOURCE_MAC = 0x02706c000001;

/** The nft table that sets nftrace for this packet only, at the very start of prerouting and output. */
export function traceRuleset(spec: PacketSpec): string {
  const match = [`ip saddr ${formatIpv4(spec.src)}`, `ip daddr ${formatIpv4(spec.dst)}`];
  if (spec.protocol === 'icmp') match.push('icmp type echo-request');
  else match.push(`${spec.protocol} sport ${spec.srcPort}`, `${spec.protocol} dport ${spec.dstPort}`);
  const hook = spec.direction.kind === 'in' ? 'prerouting' : 'output';
  return `table ip packetlab_trace {
\tchain ${hook} {
\t\ttype filter hook ${hook} priority -301; policy accept;
\t\t${match.join(' ')} meta nftrace set 1
\t}
}
`;
}
