// `ss -s`: print_summary over what /proc/net/sockstat and /proc/net/snmp would hold for a namespace; packetlab has
// no RAW, IPv6 or non-inet sockets, so those counts are 0.
//
// As on Linux, the TCP line's first figures come from tcp_sockets_allocated and tcp_orphan_count, which
// are machine-wide (every namespace of the simulation), while inuse, timewait, CurrEstab, UDP and FRAG
// are the namespace's. A TIME-WAIT or SYN-RECV connection is a minisock: counted in timewait (the
// former) and in no socket total; "sockets: used" counts the namespace's TCP and UDP sockets.

import type { Namespace } from '../../netns/namespace.ts';

interface SockStat {
  /** sockets: used. */
  socks: number;
  /** TCP: inuse, orphan, tw, alloc. */
  tcpInuse: number;
  tcpOrphans: number;
  tcpTimeWait: number;
  tcpAlloc: number;
  /** Tcp: CurrEstab (ESTABLISHED and CLOSE_WAIT). */
  tcpEstab: number;
  udp: number;
  frag: number;
}

/** A connection that is a full socket (not a request or timewait minisock). */
function fullSocket(state: string): boolean {
  return state !== 'TIME_WAIT' && state !== 'SYN_RECV';
}

function sockStat(ns: Namespace): SockStat {
  let tcpAlloc = 0;
  let tcpOrphans = 0;
  for (const other of ns.sim.allNamespaces()) {
    for (const _listener of other.tcp.listening()) tcpAlloc++;
    for (const socket of other.tcp.sockets()) {
      if (!fullSocket(socket.state)) continue;
      tcpAlloc++;
      if (socket.info().orphan) tcpOrphans++;
    }
  }
  let tcpInuse = 0;
  let tcpTimeWait = 0;
  let tcpEstab = 0;
  for (const _listener of ns.tcp.listening()) tcpInuse++;
  for (const socket of ns.tcp.sockets()) {
    if (socket.state === 'TIME_WAIT') tcpTimeWait++;
    if (socket.state === 'ESTABLISHED' || socket.state === 'CLOSE_WAIT') tcpEstab++;
    if (fullSocket(socket.state)) tcpInuse++;
  }
  let udp = 0;
  for (const _socket of ns.udp.bound()) udp++;
  return {
    socks: tcpInuse + udp,
    tcpInuse,
    tcpOrphans,
    tcpTimeWait,
    tcpAlloc,
    tcpEstab,
    udp,
    frag: ns.ipv4.fragmentQueues,
  };
}

/** printf("%-9d"). */
function column(n: number): string {
  return String(n).padEnd(9);
}

/** print_summary. */
export function summaryText(ns: Namespace): string {
  const s = sockStat(ns);
  const closed = s.tcpAlloc - (s.tcpInuse - s.tcpTimeWait);
  const row = (name: string, v4: number) => `${name}\t  ${column(v4)} ${column(v4)} ${column(0)}\n`;
  return (
    `Total: ${s.socks}\n` +
    `TCP:   ${s.tcpAlloc + s.tcpTimeWait} (estab ${s.tcpEstab}, closed ${closed}, orphaned ${s.tcpOrphans}, timewait ${s.tcpTimeWait})\n` +
    '\n' +
    'Transport Total     IP        IPv6\n' +
    row('RAW', 0) +
    row('UDP', s.udp) +
    row('TCP', s.tcpInuse) +
    row('INET', s.udp + s.tcpInuse) +
    row('FRAG', s.frag) +
    '\n'
  );
}
