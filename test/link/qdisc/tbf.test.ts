// tbf's token bucket as ladders on a manual clock: a burst larger than the bucket, the byte limit, a frame above the
// burst, refills, the peak rate's spacing, and the kernel's multiply-and-shift for bytes to nanoseconds.

import { describe, expect, it } from 'vitest';
import { NS_PER_MS, NS_PER_US } from '../../../src/core/scheduler.ts';
import { RateCfg } from '../../../src/link/qdisc/psched.ts';
import { Tbf, type TbfConfig } from '../../../src/link/qdisc/tbf.ts';
import { numberOf, QdiscBench } from './host.ts';

/** 1 Mbit/s: 125,000 bytes/s, 8 us a byte, 8 ms for a 1000-byte frame. */
const MBIT = 125_000;

function tbf(config: Partial<TbfConfig>): QdiscBench {
  return new QdiscBench(
    new Tbf(0x8001, { rate: MBIT, burst: 4096, limit: 3000, peakrate: 0, mtu: 0, ...config }),
  );
}

/** One line per frame that left: its number and the time in microseconds. */
function ladder(bench: QdiscBench): string[] {
  return bench.departures.map((d) => `${numberOf(d.pkt)} @ ${d.timeNs / NS_PER_US} us`);
}

describe('tbf token bucket', () => {
  it('passes a burst up to the bucket, queues up to the limit, drops the rest, then paces at the rate', () => {
    const bench = tbf({});
    for (let i = 1; i <= 10; i++) bench.sendNumbered(i, 1000);
    // Bucket 4096 bytes = 32.768 ms of tokens: four 8 ms frames leave at once, 0.768 ms remain.
    // The FIFO holds 3000 bytes (frames 5-7); 8-10 are dropped.
    expect(bench.dropped.map(numberOf)).toEqual([8, 9, 10]);
    bench.scheduler.runUntilIdle();
    expect(ladder(bench)).toEqual([
      '1 @ 0 us',
      '2 @ 0 us',
      '3 @ 0 us',
      '4 @ 0 us',
      '5 @ 7232 us',
      '6 @ 15232 us',
      '7 @ 23232 us',
    ]);
    expect(bench.qdisc.stats).toMatchObject({ packets: 7, bytes: 7000, drops: 3, backlog: 0, qlen: 0 });
    // The head was found short of tokens once per enqueue after the bucket emptied and once per early wake-up.
    expect(bench.qdisc.stats.overlimits).toBeGreaterThan(0);
  });

  it('refills the bucket while idle, never beyond the burst', () => {
    const bench = tbf({ limit: 100_000 });
    for (let i = 1; i <= 4; i++) bench.sendNumbered(i, 1000);
    bench.scheduler.runFor(NS_PER_MS * 1000);
    for (let i = 5; i <= 9; i++) bench.sendNumbered(i, 1000);
    bench.scheduler.runUntilIdle();
    expect(ladder(bench).slice(4)).toEqual([
      '5 @ 1000000 us',
      '6 @ 1000000 us',
      '7 @ 1000000 us',
      '8 @ 1000000 us',
      '9 @ 1007232 us',
    ]);
  });

  it('drops a frame larger than the burst at once, whatever the tokens', () => {
    const bench = tbf({ burst: 1000, limit: 10_000 });
    bench.sendNumbered(1, 1001);
    bench.sendNumbered(2, 1000);
    expect(bench.dropped.map(numberOf)).toEqual([1]);
    expect(ladder(bench)).toEqual(['2 @ 0 us']);
  });

  it('spaces frames at the peak rate within the burst', () => {
    // Peak 2 Mbit/s with a 1500-byte peak bucket (6 ms): a 1000-byte frame costs 4 ms of peak tokens.
    const bench = tbf({ burst: 10_240, limit: 100_000, peakrate: 2 * MBIT, mtu: 1500 });
    for (let i = 1; i <= 4; i++) bench.sendNumbered(i, 1000);
    bench.scheduler.runUntilIdle();
    expect(ladder(bench)).toEqual(['1 @ 0 us', '2 @ 2000 us', '3 @ 6000 us', '4 @ 10000 us']);
  });

  it('starts again full after a change', () => {
    const qdisc = new Tbf(1, { rate: MBIT, burst: 2000, limit: 10_000, peakrate: 0, mtu: 0 });
    const bench = new QdiscBench(qdisc);
    bench.sendNumbered(1, 1000);
    bench.sendNumbered(2, 1000);
    bench.sendNumbered(3, 1000);
    expect(ladder(bench)).toEqual(['1 @ 0 us', '2 @ 0 us']);
    qdisc.change({ rate: MBIT, burst: 4000, limit: 10_000, peakrate: 0, mtu: 0 });
    bench.sendNumbered(4, 1000);
    expect(ladder(bench)).toEqual(['1 @ 0 us', '2 @ 0 us', '3 @ 0 us', '4 @ 0 us']);
  });
});

describe('psched rate configuration', () => {
  it('computes the mult and shift of psched_ratecfg_precompute', () => {
    const rate = new RateCfg(MBIT);
    expect([rate.mult, rate.shift]).toEqual([4_194_304_000, 19]);
    expect(rate.lengthToNs(1514)).toBe(12_112_000);
  });

  it('rounds down where the rate does not divide a second: 1.5 Mbit/s gives 7,999,999 ns for 1500 bytes', () => {
    expect(new RateCfg(187_500).lengthToNs(1500)).toBe(7_999_999);
  });

  it('stays exact for a large burst at a slow rate', () => {
    expect(new RateCfg(125).lengthToNs(10_240)).toBe(81_920_000_000);
  });
});
