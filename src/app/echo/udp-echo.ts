// A UDP echo server (RFC 862's service, on any port): every datagram goes back to its sender from the server's
// port, as recvfrom() then sendto() do; no TCP echo, no IP_PKTINFO, no rate limit.

import type { Namespace } from '../../netns/namespace.ts';
import type { UdpDatagram } from '../../socket/udp.ts';
import { type Ipv4Addr, parseIpv4 } from '../../wire/address.ts';

export interface UdpEchoOptions {
  readonly port: number;
  /** The address to bind, `'0.0.0.0'` (any) when absent. */
  readonly addr?: string;
}

export interface UdpEchoStats {
  /** Datagrams received and answered. */
  echoed: number;
  /** Datagrams whose answer could not be sent (no route, a netfilter drop on OUTPUT). */
  sendErrors: number;
  /** Payload bytes received. */
  bytes: number;
}

export interface UdpEchoServer {
  readonly port: number;
  readonly stats: UdpEchoStats;
  /** Closes the socket. */
  close(): void;
}

/** Starts the server; a port already bound in `ns` is a scenario error and throws. */
export function udpEcho(ns: Namespace, options: UdpEchoOptions): UdpEchoServer {
  const addr: Ipv4Addr = options.addr === undefined ? 0 : parseAddr(options.addr);
  const stats: UdpEchoStats = { echoed: 0, sendErrors: 0, bytes: 0 };
  const answer = (datagram: UdpDatagram): void => {
    stats.bytes += datagram.payload.length;
    // recvfrom() then sendto() the sender, with no IP_PKTINFO: a socket bound to any address answers
    // from the route's preferred source, as a plain sendto() does.
    const sent = ns.udp.send({
      dst: datagram.srcAddr,
      dstPort: datagram.srcPort,
      ...(addr !== 0 ? { src: addr } : {}),
      srcPort: options.port,
      payload: datagram.payload,
    });
    if (sent.ok) stats.echoed++;
    else stats.sendErrors++;
  };
  if (!ns.udp.bind(addr, options.port, answer))
    throw new Error(`udpEcho: UDP port ${options.port} is in use in ${ns.name}`);
  return {
    port: options.port,
    stats,
    close: () => ns.udp.unbind(addr, options.port),
  };
}

function parseAddr(text: string): Ipv4Addr {
  const addr = parseIpv4(text);
  if (addr === undefined) throw new Error(`udpEcho: not an IPv4 address: ${text}`);
  return addr;
}
