import { describe, expect, it } from 'vitest';
import { Cubic, cubicRoot } from '../../../../src/socket/tcp/congestion/cubic.ts';
import { CwndState } from '../../../../src/socket/tcp/congestion/types.ts';

// Expected values follow tcp_cubic.c's integer arithmetic at HZ=1000 (jiffies in ms, delays in µs),
// worked through by hand for the first steps and by a line-by-line transcription of the C for the rest.

describe('cubic_root (table lookup and one Newton-Raphson step)', () => {
  it('exact on small cubes, within the table for tiny inputs', () => {
    expect([0, 1, 7, 8, 63, 64, 1000, 27_000_000].map(cubicRoot)).toEqual([0, 1, 2, 2, 4, 4, 10, 300]);
  });

  it('K for W_max 100 -> 70: cbrt(cube_factor * 30) = 4316 (1/1024 s, 4.21 s; the real cbrt(75) is 4.217)', () => {
    expect(cubicRoot(2_681_735_677 * 30)).toBe(4316);
  });
});

/** A CUBIC connection that lost at cwnd 100 at jiffy 1000 and left recovery at cwnd = ssthresh. */
function afterLoss(delayUs: number) {
  const cubic = new Cubic();
  const tp = new CwndState();
  tp.jiffies = 1000;
  tp.nowUs = 1_000_000;
  cubic.init(tp);
  tp.cwnd = 100;
  if (delayUs > 0) cubic.pktsAcked(tp, { pktsAcked: 1, rttUs: delayUs });
  tp.ssthresh = cubic.ssthresh(tp);
  tp.cwnd = tp.ssthresh;
  return { cubic, tp };
}

/** One ACK of one segment every millisecond; the cwnd, snd_cwnd_cnt, ca->cnt and Reno estimate at the listed ACKs. */
function run(delayUs: number, report: number[]) {
  const { cubic, tp } = afterLoss(delayUs);
  const rows: number[][] = [];
  const last = report[report.length - 1]!;
  for (let ack = 1; ack <= last; ack++) {
    tp.jiffies = 1000 + ack;
    tp.nowUs = tp.jiffies * 1000;
    if (delayUs > 0) cubic.pktsAcked(tp, { pktsAcked: 1, rttUs: delayUs });
    cubic.congAvoid(tp, 0, 1, true);
    if (report.includes(ack)) rows.push([ack, tp.cwnd, tp.cwndCnt, cubic.cnt, cubic.tcpCwnd]);
  }
  return { cubic, tp, rows };
}

describe('CUBIC window growth after a loss (bictcp_update, tcp_cong_avoid_ai)', () => {
  it('the loss: beta 717/1024 gives ssthresh 70, W_max 100', () => {
    const { cubic, tp } = afterLoss(0);
    expect(tp.ssthresh).toBe(70);
    expect(cubic.lastMaxCwnd).toBe(100);
    expect(cubic.epochStart).toBe(0);
  });

  it('fast convergence: a loss below the last W_max remembers (1 + beta) / 2 of cwnd', () => {
    const { cubic, tp } = afterLoss(0);
    tp.cwnd = 80;
    expect(cubic.ssthresh(tp)).toBe(56);
    expect(cubic.lastMaxCwnd).toBe(68);
  });

  it('ladder without a delay sample: concave up to W_max, a plateau around K, then convex', () => {
    // ACK 1: epoch starts at jiffy 1001, K = 4316, t = 0, offs = 4316,
    // delta = 410 * 4316^3 >> 40 = 29, target = 100 - 29 = 71, cnt = 70 / (71 - 70) = 70.
    const { rows, cubic } = run(
      0,
      [1, 2, 31, 32, 33, 100, 500, 1000, 2000, 3000, 4000, 4216, 4300, 5000, 6000],
    );
    expect(cubic.bicK).toBe(4316);
    expect(rows).toEqual([
      [1, 70, 1, 70, 70],
      [2, 70, 2, 70, 70],
      [31, 70, 31, 70, 70],
      [32, 70, 32, 70, 70],
      [33, 70, 33, 70, 70],
      [100, 72, 1, 72, 70],
      [500, 79, 4, 79, 73],
      [1000, 86, 49, 86, 76],
      [2000, 96, 76, 9600, 82],
      [3000, 100, 112, 10000, 87],
      [4000, 100, 1112, 10000, 93],
      [4216, 100, 1328, 10000, 94],
      [4300, 100, 1412, 10000, 94],
      [5000, 100, 2112, 10000, 98],
      [6000, 103, 165, 10300, 103],
    ]);
  });

  it('ladder with delay_min 100 ms: t runs one RTT ahead (usecs_to_jiffies(delay_min))', () => {
    // ACK 1: t = (0 + 100) << 10 / 1000 = 102, offs = 4214, delta = 27, target 73, cnt = 70 / 3 = 23.
    const { rows } = run(100_000, [1, 2, 100, 1000, 2000, 3000, 4000, 5000, 6000]);
    expect(rows).toEqual([
      [1, 70, 1, 23, 70],
      [2, 70, 2, 23, 70],
      [100, 73, 9, 73, 70],
      [1000, 87, 64, 87, 76],
      [2000, 97, 16, 9700, 82],
      [3000, 100, 213, 10000, 87],
      [4000, 100, 1213, 10000, 92],
      [5000, 100, 2213, 10000, 98],
      [6000, 103, 138, 10300, 103],
    ]);
  });

  it('the first epoch with no W_max grows at least 5% per RTT (cnt capped at 20)', () => {
    const cubic = new Cubic();
    const tp = new CwndState();
    tp.jiffies = 5000;
    cubic.init(tp);
    tp.cwnd = 50;
    tp.ssthresh = 50;
    cubic.congAvoid(tp, 0, 1, true);
    expect(cubic.cnt).toBe(20);
  });

  it('an RTO (set_state Loss) forgets W_max and the epoch', () => {
    const { cubic, tp } = run(0, [10]);
    cubic.setState(tp, 'Loss');
    expect([cubic.lastMaxCwnd, cubic.epochStart, cubic.bicK]).toEqual([0, 0, 0]);
  });

  it('CA_EVENT_TX_START after idle shifts the epoch by the idle time, never past now', () => {
    const { cubic, tp } = run(0, [10]);
    expect(cubic.epochStart).toBe(1001);
    tp.lsndtime = 1010;
    tp.jiffies = 1510;
    cubic.cwndEvent(tp, 'TX_START');
    expect(cubic.epochStart).toBe(1501);
    tp.lsndtime = 0;
    cubic.cwndEvent(tp, 'TX_START');
    expect(cubic.epochStart).toBe(1510);
  });

  it('samples within a second of the epoch start are ignored for delay_min', () => {
    const { cubic, tp } = run(0, [10]);
    cubic.pktsAcked(tp, { pktsAcked: 1, rttUs: 5000 });
    expect(cubic.delayMin).toBe(0);
    tp.jiffies = 2001;
    cubic.pktsAcked(tp, { pktsAcked: 1, rttUs: 5000 });
    expect(cubic.delayMin).toBe(5000);
  });
});

describe('HyStart (hystart_update)', () => {
  function slowStarting(sndNxt: number) {
    const cubic = new Cubic();
    const tp = new CwndState();
    tp.nowUs = 1_000_000;
    tp.jiffies = 1000;
    tp.sndNxt = sndNxt;
    cubic.init(tp);
    tp.cwnd = 16;
    return { cubic, tp };
  }

  it('ACK train: ACKs 100 µs apart for longer than delay_min / 2 (5 ms) end slow start at cwnd 67', () => {
    const { cubic, tp } = slowStarting(1000);
    let exitAck = 0;
    for (let ack = 1; ack <= 60 && exitAck === 0; ack++) {
      tp.nowUs = 1_000_000 + 100 * ack;
      tp.sndUna = 1000 + ack * 1448;
      // The first ACK passes end_seq: a new round starts there, ending at snd_nxt.
      if (ack === 1) tp.sndNxt = 10_000_000;
      cubic.pktsAcked(tp, { pktsAcked: 1, rttUs: 10_000 });
      if (cubic.found) exitAck = ack;
      cubic.congAvoid(tp, 0, 1, true);
    }
    // Round start at ACK 1 (1 000 100 µs); 100 * (52 - 1) = 5100 > 5000 at ACK 52, after 51 slow-start steps.
    expect(exitAck).toBe(52);
    expect(tp.ssthresh).toBe(67);
    expect(tp.cwnd).toBe(67);
  });

  it('delay increase: eight samples in a round all above delay_min + 4 ms end slow start', () => {
    const { cubic, tp } = slowStarting(5000);
    let exitAck = 0;
    for (let ack = 1; ack <= 12 && exitAck === 0; ack++) {
      tp.nowUs = 1_000_000 + 3000 * ack; // 3 ms apart: no ACK train
      tp.sndUna = ack === 1 ? 1000 : 6000;
      if (ack === 2) tp.sndNxt = 10_000_000;
      cubic.pktsAcked(tp, { pktsAcked: 1, rttUs: ack === 1 ? 10_000 : 15_000 });
      if (cubic.found) exitAck = ack;
      cubic.congAvoid(tp, 0, 1, true);
    }
    // ACK 2 starts the round; samples 2..9 fill HYSTART_MIN_SAMPLES; ACK 10 sees 15 ms > 10 + clamp(1.25, 4, 16) ms.
    expect(exitAck).toBe(10);
    expect(tp.ssthresh).toBe(25);
  });

  it('below hystart_low_window (16) nothing is checked', () => {
    const { cubic, tp } = slowStarting(1000);
    tp.cwnd = 15;
    tp.sndNxt = 10_000_000;
    for (let ack = 1; ack <= 100; ack++) {
      tp.nowUs = 1_000_000 + 100 * ack;
      cubic.pktsAcked(tp, { pktsAcked: 1, rttUs: 10_000 });
      tp.cwnd = 15;
    }
    expect(cubic.found).toBe(false);
  });
});
