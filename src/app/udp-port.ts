// A UDP socket's implicit bind (udp_lib_get_port with port 0, as sendto() or connect() on an unbound socket
// does): a free port in net.ipv4.ip_local_port_range from a seeded start; no SO_REUSEADDR/SO_REUSEPORT sharing.
// The kernel's search steps through the range by an odd stride from a random start; this one walks it in order.

import type { Namespace } from '../netns/namespace.ts';
import type { UdpErrorHandler, UdpHandler } from '../socket/udp.ts';
import type { Ipv4Addr } from '../wire/address.ts';

/** Binds `addr` (0: any) to a free ephemeral port and returns it, or undefined when the range is full (EAGAIN). */
export function bindEphemeralUdp(
  ns: Namespace,
  addr: Ipv4Addr,
  onDatagram: UdpHandler,
  onError?: UdpErrorHandler,
  remote?: { readonly addr: Ipv4Addr; readonly port: number },
): number | undefined {
  const range = ns.sysctls.get('net.ipv4.ip_local_port_range');
  const [low, high] = (range.ok ? range.value : '32768\t60999').split('\t').map(Number) as [number, number];
  const remaining = high - low + 1;
  const start = ns.rng.int(remaining);
  for (let i = 0; i < remaining; i++) {
    const port = low + ((start + i) % remaining);
    if (ns.udp.bind(addr, port, onDatagram, onError, remote)) return port;
  }
  return undefined;
}
