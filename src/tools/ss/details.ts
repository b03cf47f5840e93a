// The text `ss -o/-e/-i/-m` appends to a socket's row (iproute2 6.1's tcp_timer_print, sock_details_print, the
// shutdown marks, print_skmeminfo, tcp_show_info and tcp_stats_print); not the BPF, TOS, cgroup-only or MPTCP parts.
//
// Kernel values in jiffies (rto, ato, timer expiries, lastsnd/lastrcv/lastack) are rounded to the 4 ms jiffy
// of HZ=250, Debian's kernel configuration, as tcp_get_info's jiffies_to_usecs and inet_diag's
// jiffies_delta_to_msecs show them. Fields packetlab does not model are left out (docs/deviations.md).

import type { CongestionAlgorithm } from '../../net/route.ts';
import type { TcpInfo } from '../../socket/tcp/info.ts';

/** What the row's detail options asked for. */
export interface DetailOptions {
  /** -o (also set by -e): timers, and the ts/sack/ecn flags within -i. */
  readonly timers: boolean;
  /** -e: uid, inode, cookie, cgroup, shutdown state. */
  readonly extended: boolean;
  /** -m: skmem. */
  readonly memory: boolean;
  /** -i: tcp_info. */
  readonly tcpInfo: boolean;
  /** -n: rates as plain bits per second. */
  readonly numeric: boolean;
}

/** The socket a row shows, as far as its details go. */
export type DetailSource =
  | {
      readonly kind: 'udp';
      readonly ino: number;
      readonly cookie: number;
      readonly rcvbuf: number;
      readonly sndbuf: number;
    }
  | {
      readonly kind: 'listener';
      readonly ino: number;
      readonly cookie: number;
      readonly rcvbuf: number;
      readonly sndbuf: number;
      /** The listening socket's congestion control (its TCP_CONGESTION, else the namespace default). */
      readonly congestion: CongestionAlgorithm;
    }
  /** A connection; `minisock` for SYN-RECV and TIME-WAIT, which inet_diag reports without attributes. */
  | {
      readonly kind: 'tcp';
      readonly ino: number;
      readonly cookie: number;
      readonly mark: number;
      /** tcp_wmem[2], the send buffer's ceiling. */
      readonly wmemMax: number;
      readonly info: TcpInfo;
      readonly minisock: boolean;
    };

const JIFFY_NS = 4_000_000;
const MS = 1_000_000;

/** print_ms_timer. */
export function formatMsTimer(timeout: number): string {
  let secs = Math.floor(timeout / 1000);
  const minutes = Math.floor(secs / 60);
  secs %= 60;
  let msecs = timeout % 1000;
  let text = '';
  if (minutes > 0) {
    msecs = 0;
    text = `${minutes}min`;
    if (minutes > 9) secs = 0;
  }
  if (secs > 0) {
    if (secs > 9) msecs = 0;
    text += `${secs}${msecs > 0 ? '.' : 'sec'}`;
  }
  if (msecs > 0) text += `${String(msecs).padStart(3, '0')}ms`;
  return text;
}

/** printf's %g (precision 6 unless given): shortest of fixed and exponent forms, trailing zeros removed. */
export function formatG(value: number, precision = 6): string {
  if (value === 0) return '0';
  const exponent = Math.floor(Math.log10(Math.abs(Number(value.toPrecision(precision)))));
  if (exponent < -4 || exponent >= precision) {
    const [mantissa, exp] = value.toExponential(precision - 1).split('e') as [string, string];
    const trimmed = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
    const sign = exp.startsWith('-') ? '-' : '+';
    return `${trimmed}e${sign}${exp.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  const fixed = value.toFixed(Math.max(0, precision - 1 - exponent));
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/** sprint_bw: bits per second with k/M/G/T and three significant digits, or plain with -n. */
export function formatBandwidth(bps: number, numeric: boolean): string {
  if (numeric) return bps.toFixed(0);
  if (bps >= 1e12) return `${formatG(bps / 1e12, 3)}T`;
  if (bps >= 1e9) return `${formatG(bps / 1e9, 3)}G`;
  if (bps >= 1e6) return `${formatG(bps / 1e6, 3)}M`;
  if (bps >= 1e3) return `${formatG(bps / 1e3, 3)}k`;
  return formatG(bps);
}

/** usecs_to_jiffies rounding up, back to microseconds (the kernel keeps rto and ato in jiffies). */
function jiffyUs(ns: number): number {
  return (Math.ceil(ns / JIFFY_NS) * JIFFY_NS) / 1000;
}

/** jiffies_to_msecs of an elapsed time: whole jiffies that passed. */
function elapsedMs(fromNs: number, nowNs: number): number {
  return (Math.floor((nowNs - fromNs) / JIFFY_NS) * JIFFY_NS) / MS;
}

/** inet_diag's idiag_timer and idiag_expires (jiffies_delta_to_msecs of the time left). */
function timerText(info: TcpInfo, nowNs: number): string {
  if (info.timer === 'off') return '';
  const left = Math.max(0, info.timerExpiresNs - nowNs);
  const ms = (Math.ceil(left / JIFFY_NS) * JIFFY_NS) / MS;
  return ` timer:(${info.timer},${formatMsTimer(ms)},${info.timerRetrans})`;
}

/**
 * tcp_sndbuf_expand, run once when the connection is established (tcp_init_buffer_space): cubic's factor 2 times
 * TCP_INIT_CWND segments of truesize, capped by tcp_wmem[2]. Linux grows it again only after the application
 * filled the buffer (tcp_new_space with SOCK_NOSPACE), which packetlab's applications never do.
 */
function connectionSndbuf(info: TcpInfo, wmemMax: number): number {
  if (info.state === 'SYN_SENT' || info.state === 'SYN_RECV') return info.sndbuf;
  // per_mss: max(mss_clamp, mss_cache) plus MAX_TCP_HEADER and skb_shared_info, to a power of two, plus struct sk_buff.
  const mssClamp = info.advmss + (info.timestamps ? 12 : 0);
  const perMss = 2 ** Math.ceil(Math.log2(Math.max(mssClamp, info.mss) + 256 + 320)) + 256;
  return Math.max(info.sndbuf, Math.min(2 * 10 * perMss, wmemMax));
}

function skmem(rcvbuf: number, sndbuf: number): string {
  return ` skmem:(r0,rb${rcvbuf},t0,tb${sndbuf},f0,w0,o0,bl0,d0)`;
}

/** tcp_stats_print over what tcp_get_info reports for packetlab's connection. */
function tcpStats(info: TcpInfo, options: DetailOptions, nowNs: number): string {
  let text = '';
  if (options.timers) {
    if (info.timestamps) text += ' ts';
    if (info.sack) text += ' sack';
  }
  text += ` ${info.congestion}`;
  if (info.wscaleOk) text += ` wscale:${info.sndWscale},${info.rcvWscale}`;
  const rtoUs = jiffyUs(info.rtoNs);
  if (rtoUs !== 0 && rtoUs !== 3_000_000) text += ` rto:${formatG(rtoUs / 1000)}`;
  if (info.backoff > 0) text += ` backoff:${info.backoff}`;
  const rttUs = Math.floor(info.srttNs / 1000);
  if (rttUs > 0) text += ` rtt:${formatG(rttUs / 1000)}/${formatG(Math.floor(info.rttvarNs / 1000) / 1000)}`;
  if (info.atoNs > 0) text += ` ato:${formatG(jiffyUs(info.atoNs) / 1000)}`;
  text += ` mss:${info.mss} pmtu:${info.pmtu} rcvmss:${info.rcvMss} advmss:${info.advmss} cwnd:${info.cwnd}`;
  if (info.ssthresh < 0xffff) text += ` ssthresh:${info.ssthresh}`;
  if (info.bytesSent > 0) text += ` bytes_sent:${info.bytesSent}`;
  if (info.bytesRetrans > 0) text += ` bytes_retrans:${info.bytesRetrans}`;
  if (info.bytesAcked > 0) text += ` bytes_acked:${info.bytesAcked}`;
  if (info.bytesReceived > 0) text += ` bytes_received:${info.bytesReceived}`;
  if (info.segsOut > 0) text += ` segs_out:${info.segsOut}`;
  if (info.segsIn > 0) text += ` segs_in:${info.segsIn}`;
  if (info.dataSegsOut > 0) text += ` data_segs_out:${info.dataSegsOut}`;
  if (info.dataSegsIn > 0) text += ` data_segs_in:${info.dataSegsIn}`;
  if (rttUs > 0)
    text += ` send ${formatBandwidth((info.cwnd * info.mss * 8_000_000) / rttUs, options.numeric)}bps`;
  // tcpi_last_data_sent and friends count from the connection's last event, or from boot (time 0) when none happened.
  const lastSent = elapsedMs(info.lastDataSentNs, nowNs);
  const lastRecv = elapsedMs(info.lastDataRecvNs, nowNs);
  const lastAck = elapsedMs(info.lastAckRecvNs, nowNs);
  if (lastSent > 0) text += ` lastsnd:${lastSent}`;
  if (lastRecv > 0) text += ` lastrcv:${lastRecv}`;
  if (lastAck > 0) text += ` lastack:${lastAck}`;
  if (rttUs > 0) {
    // tcp_update_pacing_rate: 200% of cwnd * mss / srtt in slow start, 120% after.
    const ratio = info.cwnd < info.ssthresh / 2 ? 200 : 120;
    const rate = Math.floor(
      (info.mss * 10_000 * 8 * Math.max(info.cwnd, info.unacked) * ratio) / (rttUs * 8),
    );
    text += ` pacing_rate ${formatBandwidth(rate * 8, options.numeric)}bps`;
  }
  if (info.unacked > 0) text += ` unacked:${info.unacked}`;
  if (info.retransOut > 0 || info.totalRetrans > 0)
    text += ` retrans:${info.retransOut}/${info.totalRetrans}`;
  if (info.lost > 0) text += ` lost:${info.lost}`;
  if (info.sacked > 0) text += ` sacked:${info.sacked}`;
  if (info.rcvRttUs > 0) text += ` rcv_rtt:${formatG(info.rcvRttUs / 1000)}`;
  if (info.rcvSpace > 0) text += ` rcv_space:${info.rcvSpace}`;
  if (info.rcvSsthresh > 0) text += ` rcv_ssthresh:${info.rcvSsthresh}`;
  if (info.minRttNs > 0) text += ` minrtt:${formatG(Math.floor(info.minRttNs / 1000) / 1000)}`;
  if (info.sndWnd > 0) text += ` snd_wnd:${info.sndWnd}`;
  return text;
}

/** The row's text after its address columns: the timer, the details, then a tab-indented line of memory and tcp_info. */
export function detailText(source: DetailSource, options: DetailOptions, nowNs: number): string {
  let text = '';
  if (options.timers && source.kind === 'tcp') text += timerText(source.info, nowNs);
  if (options.extended) {
    // A request or timewait socket has no inode, cgroup or shutdown attribute (inet_req_diag_fill, inet_twsk_diag_fill).
    const ino = source.kind === 'tcp' && source.minisock ? 0 : source.ino;
    text += ` ino:${ino} sk:${source.cookie.toString(16)}`;
    if (source.kind === 'tcp' && source.mark !== 0) text += ` fwmark:0x${source.mark.toString(16)}`;
    if (!(source.kind === 'tcp' && source.minisock)) {
      const rcv = source.kind === 'tcp' && source.info.rcvShutdown;
      const snd = source.kind === 'tcp' && source.info.sendShutdown;
      text += ` cgroup:/ ${rcv ? '-' : '<'}-${snd ? '-' : '>'}`;
    }
  }
  const tcp = source.kind !== 'udp';
  if (!(options.memory || (options.tcpInfo && tcp))) return text;
  text += '\n\t';
  switch (source.kind) {
    case 'udp':
      text += skmem(source.rcvbuf, source.sndbuf);
      break;
    case 'listener':
      if (options.memory) text += skmem(source.rcvbuf, source.sndbuf);
      if (options.tcpInfo) text += ` ${source.congestion} cwnd:10`;
      break;
    case 'tcp':
      if (source.minisock) break;
      if (options.memory) text += skmem(source.info.rcvbuf, connectionSndbuf(source.info, source.wmemMax));
      if (options.tcpInfo) text += tcpStats(source.info, options, nowNs);
      break;
    default:
      return source satisfies never;
  }
  return text;
}
