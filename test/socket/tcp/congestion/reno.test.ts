import { describe, expect, it } from 'vitest';
import { congAvoidAi, Reno, slowStart } from '../../../../src/socket/tcp/congestion/reno.ts';
import { cwndRestart, slowStartAfterIdleCheck } from '../../../../src/socket/tcp/congestion/restart.ts';
import { CwndState, currentSsthresh } from '../../../../src/socket/tcp/congestion/types.ts';

function state(cwnd: number, ssthresh = 0x7fffffff): CwndState {
  const tp = new CwndState();
  tp.cwnd = cwnd;
  tp.ssthresh = ssthresh;
  return tp;
}

describe('Reno (tcp_cong.c)', () => {
  it('tcp_slow_start stops at ssthresh and hands back what is left over', () => {
    const tp = state(10, 13);
    expect(slowStart(tp, 2)).toBe(0);
    expect(tp.cwnd).toBe(12);
    expect(slowStart(tp, 3)).toBe(2);
    expect(tp.cwnd).toBe(13);
  });

  it('ladder: slow start from 10 with delayed ACKs (2 segments each), a loss, then one segment per cwnd', () => {
    const reno = new Reno();
    const tp = state(10);
    const cwnds: number[] = [];
    for (let ack = 0; ack < 5; ack++) {
      reno.congAvoid(tp, 0, 2, true);
      cwnds.push(tp.cwnd);
    }
    expect(cwnds).toEqual([12, 14, 16, 18, 20]);
    // A loss: ssthresh = cwnd / 2, cwnd back to it once recovery ends (tcp_end_cwnd_reduction).
    tp.ssthresh = reno.ssthresh(tp);
    expect(tp.ssthresh).toBe(10);
    tp.cwnd = tp.ssthresh;
    // Congestion avoidance: snd_cwnd_cnt counts ACKed segments; +1 when it reaches cwnd.
    const ladder: [number, number][] = [];
    for (let ack = 1; ack <= 12; ack++) {
      reno.congAvoid(tp, 0, 2, true);
      ladder.push([tp.cwnd, tp.cwndCnt]);
    }
    expect(ladder).toEqual([
      [10, 2],
      [10, 4],
      [10, 6],
      [10, 8],
      [11, 0],
      [11, 2],
      [11, 4],
      [11, 6],
      [11, 8],
      [11, 10],
      [12, 1],
      [12, 3],
    ]);
  });

  it('an ACK that crosses ssthresh spends the rest in congestion avoidance', () => {
    const reno = new Reno();
    const tp = state(9, 10);
    reno.congAvoid(tp, 0, 3, true);
    expect([tp.cwnd, tp.cwndCnt]).toEqual([10, 2]);
  });

  it('not cwnd-limited: no growth', () => {
    const reno = new Reno();
    const tp = state(10);
    reno.congAvoid(tp, 0, 2, false);
    expect(tp.cwnd).toBe(10);
  });

  it('tcp_cong_avoid_ai applies credits earned at a larger w first', () => {
    const tp = state(20, 10);
    tp.cwndCnt = 25;
    congAvoidAi(tp, 20, 1);
    expect([tp.cwnd, tp.cwndCnt]).toEqual([21, 1]);
  });

  it('ssthresh is at least 2; undo returns to prior_cwnd', () => {
    const reno = new Reno();
    expect(reno.ssthresh(state(3))).toBe(2);
    const tp = state(5);
    tp.priorCwnd = 20;
    expect(reno.undoCwnd(tp)).toBe(20);
  });
});

describe('restart after idle (tcp_cwnd_restart, tcp_slow_start_after_idle)', () => {
  it('halves once per RTO idle, down to the initial window; ssthresh keeps 3/4 of cwnd', () => {
    const reno = new Reno();
    const tp = state(40, 20);
    cwndRestart(tp, reno, 700, 200);
    // 700-200 = 500 > 0: 20; 300 > 0: 10; 100 > 0 but cwnd is at 10.
    expect(tp.cwnd).toBe(10);
    expect(tp.ssthresh).toBe(30);
    const short = state(40, 20);
    cwndRestart(short, reno, 250, 200);
    expect(short.cwnd).toBe(20);
  });

  it('runs only with nothing in flight and an idle period longer than the RTO', () => {
    const reno = new Reno();
    const tp = state(40, 20);
    tp.lsndtime = 1000;
    tp.jiffies = 1200;
    slowStartAfterIdleCheck(tp, reno, { enabled: true, packetsOut: 0, rtoJiffies: 200 });
    expect(tp.cwnd).toBe(40);
    tp.jiffies = 1201;
    slowStartAfterIdleCheck(tp, reno, { enabled: true, packetsOut: 1, rtoJiffies: 200 });
    expect(tp.cwnd).toBe(40);
    slowStartAfterIdleCheck(tp, reno, { enabled: false, packetsOut: 0, rtoJiffies: 200 });
    expect(tp.cwnd).toBe(40);
    slowStartAfterIdleCheck(tp, reno, { enabled: true, packetsOut: 0, rtoJiffies: 200 });
    // delta 201: 201 - 200 = 1 > 0, one halving.
    expect(tp.cwnd).toBe(20);
  });

  it('tcp_current_ssthresh: in a reduction, ssthresh itself', () => {
    const tp = state(40, 10);
    expect(currentSsthresh(tp)).toBe(30);
    tp.caState = 'Recovery';
    expect(currentSsthresh(tp)).toBe(10);
  });
});
