// Which congestion control a connection runs: the route's congctl, else the socket's TCP_CONGESTION, else the
// namespace's net.ipv4.tcp_congestion_control. No `congctl lock` effect (packetlab has no later setsockopt).

import type { CongestionAlgorithm } from '../../../net/route.ts';

/**
 * Mirrors tcp_output.c:tcp_ca_dst_init (connect) and tcp_minisocks.c:tcp_ca_openreq_child (accept): a route's
 * RTAX_CC_ALGO wins; without one the socket keeps what setsockopt chose (a child inherits its listener's when
 * icsk_ca_setsockopt is set), else tcp_assign_congestion_control gives the namespace default.
 */
export function assignCongestion(
  routeCongctl: CongestionAlgorithm | undefined,
  setsockopt: CongestionAlgorithm | undefined,
  namespaceDefault: CongestionAlgorithm,
): CongestionAlgorithm {
  return routeCongctl ?? setsockopt ?? namespaceDefault;
}
