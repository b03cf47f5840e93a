// The DNS insert race, as ladders: glibc's A and AAAA leave one socket together, both reach the kube-dns DNAT before
// either is confirmed, and the second meets the first at confirm. How that clash ends depends on the kernel
// generation (Conntrack.clash); whether the two are in flight together at all depends on the softirq model
// (Conntrack.cpus with the backlog's frame numbers).

import { describe, expect, it } from 'vitest';
import type { Packet } from '../../../src/core/packet.ts';
import {
  CLASH_RESOLUTIONS,
  type ClashResolution,
  Conntrack,
} from '../../../src/netfilter/conntrack/conntrack.ts';
import { IPS_DST_NAT, IPS_DST_NAT_DONE, IPS_NAT_CLASH } from '../../../src/netfilter/conntrack/table.ts';
import { makeTuple } from '../../../src/netfilter/conntrack/tuple.ts';
import type { SoftirqClock } from '../../../src/netfilter/host.ts';
import { ip, udpPacket } from '../../support/packets.ts';

const CLIENT = '10.244.1.5:40000';
const KUBE_DNS = '10.96.0.10:53';

/** What kube-proxy's DNAT does to an unconfirmed entry: its reply now comes from `endpoint`:53. */
function dnat(ct: Conntrack, pkt: Packet, endpoint: string): void {
  ct.setReplyTuple(pkt.ctIndex, makeTuple(ip(endpoint), ip('10.244.1.5'), 17, 53, 40000));
  ct.setStatus(pkt.ctIndex, IPS_DST_NAT | IPS_DST_NAT_DONE);
}

/** A and AAAA processed (and DNATed) before either confirms, then confirmed in order. */
function race(clash: ClashResolution, endpoints: [string, string]) {
  const ct = new Conntrack();
  ct.clash = clash;
  const a = udpPacket(CLIENT, KUBE_DNS);
  const aaaa = udpPacket(CLIENT, KUBE_DNS);
  ct.process(a, 'PREROUTING', 0);
  dnat(ct, a, endpoints[0]);
  ct.process(aaaa, 'PREROUTING', 0);
  dnat(ct, aaaa, endpoints[1]);
  const loser = aaaa.ctIndex;
  const verdicts = [ct.confirm(a, 0), ct.confirm(aaaa, 0)];
  const { insert_failed, drop, clash_resolve } = ct.stats;
  return { ct, a, aaaa, loser, verdicts, stats: { insert_failed, drop, clash_resolve } };
}

describe('the clash at confirm, by kernel generation', () => {
  // [generation, same endpoint, different endpoints]: the second packet's verdict and the counters after.
  const ladder: [ClashResolution, string, string][] = [
    ['untranslated', 'CONNTRACK_INSERT_FAILED if=1 drop=1 cr=0', 'CONNTRACK_INSERT_FAILED if=1 drop=1 cr=0'],
    ['matching', 'accept if=1 drop=0 cr=0', 'CONNTRACK_INSERT_FAILED if=1 drop=1 cr=0'],
    ['reply-only', 'accept if=0 drop=0 cr=1', 'accept if=0 drop=0 cr=1'],
  ];
  it.each(ladder)('%s: same endpoint → %s; two endpoints → %s', (clash, same, different) => {
    const line = (r: ReturnType<typeof race>) =>
      `${r.verdicts[1]} if=${r.stats.insert_failed} drop=${r.stats.drop} cr=${r.stats.clash_resolve}`;
    const one = race(clash, ['10.244.0.2', '10.244.0.2']);
    const two = race(clash, ['10.244.0.2', '10.244.0.3']);
    expect(one.verdicts[0]).toBe('accept');
    expect(line(one)).toBe(same);
    expect(line(two)).toBe(different);
  });

  it('untranslated and matching free the loser (one entry left); reply-only keeps it under its reply tuple', () => {
    for (const clash of CLASH_RESOLUTIONS) {
      const r = race(clash, ['10.244.0.2', '10.244.0.3']);
      const entries = r.ct.count;
      const answer = udpPacket('10.244.0.3:53', CLIENT);
      r.ct.process(answer, 'PREROUTING', 1e6);
      if (clash === 'reply-only') {
        expect(entries).toBe(2);
        expect(r.ct.hasStatus(r.loser, IPS_NAT_CLASH)).toBe(true);
        expect(answer.ctIndex).toBe(r.loser); // the second endpoint's answer finds its way back
      } else {
        expect(entries).toBe(1);
        expect(r.aaaa.ctIndex).toBe(-1);
        expect(answer.ctIndex).not.toBe(r.a.ctIndex); // nothing expects it: a new, unrelated entry
      }
    }
  });

  it('matching adopts the winner when both went to the same endpoint: one entry, the packet carries it', () => {
    const r = race('matching', ['10.244.0.2', '10.244.0.2']);
    expect(r.aaaa.ctIndex).toBe(r.a.ctIndex);
    expect(r.ct.count).toBe(1);
  });
});

/** Frames as the backlog numbers them: `frame` is being delivered, `behind` were queued when it was taken. */
class ManualSoftirq implements SoftirqClock {
  current = -1;
  behind = 0;
  frame(): number {
    return this.current;
  }
  queuedBehind(): number {
    return this.behind;
  }
  deliver(frame: number, behind: number): void {
    this.current = frame;
    this.behind = behind;
  }
}

describe('two packets in flight at once: receive softirqs on several CPUs', () => {
  function pair(cpus: number, secondFrame: number, behindFirst: number) {
    const ct = new Conntrack();
    ct.clash = 'matching';
    ct.cpus = cpus;
    const softirq = new ManualSoftirq();
    ct.softirq = softirq;
    const a = udpPacket(CLIENT, KUBE_DNS);
    softirq.deliver(7, behindFirst);
    ct.process(a, 'PREROUTING', 0);
    dnat(ct, a, '10.244.0.2');
    expect(ct.confirm(a, 0)).toBe('accept');
    const aaaa = udpPacket(CLIENT, KUBE_DNS);
    softirq.deliver(secondFrame, 0);
    ct.process(aaaa, 'PREROUTING', 0);
    const own = aaaa.ctIndex !== a.ctIndex;
    if (own) dnat(ct, aaaa, '10.244.0.3');
    return { own, verdict: ct.confirm(aaaa, 0), insertFailed: ct.stats.insert_failed };
  }

  it('one CPU: the AAAA frame comes after the A frame confirmed, and finds its entry', () => {
    expect(pair(1, 8, 1)).toEqual({ own: false, verdict: 'accept', insertFailed: 0 });
  });

  it('two CPUs: the AAAA frame was queued behind the A frame, ran alongside it and missed its entry', () => {
    expect(pair(2, 8, 1)).toEqual({ own: true, verdict: 'CONNTRACK_INSERT_FAILED', insertFailed: 1 });
  });

  it('two CPUs, but the AAAA frame was queued after the A frame was taken (its answer, a later send): no race', () => {
    expect(pair(2, 8, 0)).toEqual({ own: false, verdict: 'accept', insertFailed: 0 });
  });

  it('two CPUs: a frame two places behind ran after the one alongside, and sees the entry; four CPUs, it races', () => {
    expect(pair(2, 9, 3).own).toBe(false);
    expect(pair(4, 9, 3).own).toBe(true);
    expect(pair(4, 11, 3).own).toBe(false);
  });

  it('a reply-direction packet is never raced: it cannot leave before the entry it answers', () => {
    const ct = new Conntrack();
    ct.cpus = 2;
    const softirq = new ManualSoftirq();
    ct.softirq = softirq;
    const a = udpPacket(CLIENT, KUBE_DNS);
    softirq.deliver(0, 1);
    ct.process(a, 'PREROUTING', 0);
    ct.confirm(a, 0);
    const answer = udpPacket(KUBE_DNS, CLIENT);
    softirq.deliver(1, 0);
    ct.process(answer, 'PREROUTING', 0);
    expect(answer.ctIndex).toBe(a.ctIndex);
    expect(answer.ctReply).toBe(true);
  });

  it('in process context (no frame) nothing races', () => {
    const ct = new Conntrack();
    ct.cpus = 2;
    const softirq = new ManualSoftirq();
    ct.softirq = softirq;
    const a = udpPacket(CLIENT, KUBE_DNS);
    ct.process(a, 'OUTPUT', 0);
    ct.confirm(a, 0);
    const b = udpPacket(CLIENT, KUBE_DNS);
    ct.process(b, 'OUTPUT', 0);
    expect(b.ctIndex).toBe(a.ctIndex);
  });
});
