// What `ss -o/-e/-i/-m` read from one TCP connection (the kernel's struct tcp_info, inet_diag's timer fields and
// skmeminfo), as a plain snapshot. Not modelled: delivery rates, busy time, reordering counters.

import type { CongestionAlgorithm } from '../../net/route.ts';
import type { TcpState } from './socket.ts';

/** inet_diag's idiag_timer: 0 none, 1 retransmit (or SYN-ACK), 2 keepalive, 3 TIME_WAIT, 4 zero-window probe. */
export type TcpTimerKind = 'off' | 'on' | 'keepalive' | 'timewait' | 'persist';

export interface TcpInfo {
  readonly state: TcpState;
  /** The pending timer inet_diag reports, its expiry (absolute virtual ns) and idiag_retrans. */
  readonly timer: TcpTimerKind;
  readonly timerExpiresNs: number;
  readonly timerRetrans: number;
  /** icsk_backoff (retransmissions of the head since the last ACK). */
  readonly backoff: number;
  readonly timestamps: boolean;
  readonly sack: boolean;
  /** Window scaling agreed; snd_wscale and rcv_wscale. */
  readonly wscaleOk: boolean;
  readonly sndWscale: number;
  readonly rcvWscale: number;
  /** icsk_rto, icsk_ack.ato, srtt and rttvar (tcpi_rttvar = mdev/4), in nanoseconds; srtt 0 before a sample. */
  readonly rtoNs: number;
  readonly atoNs: number;
  readonly srttNs: number;
  readonly rttvarNs: number;
  /** The smallest RTT sample seen (tcp_min_rtt), 0 before one. */
  readonly minRttNs: number;
  readonly mss: number;
  readonly pmtu: number;
  readonly rcvMss: number;
  readonly advmss: number;
  readonly cwnd: number;
  readonly ssthresh: number;
  readonly bytesSent: number;
  readonly bytesRetrans: number;
  readonly bytesAcked: number;
  readonly bytesReceived: number;
  readonly segsOut: number;
  readonly segsIn: number;
  readonly dataSegsOut: number;
  readonly dataSegsIn: number;
  readonly totalRetrans: number;
  /** Bytes sent and not yet acknowledged, in segments (tcpi_unacked = packets_out). */
  readonly unacked: number;
  /** tcpi_retrans, tcpi_lost, tcpi_sacked: the scoreboard's retrans_out, lost_out, sacked_out. */
  readonly retransOut: number;
  readonly lost: number;
  readonly sacked: number;
  /** tcpi_rcv_rtt: the receiver's RTT estimate (rcv_rtt_est.rtt_us >> 3), in µs; 0 before a sample. */
  readonly rcvRttUs: number;
  /** tcpi_rcv_space: rcvq_space.space, the bytes the application read in the last measured RTT. */
  readonly rcvSpace: number;
  readonly rcvSsthresh: number;
  readonly sndWnd: number;
  /** Unread bytes and write_seq - snd_una (Recv-Q, Send-Q). */
  readonly sendQueue: number;
  /** sk_rcvbuf and sk_sndbuf (skmem's rb and tb). */
  readonly rcvbuf: number;
  readonly sndbuf: number;
  /** sk_shutdown: SEND_SHUTDOWN once the application ended its side, RCV_SHUTDOWN once the peer's FIN arrived. */
  readonly sendShutdown: boolean;
  /** INET_DIAG_CONG: the congestion control's name. */
  readonly congestion: CongestionAlgorithm;
  readonly rcvShutdown: boolean;
  /** The application closed its socket while the connection finishes (tcp_orphan_count). */
  readonly orphan: boolean;
  /** When data was last sent and received and an ACK last received (absolute ns; 0: never). */
  readonly lastDataSentNs: number;
  readonly lastDataRecvNs: number;
  readonly lastAckRecvNs: number;
}
