// IPv4 TCP SYN and UDP datagrams as Packets for the conntrack and NAT suites (valid checksums, no payload); not src/: benchmark inputs only.

import { Packet } from '../../src/core/packet.ts';
import { emitIpv4, Ipv4View } from '../../src/wire/ipv4.ts';
import { emitTcp, NO_TCP_FLAGS, TcpView } from '../../src/wire/tcp.ts';
import { emitUdp, IPPROTO_UDP, UdpView } from '../../src/wire/udp.ts';

const IPPROTO_TCP = 6;
const SYN = { ...NO_TCP_FLAGS, syn: true };

/** An IPv4 header of `payloadLen` bytes of `protocol` at the start of `bytes` (TTL 64, DF, checksummed). */
export function ipv4(
  bytes: Uint8Array,
  src: number,
  dst: number,
  protocol: number,
  payloadLen: number,
): void {
  emitIpv4(
    {
      srcAddr: src,
      dstAddr: dst,
      protocol,
      ttl: 64,
      ident: 0,
      dontFragment: true,
      moreFragments: false,
      fragmentOffset: 0,
      dscp: 0,
      ecn: 0,
      payloadLen,
      options: new Uint8Array(0),
    },
    Ipv4View.unchecked(bytes),
  );
}

function packetOf(bytes: Uint8Array): Packet {
  const pkt = Packet.fromFrame(bytes);
  pkt.network = pkt.start;
  return pkt;
}

/** A SYN with an MSS option, as a client's connect() sends it. */
export function tcpSyn(src: number, srcPort: number, dst: number, dstPort: number): Packet {
  const bytes = new Uint8Array(20 + 24);
  ipv4(bytes, src, dst, IPPROTO_TCP, 24);
  emitTcp(
    {
      srcPort,
      dstPort,
      seqNumber: 1000,
      ackNumber: 0,
      flags: SYN,
      window: 64240,
      urgentPointer: 0,
      options: [{ type: 'mss', mss: 1460 }],
      payloadLen: 0,
    },
    TcpView.unchecked(bytes, 20),
    { srcAddr: src, dstAddr: dst },
  );
  return packetOf(bytes);
}

export function udpDatagram(src: number, srcPort: number, dst: number, dstPort: number): Packet {
  const bytes = new Uint8Array(28);
  ipv4(bytes, src, dst, IPPROTO_UDP, 8);
  emitUdp({ srcPort, dstPort, payloadLen: 0 }, UdpView.unchecked(bytes, 20), { srcAddr: src, dstAddr: dst });
  return packetOf(bytes);
}
