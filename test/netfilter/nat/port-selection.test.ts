// The port search of nf_nat_l4proto_unique_tuple, watched probe by probe through a spy on Conntrack.isNatTupleUsed: rounds of 128, 64, 32, 16 and 8 consecutive ports from fresh random offsets (248 probes at most), single rounds for small ranges, and the TIME_WAIT eviction of the last probes.

import { describe, expect, it, vi } from 'vitest';
import type { Packet } from '../../../src/core/packet.ts';
import type { Conntrack } from '../../../src/netfilter/conntrack/conntrack.ts';
import type { NatExpr } from '../../../src/netfilter/nat/nat.ts';
import { tcpPacket, udpPacket } from '../../support/packets.ts';
import { flow, forward, type Lab, lab, natHook, snat } from './harness.ts';

/** The router's own UDP flows from 192.168.1.1:port to 1.1.1.1:53 (null-bound at OUTPUT and POSTROUTING), holding those ports. */
function occupy(l: Lab, ports: Iterable<number>): void {
  for (const port of ports) {
    const pkt = udpPacket(`192.168.1.1:${port}`, '1.1.1.1:53');
    l.ct.process(pkt, 'OUTPUT', 0);
    expect(natHook(l, pkt, 'output', undefined)).toBe('accept');
    expect(natHook(l, pkt, 'postrouting', undefined)).toBe('accept');
    expect(l.ct.confirm(pkt, 0)).toBe('accept');
  }
}

/**
 * A new flow forwarded by the router with `rule` at POSTROUTING, the source port of every
 * probe made there recorded (PREROUTING's null binding, one probe, is not counted).
 */
function postrouting(l: Lab, pkt: Packet, rule: NatExpr): { probed: number[]; result: string } {
  l.ct.process(pkt, 'PREROUTING', 0);
  expect(natHook(l, pkt, 'prerouting', undefined)).toBe('accept');
  const probed = spyProbes(l.ct);
  expect(natHook(l, pkt, 'postrouting', rule)).toBe('accept');
  vi.restoreAllMocks();
  return { probed, result: l.ct.confirm(pkt, 0) };
}

function range(low: number, high: number): number[] {
  return Array.from({ length: high - low + 1 }, (_, k) => low + k);
}

/** Records the source port of every probe. */
function spyProbes(ct: Conntrack): number[] {
  const probed: number[] = [];
  const original = ct.isNatTupleUsed.bind(ct);
  vi.spyOn(ct, 'isNatTupleUsed').mockImplementation((tuple, ignored, now) => {
    probed.push(tuple.srcPort);
    return original(tuple, ignored, now);
  });
  return probed;
}

/** Splits probes into runs of consecutive ports (wrapping from `high` to `low`). */
function runs(probed: readonly number[], low: number, high: number): number[] {
  const lengths: number[] = [];
  let length = 0;
  for (let k = 0; k < probed.length; k++) {
    const previous = probed[k - 1];
    const next = previous === high ? low : (previous ?? -2) + 1;
    if (k > 0 && probed[k] === next) length++;
    else {
      if (length > 0) lengths.push(length);
      length = 1;
    }
  }
  if (length > 0) lengths.push(length);
  return lengths;
}

const newFlow = () => udpPacket('10.0.0.2:40000', '1.1.1.1:53');

describe('nf_nat_l4proto_unique_tuple', () => {
  it('probes a full range in rounds of 128, 64, 32, 16 and 8 ports, then gives up with a tuple that fails at confirm', () => {
    const l = lab('lesson');
    occupy(l, range(20000, 20999));
    const { probed, result } = postrouting(
      l,
      newFlow(),
      snat('192.168.1.1:20000-20999', { fullyRandom: true }),
    );
    expect(result).toBe('CONNTRACK_INSERT_FAILED');
    expect(probed.length).toBe(248);
    expect(runs(probed, 20000, 20999)).toEqual([128, 64, 32, 16, 8]);
    // Seed "lesson": the first round starts at 20330, the next ones at 20528, 20125, 20838, 20737.
    expect([probed[0], probed[128], probed[192], probed[224], probed[240]]).toEqual([
      20330, 20528, 20125, 20838, 20737,
    ]);
    expect(l.ct.stats.insert_failed).toBe(1);
  });

  it('finds the one free port of a nearly full range when a round crosses it', () => {
    const l = lab('lesson');
    // The 200th port the full-range search above probes (8th of its third round).
    const free = 20132;
    occupy(
      l,
      range(20000, 20999).filter((p) => p !== free),
    );
    const pkt = newFlow();
    const { probed, result } = postrouting(l, pkt, snat('192.168.1.1:20000-20999', { fullyRandom: true }));
    expect(result).toBe('accept');
    expect(flow(pkt)).toBe(`192.168.1.1:${free} > 1.1.1.1:53`);
    expect(probed.length).toBe(200);
  });

  it('searches a range smaller than 128 once, whole', () => {
    for (const size of [20, 100, 128]) {
      const l = lab('lesson');
      occupy(l, range(20000, 20000 + size - 1));
      const rule = snat(`192.168.1.1:20000-${20000 + size - 1}`, { fullyRandom: true });
      const { probed } = postrouting(l, newFlow(), rule);
      expect(probed.length).toBe(size);
      expect(new Set(probed).size).toBe(size);
    }
  });

  it('halves down to 8 for any range larger than 128', () => {
    const l = lab('lesson');
    occupy(l, range(20000, 20199));
    const { probed } = postrouting(l, newFlow(), snat('192.168.1.1:20000-20199', { fullyRandom: true }));
    expect(runs(probed, 20000, 20199).reduce((a, b) => a + b, 0)).toBe(248);
  });

  it('without random flags first checks the tuple as it is, then searches', () => {
    const l = lab('lesson');
    occupy(l, range(20000, 20999));
    const { probed } = postrouting(l, newFlow(), snat('192.168.1.1:20000-20999'));
    // Step 1 skips the original tuple (its source is out of range) and finds no mapping to
    // reuse; step 3 skips the check because 40000 is out of the port range: 248 probes only.
    expect(probed.length).toBe(248);
    const kept = lab('lesson');
    occupy(kept, range(20000, 20999));
    // Port 20500 is in the range but taken: one probe for it, then the search.
    const { probed: keptProbes } = postrouting(
      kept,
      udpPacket('10.0.0.2:20500', '1.1.1.1:53'),
      snat('192.168.1.1:20000-20999'),
    );
    expect(keptProbes.length).toBe(1 + 248);
    expect(keptProbes[0]).toBe(20500);
  });
});

describe('nf_nat_used_tuple_harder', () => {
  /** A client's TCP connection through SNAT, closed by the client, left in TIME_WAIT on the router. */
  function timeWait(l: Lab, client: string, rule: ReturnType<typeof snat>): string {
    const server = '1.1.1.1:80';
    const syn = tcpPacket({ src: client, dst: server, seq: 1000, flags: 'S' });
    expect(forward(l, syn, { postrouting: rule })).toBe('accept');
    const mapped = flow(syn).split(' ')[0]!;
    const segments: [string, string, number, number, string][] = [
      [server, mapped, 5000, 1001, 'SA'],
      [client, server, 1001, 5001, 'A'],
      [client, server, 1001, 5001, 'FA'],
      [server, mapped, 5001, 1002, 'A'],
      [server, mapped, 5001, 1002, 'FA'],
      [client, server, 1002, 5002, 'A'],
    ];
    for (const [src, dst, seq, ack, flags] of segments) {
      expect(forward(l, tcpPacket({ src, dst, seq, ack, flags }), { postrouting: rule })).toBe('accept');
    }
    expect(l.ct.tcpStateName(syn.ctIndex)).toBe('TIME_WAIT');
    return mapped;
  }

  it('lets a SYN take the port of a source-NATed TIME_WAIT connection whose sequence it has passed', () => {
    const l = lab('lesson');
    const rule = snat('192.168.1.1:5000-5001');
    const taken = [timeWait(l, '10.0.0.3:40000', rule), timeWait(l, '10.0.0.4:40000', rule)].sort();
    expect(taken).toEqual(['192.168.1.1:5000', '192.168.1.1:5001']);
    const syn = tcpPacket({ src: '10.0.0.2:40000', dst: '1.1.1.1:80', seq: 900_000, flags: 'S' });
    expect(forward(l, syn, { postrouting: rule })).toBe('accept');
    expect(taken).toContain(flow(syn).split(' ')[0]);
    expect(l.ct.entries(0).length).toBe(2);
  });

  it('leaves it alone when the new SYN is behind the old sequence numbers', () => {
    const l = lab('lesson');
    const rule = snat('192.168.1.1:5000-5001');
    timeWait(l, '10.0.0.3:40000', rule);
    timeWait(l, '10.0.0.4:40000', rule);
    const syn = tcpPacket({ src: '10.0.0.2:40000', dst: '1.1.1.1:80', seq: 10, flags: 'S' });
    expect(forward(l, syn, { postrouting: rule })).toBe('CONNTRACK_INSERT_FAILED');
    expect(l.ct.entries(0).length).toBe(2);
  });

  it('counts `found` only for the probes before the last 32: those look the holder up without nf_conntrack_tuple_taken', () => {
    const l = lab('lesson');
    const rule = snat('192.168.1.1:5000-5063');
    // 64 open connections (SYN_SENT, not evictable) hold the 64 ports.
    for (let n = 0; n < 64; n++) {
      const syn = tcpPacket({ src: `10.0.1.${n + 2}:40000`, dst: '1.1.1.1:80', seq: 1000, flags: 'S' });
      expect(forward(l, syn, { postrouting: rule })).toBe('accept');
    }
    const before = l.ct.stats.found;
    const syn = tcpPacket({ src: '10.0.0.2:40000', dst: '1.1.1.1:80', seq: 1000, flags: 'S' });
    expect(forward(l, syn, { postrouting: rule })).toBe('CONNTRACK_INSERT_FAILED');
    // One round of 64 probes: attempts_left 64..33 through nf_conntrack_tuple_taken, 32..1 through find_get.
    expect(l.ct.stats.found - before).toBe(32);
    expect(l.ct.stats.insert_failed).toBe(1);
    expect(l.ct.stats.drop).toBe(1);
  });
});
