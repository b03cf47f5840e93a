// The congestion-control interface (struct tcp_congestion_ops in include/net/tcp.h) and the tcp_sock
// fields it reads and writes; no BPF struct_ops, no cong_control (BBR's whole-ACK hook), no ECN events.
//
// Clocks, as Linux 6.18 keeps them: `jiffies` is tcp_jiffies32 at HZ=1000 (one per millisecond, u32),
// `nowUs` is tcp_mstamp in microseconds.

/** icsk_ca_state (enum tcp_ca_state). */
export type CaState = 'Open' | 'Disorder' | 'CWR' | 'Recovery' | 'Loss';

/** enum tcp_ca_event, the ones a model raises. */
export type CaEvent = 'TX_START' | 'CWND_RESTART' | 'COMPLETE_CWR' | 'LOSS';

/** TCP_INFINITE_SSTHRESH. */
export const TCP_INFINITE_SSTHRESH = 0x7fffffff;

/** struct ack_sample: what one ACK delivered, for pkts_acked. */
export interface AckSample {
  pktsAcked: number;
  /** RTT of the last (S)ACKed packet in microseconds, -1 when none. */
  rttUs: number;
}

/** The tcp_sock and icsk fields congestion control sees; the socket keeps them current before each call. */
export class CwndState {
  /** snd_cwnd, in segments. */
  cwnd = 10;
  /** snd_ssthresh. */
  ssthresh = TCP_INFINITE_SSTHRESH;
  /** snd_cwnd_cnt: ACKed segments toward the next increase in congestion avoidance. */
  cwndCnt = 0;
  /** snd_cwnd_clamp. */
  cwndClamp = 0xffffffff;
  /** prior_cwnd: cwnd when the last reduction began (tcp_reno_undo_cwnd restores it). */
  priorCwnd = 0;
  /** snd_cwnd_stamp (jiffies). */
  cwndStamp = 0;
  /** icsk_ca_state. */
  caState: CaState = 'Open';
  /** tcp_jiffies32. */
  jiffies = 0;
  /** tcp_mstamp. */
  nowUs = 0;
  sndNxt = 0;
  sndUna = 0;
  /** lsndtime: jiffies of the last data sent. */
  lsndtime = 0;
  /** sk_pacing_rate in bytes per second (0: not computed); HyStart's ACK-delay cushion uses it. */
  pacingRate = 0;
  /** sk_gso_max_size (65536 on a veth). */
  gsoMaxSize = 65536;
}

/** tcp_in_slow_start. */
export function inSlowStart(tp: CwndState): boolean {
  return tp.cwnd < tp.ssthresh;
}

/** tcp_in_cwnd_reduction: CWR or Recovery. */
export function inCwndReduction(tp: CwndState): boolean {
  return tp.caState === 'CWR' || tp.caState === 'Recovery';
}

/** tcp_current_ssthresh: outside a reduction, at least 3/4 of cwnd. */
export function currentSsthresh(tp: CwndState): number {
  if (inCwndReduction(tp)) return tp.ssthresh;
  return Math.max(tp.ssthresh, (tp.cwnd >>> 1) + (tp.cwnd >>> 2));
}

/** One algorithm's hooks (tcp_congestion_ops): one instance per connection, holding its private state. */
export interface CongestionOps {
  readonly name: 'reno' | 'cubic';
  /** .init, when the connection is established. */
  init(tp: CwndState): void;
  /** .ssthresh: the slow-start threshold after a loss. */
  ssthresh(tp: CwndState): number;
  /** .cong_avoid for `acked` newly delivered segments; `cwndLimited` is tcp_is_cwnd_limited. */
  congAvoid(tp: CwndState, ack: number, acked: number, cwndLimited: boolean): void;
  /** .set_state, before icsk_ca_state changes. */
  setState(tp: CwndState, state: CaState): void;
  /** .cwnd_event. */
  cwndEvent(tp: CwndState, event: CaEvent): void;
  /** .undo_cwnd: the cwnd to return to when a reduction is undone. */
  undoCwnd(tp: CwndState): number;
  /** .pkts_acked. */
  pktsAcked(tp: CwndState, sample: AckSample): void;
}
