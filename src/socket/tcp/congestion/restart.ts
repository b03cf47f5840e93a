// Restarting the window after idle (tcp_output.c: tcp_cwnd_restart, tcp_slow_start_after_idle_check
// with net.ipv4.tcp_slow_start_after_idle); no route metrics (tcp_init_cwnd takes TCP_INIT_CWND).

import type { CongestionOps, CwndState } from './types.ts';
import { currentSsthresh } from './types.ts';

/** TCP_INIT_CWND. */
export const TCP_INIT_CWND = 10;

/**
 * tcp_cwnd_restart: idle for `delta` jiffies, cwnd halves once per RTO that passed, down to
 * the initial window (or the current one if smaller); ssthresh keeps 3/4 of the old cwnd.
 */
export function cwndRestart(tp: CwndState, ca: CongestionOps, delta: number, rtoJiffies: number): void {
  const cwndNow = tp.cwnd;
  ca.cwndEvent(tp, 'CWND_RESTART');
  tp.ssthresh = currentSsthresh(tp);
  const restartCwnd = Math.min(TCP_INIT_CWND, cwndNow);
  let cwnd = cwndNow;
  for (delta -= rtoJiffies; delta > 0 && cwnd > restartCwnd; delta -= rtoJiffies) cwnd >>>= 1;
  tp.cwnd = Math.max(cwnd, restartCwnd);
  tp.cwndStamp = tp.jiffies;
}

/**
 * tcp_slow_start_after_idle_check, called before sending new data: with tcp_slow_start_after_idle
 * (default 1) and nothing in flight, an idle period longer than the RTO restarts the window.
 */
export function slowStartAfterIdleCheck(
  tp: CwndState,
  ca: CongestionOps,
  options: { readonly enabled: boolean; readonly packetsOut: number; readonly rtoJiffies: number },
): void {
  if (!options.enabled || options.packetsOut > 0) return;
  const delta = (tp.jiffies - tp.lsndtime) | 0;
  if (delta > options.rtoJiffies) cwndRestart(tp, ca, delta, options.rtoJiffies);
}
