// TCP's constants as Linux 6.18 defines them (include/net/tcp.h, inet_connection_sock.h), the errno table of ICMP
// errors and sequence-space comparisons, shared by the connection's files.

/** The errno an application sees when a connection fails (Node's error codes). */
export type TcpError =
  | 'ECONNREFUSED'
  | 'ECONNRESET'
  | 'ETIMEDOUT'
  | 'EHOSTUNREACH'
  | 'ENETUNREACH'
  | 'ENOPROTOOPT'
  | 'EHOSTDOWN'
  | 'ENONET'
  | 'EACCES'
  | 'EPERM'
  | 'EINVAL'
  | 'EMSGSIZE'
  | 'EPIPE';

export const FIN = 0x01;
export const SYN = 0x02;
export const RST = 0x04;
export const PSH = 0x08;
export const ACK = 0x10;

export const MS = 1_000_000;
/** TCP_TIMEOUT_INIT: the first retransmission timeout, before any RTT sample. */
export const TIMEOUT_INIT = 1000 * MS;
/** TCP_TIMEOUT_MIN: 2 jiffies, with the HZ=250 of the kernels packetlab is compared with. */
export const TCP_TIMEOUT_MIN = 8 * MS;
/** TCP_RTO_MIN and TCP_RTO_MAX. */
export const RTO_MIN = 200 * MS;
export const RTO_MAX = 120_000 * MS;
/** TCP_ATO_MIN (HZ/25) and TCP_DELACK_MAX (HZ/5). */
export const ATO_MIN = 40 * MS;
export const DELACK_MAX = 200 * MS;
/** TCP_MAX_QUICKACKS. */
export const MAX_QUICKACKS = 16;
/** TCP_PINGPONG_THRESH: replies within ato before ACKs are delayed for the reply to carry them. */
export const PINGPONG_THRESH = 1;
/** TCP_TIMEWAIT_LEN. */
export const TIMEWAIT_LEN = 60_000 * MS;
/** TCP_INIT_CWND. */
export const INIT_CWND = 10;
/** sysctl_rmem_max on Linux 6.x (4 MiB), which the window scale also covers. */
export const RMEM_MAX = 4_194_304;
/** TCPOLEN_TSTAMP_ALIGNED. */
export const TS_ALIGNED = 12;

// icsk_ack.pending bits (inet_connection_sock.h).
export const ACK_SCHED = 1;
export const ACK_TIMER = 2;
export const ACK_PUSHED = 4;
export const ACK_PUSHED2 = 8;

/** icmp_err_convert: the errno for each Destination Unreachable code, all fatal for a connecting socket. */
export const UNREACH_ERRNO: readonly (TcpError | undefined)[] = [
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENOPROTOOPT',
  'ECONNREFUSED',
  undefined, // fragmentation needed: path MTU discovery, not an error
  undefined, // source route failed: EOPNOTSUPP, not fatal
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENONET',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EHOSTUNREACH',
  'EHOSTUNREACH',
  'EHOSTUNREACH',
];

/** ipv4_default_advmss: the route MTU less IPv4 and TCP headers, at most IPV4_MAX_PMTU (65535) less them. */
export function advertisedMss(mtu: number): number {
  return Math.min(mtu, 0xffff) - 40;
}

/** Sequence-space comparisons (before(), after() in tcp.h). */
export function before(a: number, b: number): boolean {
  return ((a - b) | 0) < 0;
}
export function after(a: number, b: number): boolean {
  return ((b - a) | 0) < 0;
}
