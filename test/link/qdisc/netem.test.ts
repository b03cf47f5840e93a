// netem's decisions on a manual clock with a fixed seed: delay, jitter and distributions, loss statistics, duplicates,
// reordering with a gap, corruption (one bit, a failing checksum), the limit, the rate and replay from a seed.

import { describe, expect, it } from 'vitest';
import { Packet } from '../../../src/core/packet.ts';
import { Rng } from '../../../src/core/rng.ts';
import { NS_PER_MS } from '../../../src/core/scheduler.ts';
import {
  NETEM_DEFAULTS,
  Netem,
  type NetemConfig,
  percentToProbability,
} from '../../../src/link/qdisc/netem.ts';
import { isWireError } from '../../../src/wire/error.ts';
import { Icmpv4View, parseIcmpv4 } from '../../../src/wire/icmpv4.ts';
import { Ipv4View, parseIpv4 } from '../../../src/wire/ipv4.ts';
import { ethernet, icmp, ip, mac } from '../../support/frames.ts';
import { numberOf, QdiscBench } from './host.ts';

function netem(overrides: Partial<NetemConfig>, seed = 'netem-test'): QdiscBench {
  return new QdiscBench(new Netem(0x8001, { ...NETEM_DEFAULTS, ...overrides }, new Rng(seed)));
}

const ms = (n: number): number => n * NS_PER_MS;
const pct = percentToProbability;

describe('netem delay', () => {
  it('holds every frame for the fixed delay and keeps their order', () => {
    const bench = netem({ latencyNs: ms(10) });
    bench.sendNumbered(1);
    bench.scheduler.runFor(ms(3));
    bench.sendNumbered(2);
    expect(bench.departures).toEqual([]);
    bench.scheduler.runUntilIdle();
    expect(bench.departures.map((d) => [numberOf(d.pkt), d.timeNs])).toEqual([
      [1, ms(10)],
      [2, ms(13)],
    ]);
    expect(bench.qdisc.stats).toMatchObject({ packets: 2, bytes: 200, backlog: 0, qlen: 0, drops: 0 });
  });

  it('counts the backlog while frames wait', () => {
    const bench = netem({ latencyNs: ms(10) });
    bench.sendNumbered(1, 300);
    bench.sendNumbered(2, 200);
    expect(bench.qdisc.stats).toMatchObject({ backlog: 500, qlen: 2, packets: 0 });
  });

  it('spreads a uniform jitter over [delay - jitter, delay + jitter)', () => {
    const bench = netem({ latencyNs: ms(10), jitterNs: ms(2) });
    for (let i = 0; i < 2000; i++) bench.sendNumbered(i);
    bench.scheduler.runUntilIdle();
    const delays = bench.departures.map((d) => d.timeNs);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(ms(8));
    expect(Math.max(...delays)).toBeLessThan(ms(12));
    const mean = delays.reduce((a, b) => a + b, 0) / delays.length;
    expect(Math.abs(mean - ms(10))).toBeLessThan(ms(0.1));
  });

  it('draws a normal jitter from the table: mean the delay, standard deviation the jitter', () => {
    const bench = netem({ latencyNs: ms(100), jitterNs: ms(10), distribution: 'normal' });
    for (let i = 0; i < 10000; i++) bench.sendNumbered(i);
    bench.scheduler.runUntilIdle();
    const delays = bench.departures.map((d) => d.timeNs / NS_PER_MS);
    const mean = delays.reduce((a, b) => a + b, 0) / delays.length;
    const sd = Math.sqrt(delays.reduce((a, b) => a + (b - mean) ** 2, 0) / delays.length);
    expect(Math.abs(mean - 100)).toBeLessThan(0.5);
    expect(Math.abs(sd - 10)).toBeLessThan(0.5);
  });

  it('sends frames in time_to_send order when jitter overtakes the queue', () => {
    const bench = netem({ latencyNs: ms(10), jitterNs: ms(9) });
    for (let i = 0; i < 50; i++) bench.sendNumbered(i);
    bench.scheduler.runUntilIdle();
    const times = bench.departures.map((d) => d.timeNs);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(bench.departures.map((d) => numberOf(d.pkt))).not.toEqual([...Array(50).keys()]);
  });
});

describe('netem loss', () => {
  it('drops about the given share of 10,000 frames and counts each drop', () => {
    const bench = netem({ loss: pct(10) });
    for (let i = 0; i < 10000; i++) bench.sendNumbered(i);
    // A binomial(10000, 0.1) lies within 10% +- 1% with probability above 0.999.
    expect(bench.dropped.length).toBeGreaterThan(900);
    expect(bench.dropped.length).toBeLessThan(1100);
    expect(bench.qdisc.stats.drops).toBe(bench.dropped.length);
    expect(bench.departures.length + bench.dropped.length).toBe(10000);
  });

  it('drops everything at 100% and nothing at 0%', () => {
    const all = netem({ loss: pct(100) });
    const none = netem({});
    for (let i = 0; i < 100; i++) {
      all.sendNumbered(i);
      none.sendNumbered(i);
    }
    expect(all.departures.length).toBe(0);
    expect(none.departures.length).toBe(100);
  });

  it('makes the same decisions from the same seed, and others from another', () => {
    const pattern = (seed: string): string => {
      const bench = netem({ loss: pct(30), latencyNs: ms(5), jitterNs: ms(4) }, seed);
      for (let i = 0; i < 200; i++) bench.sendNumbered(i);
      bench.scheduler.runUntilIdle();
      return bench.departures.map((d) => `${numberOf(d.pkt)}@${d.timeNs}`).join(' ');
    };
    expect(pattern('a')).toBe(pattern('a'));
    expect(pattern('a')).not.toBe(pattern('b'));
  });

  it('correlates successive losses: 90% correlation makes longer runs than none', () => {
    const runs = (correlation: number): number => {
      const bench = netem({ loss: pct(50), lossCorrelation: pct(correlation) });
      let changes = 0;
      let last = -1;
      for (let i = 0; i < 5000; i++) {
        const before = bench.dropped.length;
        bench.sendNumbered(i);
        const lost = bench.dropped.length > before ? 1 : 0;
        if (lost !== last) changes++;
        last = lost;
      }
      return changes;
    };
    expect(runs(90)).toBeLessThan(runs(0) / 3);
  });
});

describe('netem duplicate', () => {
  it('sends a clone next to the frame: another packet with the same bytes, never duplicated again', () => {
    const bench = netem({ duplicate: pct(100) });
    const sent = bench.sendNumbered(7);
    expect(bench.departures.length).toBe(2);
    const [first, second] = bench.departures;
    expect(second!.pkt).toBe(sent);
    expect(first!.pkt).not.toBe(sent);
    expect(first!.pkt.frame()).toEqual(sent.frame());
    expect(bench.qdisc.stats.packets).toBe(2);
  });

  it('duplicates about the given share', () => {
    const bench = netem({ duplicate: pct(20) });
    for (let i = 0; i < 10000; i++) bench.sendNumbered(i);
    expect(bench.departures.length - 10000).toBeGreaterThan(1800);
    expect(bench.departures.length - 10000).toBeLessThan(2200);
  });
});

describe('netem reorder', () => {
  it('with reorder 100% gap 3 sends every third frame at once, ahead of the delayed ones', () => {
    const bench = netem({ latencyNs: ms(10), reorder: pct(100), gap: 3 });
    for (let i = 1; i <= 6; i++) bench.sendNumbered(i);
    expect(bench.departures.map((d) => numberOf(d.pkt))).toEqual([3, 6]);
    bench.scheduler.runUntilIdle();
    expect(bench.departures.map((d) => [numberOf(d.pkt), d.timeNs / NS_PER_MS])).toEqual([
      [3, 0],
      [6, 0],
      [1, 10],
      [2, 10],
      [4, 10],
      [5, 10],
    ]);
    expect(bench.qdisc.stats.requeues).toBe(2);
  });

  it('with reorder 25% and gap 1 sends about a quarter at once', () => {
    const bench = netem({ latencyNs: ms(10), reorder: pct(25), gap: 1, limit: 10000 });
    for (let i = 0; i < 4000; i++) bench.sendNumbered(i);
    expect(bench.departures.length).toBeGreaterThan(900);
    expect(bench.departures.length).toBeLessThan(1100);
  });
});

describe('netem corrupt', () => {
  const echo = (seq: number): Packet =>
    Packet.fromFrame(
      ethernet(
        { dst: mac('02:00:00:00:00:02'), src: mac('02:00:00:00:00:01'), ethertype: 0x0800 },
        icmp(
          { src: ip('10.0.0.1'), dst: ip('10.0.0.2') },
          { kind: 'echo-request', ident: 0x1234, seqNo: seq, data: new Uint8Array(56).fill(seq) },
        ),
      ),
    );

  it('flips exactly one bit per frame, and a frame flipped past its Ethernet header fails its checks', () => {
    const bench = netem({ corrupt: pct(100) });
    let checked = 0;
    for (let seq = 0; seq < 300; seq++) {
      const pkt = echo(seq);
      const original = pkt.frame().slice();
      bench.send(pkt);
      const out = bench.departures.at(-1)!.pkt.frame();
      let bits = 0;
      let at = -1;
      for (let i = 0; i < out.length; i++) {
        const x = out[i]! ^ original[i]!;
        if (x !== 0) at = i;
        for (let b = x; b !== 0; b &= b - 1) bits++;
      }
      expect(bits).toBe(1);
      if (at < 14) continue;
      checked++;
      const view = Ipv4View.checked(out, 14);
      const header = isWireError(view) ? view : parseIpv4(view);
      if (isWireError(header) || isWireError(view)) continue;
      const icmpView = Icmpv4View.checked(view.payload());
      const message = isWireError(icmpView) ? icmpView : parseIcmpv4(icmpView);
      expect(isWireError(message)).toBe(true);
    }
    expect(checked).toBeGreaterThan(250);
  });

  it('leaves frames alone at 0%', () => {
    const bench = netem({ latencyNs: 0 });
    const pkt = echo(1);
    const original = pkt.frame().slice();
    bench.send(pkt);
    expect(bench.departures[0]!.pkt.frame()).toEqual(original);
  });
});

describe('netem limit and rate', () => {
  it('checks the limit before reordering: a full tfifo drops even a frame that would jump the queue', () => {
    const bench = netem({ latencyNs: ms(10), reorder: pct(100), gap: 2, limit: 2 });
    for (let i = 1; i <= 6; i++) bench.sendNumbered(i);
    // 1 delayed, 2 reordered (sent at once), 3 delayed: the tfifo holds its 2, so 4 (due to jump) and the rest drop.
    expect(bench.departures.map((d) => numberOf(d.pkt))).toEqual([2]);
    expect(bench.dropped.map(numberOf)).toEqual([4, 5, 6]);
  });

  it('drops frames beyond the limit while the others wait', () => {
    const bench = netem({ latencyNs: ms(1000), limit: 5 });
    for (let i = 0; i < 8; i++) bench.sendNumbered(i);
    expect(bench.dropped.map(numberOf)).toEqual([5, 6, 7]);
    expect(bench.qdisc.stats).toMatchObject({ drops: 3, qlen: 5 });
  });

  it('serialises frames at the rate, one after the other', () => {
    // 1 Mbit/s is 125,000 bytes/s: a 1000-byte frame takes 8 ms.
    const bench = netem({ rate: 125_000 });
    for (let i = 0; i < 3; i++) bench.sendNumbered(i, 1000);
    bench.scheduler.runUntilIdle();
    expect(bench.departures.map((d) => d.timeNs / NS_PER_MS)).toEqual([8, 16, 24]);
  });

  it('adds the rate after the delay and counts the overhead', () => {
    const bench = netem({ rate: 125_000, latencyNs: ms(10), packetOverhead: 24 });
    bench.sendNumbered(0, 976);
    bench.scheduler.runUntilIdle();
    expect(bench.departures[0]!.timeNs).toBe(ms(18));
  });
});
