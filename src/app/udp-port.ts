// A UDP socket's implicit bind (udp_lib_get_port with port 0, as sendto() or connect() on an unbound socket
// does), through the namespace's UDP table: `UdpTable.autobind` is the kernel's search.

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
  const port = ns.udp.autobind(addr, onDatagram, onError, remote);
  return port === 'EADDRINUSE' ? undefined : port;
}
