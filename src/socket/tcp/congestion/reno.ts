// NewReno's window growth (tcp_cong.c: tcp_slow_start, tcp_cong_avoid_ai, tcp_reno_cong_avoid,
// tcp_reno_ssthresh, tcp_reno_undo_cwnd), the helpers CUBIC shares; no ABC beyond what tcp_slow_start does.

import type { AckSample, CaEvent, CaState, CongestionOps, CwndState } from './types.ts';
import { inSlowStart } from './types.ts';

/** tcp_slow_start: cwnd grows by the segments ACKed, up to ssthresh; returns the ACKed segments left over. */
export function slowStart(tp: CwndState, acked: number): number {
  const cwnd = Math.min(tp.cwnd + acked, tp.ssthresh);
  acked -= cwnd - tp.cwnd;
  tp.cwnd = Math.min(cwnd, tp.cwndClamp);
  return acked;
}

/** tcp_cong_avoid_ai: one segment more per `w` segments ACKed (credits kept in snd_cwnd_cnt). */
export function congAvoidAi(tp: CwndState, w: number, acked: number): void {
  // If credits accumulated at a higher w, apply them gently now.
  if (tp.cwndCnt >= w) {
    tp.cwndCnt = 0;
    tp.cwnd++;
  }
  tp.cwndCnt += acked;
  if (tp.cwndCnt >= w) {
    const delta = Math.floor(tp.cwndCnt / w);
    tp.cwndCnt -= delta * w;
    tp.cwnd += delta;
  }
  tp.cwnd = Math.min(tp.cwnd, tp.cwndClamp);
}

export class Reno implements CongestionOps {
  readonly name = 'reno';

  init(_tp: CwndState): void {}

  /** tcp_reno_ssthresh. */
  ssthresh(tp: CwndState): number {
    return Math.max(tp.cwnd >>> 1, 2);
  }

  /** tcp_reno_cong_avoid. */
  congAvoid(tp: CwndState, _ack: number, acked: number, cwndLimited: boolean): void {
    if (!cwndLimited) return;
    if (inSlowStart(tp)) {
      acked = slowStart(tp, acked);
      if (acked === 0) return;
    }
    congAvoidAi(tp, tp.cwnd, acked);
  }

  setState(_tp: CwndState, _state: CaState): void {}

  cwndEvent(_tp: CwndState, _event: CaEvent): void {}

  /** tcp_reno_undo_cwnd. */
  undoCwnd(tp: CwndState): number {
    return Math.max(tp.cwnd, tp.priorCwnd);
  }

  pktsAcked(_tp: CwndState, _sample: AckSample): void {}
}
