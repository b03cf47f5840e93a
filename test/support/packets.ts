// Packets for netfilter tests: IPv4 datagrams built with the wire emitters (through test/support/frames.ts), wrapped as core Packets with the network header set, as ip_rcv leaves them.

import { Packet } from '../../src/core/packet.ts';
import type { Ipv4Addr } from '../../src/wire/address.ts';
import { ICMPV4_EXC_TTL, ICMPV4_FRAG_NEEDED, ICMPV4_PORT_UNREACH } from '../../src/wire/icmpv4.ts';
import type { TcpFlags, TcpOption } from '../../src/wire/tcp.ts';
import { icmp, ip, ipv4, quote, tcp, udp } from './frames.ts';

export { ip };

/** A Packet holding `datagram` (an IPv4 packet) with pkt.network at its first byte. */
export function packetOf(datagram: Uint8Array): Packet {
  const pkt = Packet.fromFrame(datagram);
  pkt.network = pkt.start;
  return pkt;
}

/** "10.0.0.1:80" to address and port. */
export function endpoint(text: string): { addr: Ipv4Addr; port: number } {
  const colon = text.lastIndexOf(':');
  return { addr: ip(text.slice(0, colon)), port: Number(text.slice(colon + 1)) };
}

export interface TcpPacketOptions {
  readonly src: string;
  readonly dst: string;
  readonly seq: number;
  readonly ack?: number;
  /** Letters as tcpdump prints them: S, F, R, P, U, E, W and A for ACK ("S", "SA", "PA", "FA", "R"). */
  readonly flags: string;
  readonly window?: number;
  readonly payloadLen?: number;
  readonly options?: readonly TcpOption[];
}

export function tcpFlags(letters: string): Partial<TcpFlags> {
  const flags: { -readonly [K in keyof TcpFlags]?: boolean } = {};
  for (const letter of letters) {
    switch (letter) {
      case 'S':
        flags.syn = true;
        break;
      case 'F':
        flags.fin = true;
        break;
      case 'R':
        flags.rst = true;
        break;
      case 'P':
        flags.psh = true;
        break;
      case 'A':
      case '.':
        flags.ack = true;
        break;
      case 'U':
        flags.urg = true;
        break;
      case 'E':
        flags.ece = true;
        break;
      case 'W':
        flags.cwr = true;
        break;
      default:
        throw new Error(`unknown TCP flag letter ${letter}`);
    }
  }
  return flags;
}

/** An IPv4/TCP packet between "addr:port" endpoints. */
export function tcpPacket(options: TcpPacketOptions): Packet {
  const src = endpoint(options.src);
  const dst = endpoint(options.dst);
  return packetOf(
    tcp({
      src: src.addr,
      dst: dst.addr,
      srcPort: src.port,
      dstPort: dst.port,
      seq: options.seq,
      ...(options.ack === undefined ? {} : { ack: options.ack }),
      flags: tcpFlags(options.flags),
      ...(options.window === undefined ? {} : { window: options.window }),
      ...(options.options === undefined ? {} : { options: options.options }),
      payload: new Uint8Array(options.payloadLen ?? 0),
    }),
  );
}

/** An IPv4/UDP packet between "addr:port" endpoints. */
export function udpPacket(srcText: string, dstText: string, payloadLen = 8): Packet {
  const src = endpoint(srcText);
  const dst = endpoint(dstText);
  return packetOf(
    udp({
      src: src.addr,
      dst: dst.addr,
      srcPort: src.port,
      dstPort: dst.port,
      payload: new Uint8Array(payloadLen),
    }),
  );
}

/** An ICMP echo request or reply. */
export function echoPacket(src: string, dst: string, ident: number, seqNo: number, reply = false): Packet {
  return packetOf(
    icmp(
      { src: ip(src), dst: ip(dst) },
      { kind: reply ? 'echo-reply' : 'echo-request', ident, seqNo, data: new Uint8Array(56) },
    ),
  );
}

/** An ICMP error from `src` to `dst` quoting `offending` (the packet that caused it). */
export function icmpErrorPacket(
  src: string,
  dst: string,
  kind: 'port-unreachable' | 'frag-needed' | 'ttl-exceeded',
  offending: Packet,
): Packet {
  const quoted = quote(offending.buf.slice(offending.network, offending.end));
  const repr =
    kind === 'ttl-exceeded'
      ? ({ kind: 'time-exceeded', code: ICMPV4_EXC_TTL, quoted } as const)
      : ({
          kind: 'dest-unreachable',
          code: kind === 'port-unreachable' ? ICMPV4_PORT_UNREACH : ICMPV4_FRAG_NEEDED,
          nextHopMtu: kind === 'frag-needed' ? 1450 : 0,
          quoted,
        } as const);
  return packetOf(icmp({ src: ip(src), dst: ip(dst) }, repr));
}

/** A datagram of any protocol number with an opaque payload (GRE, IGMP, 253...). */
export function rawPacket(src: string, dst: string, protocol: number, payloadLen = 8): Packet {
  return packetOf(ipv4({ src: ip(src), dst: ip(dst), protocol }, new Uint8Array(payloadLen)));
}
