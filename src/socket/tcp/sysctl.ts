// The net.ipv4.tcp_* keys the TCP model reads, with the defaults a new namespace has on Linux 6.18 (tcp_sk_init).

import { type CongestionAlgorithm, isCongestionAlgorithm } from '../../net/route.ts';
import type { Sysctls } from '../../net/sysctl.ts';

const INT_MAX = 2147483647;

/** tcp_congestion_control's handler: a known algorithm, else ENOENT (one function for every namespace's key). */
function parseCongestionControl(text: string): string | { readonly errno: 'ENOENT' } {
  const name = text.trim();
  return isCongestionAlgorithm(name) ? name : { errno: 'ENOENT' };
}

/** Defines the TCP keys in a namespace's sysctl tree; the model reads them at every use, as the kernel does. */
export function defineTcpSysctls(sysctls: Sysctls): void {
  const int = (key: string, value: number, min = 0, max = INT_MAX) =>
    sysctls.define(`net.ipv4.${key}`, { defaultValue: String(value), min, max });
  // tcp_sk_init copies init_net's buffers; 6.15 raised tcp_rmem[2] to 32 MiB ("tcp: increase tcp_rmem[2] to 32 MB").
  sysctls.define('net.ipv4.tcp_rmem', {
    defaultValue: '4096\t131072\t33554432',
    min: 1,
    max: INT_MAX,
    fields: 3,
  });
  sysctls.define('net.ipv4.tcp_wmem', {
    defaultValue: '4096\t16384\t4194304',
    min: 1,
    max: INT_MAX,
    fields: 3,
  });
  int('tcp_timestamps', 1, 0, 2);
  int('tcp_sack', 1, 0, 1);
  int('tcp_dsack', 1, 0, 255);
  int('tcp_window_scaling', 1, 0, 1);
  int('tcp_syn_retries', 6, 1, 127);
  // SYN timeouts without backoff before the doubling starts (6.18 takes 0-127, measured).
  int('tcp_syn_linear_timeouts', 4, 0, 127);
  int('tcp_synack_retries', 5, 0, 255);
  int('tcp_retries1', 3, 0, 255);
  int('tcp_retries2', 15);
  int('tcp_keepalive_time', 7200, 1, 32767);
  int('tcp_keepalive_intvl', 75, 1, 32767);
  int('tcp_keepalive_probes', 9, 1, 127);
  int('tcp_fin_timeout', 60);
  int('tcp_app_win', 31, 0, 31);
  // Receive-buffer autotuning (tcp_rcv_space_adjust); a u8, 0-255 accepted (measured).
  int('tcp_moderate_rcvbuf', 1, 0, 255);
  // tcp_retrans_try_collapse on (a u8: 0-255 accepted, measured).
  int('tcp_retrans_collapse', 1, 0, 255);
  // Loss recovery (tcp_sk_init): RACK on, F-RTO's SACK-enhanced variant, TLP, the dupthresh;
  // the ranges are what 6.18 accepts (u8 knobs take 0-255).
  int('tcp_recovery', 1, 0, 255);
  int('tcp_frto', 2, 0, 255);
  int('tcp_early_retrans', 3, 0, 4);
  int('tcp_reordering', 3, 1, 300);
  int('tcp_max_reordering', 300, 1);
  int('tcp_slow_start_after_idle', 1, 0, 255);
  // The congestion control (tcp_sk_init: init_net's, Linux's default build: cubic). A fresh namespace shows the
  // available and allowed lists read-only (0444 outside init_net); packetlab has no bbr module. An unknown name
  // is ENOENT (tcp_set_default_congestion_control), checked on Linux 6.18.
  sysctls.define('net.ipv4.tcp_congestion_control', {
    defaultValue: 'cubic',
    min: 0,
    max: 0,
    parse: parseCongestionControl,
  });
  for (const key of ['tcp_available_congestion_control', 'tcp_allowed_congestion_control'])
    sysctls.define(`net.ipv4.${key}`, { defaultValue: 'reno cubic', min: 0, max: 0, readOnly: true });
  // Milliseconds between duplicate ACKs for out-of-window segments without data (tcp_oow_rate_limited).
  int('tcp_invalid_ratelimit', 500);
}

/** One field (0, 1 or 2) of tcp_rmem or tcp_wmem. */
export function bufferSysctl(sysctls: Sysctls, key: 'tcp_rmem' | 'tcp_wmem', field: 0 | 1 | 2): number {
  const value = sysctls.get(`net.ipv4.${key}`);
  const fields = value.ok ? value.value.split('\t') : [];
  return Number.parseInt(fields[field] ?? '0', 10);
}

/** net.ipv4.tcp_congestion_control: what tcp_assign_congestion_control gives a new socket. */
export function defaultCongestion(sysctls: Sysctls): CongestionAlgorithm {
  const value = sysctls.get('net.ipv4.tcp_congestion_control');
  return value.ok && isCongestionAlgorithm(value.value) ? value.value : 'cubic';
}
