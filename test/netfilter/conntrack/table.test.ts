// The connection table: lazy expiry, the scheduler-driven sweep, nf_conntrack_max with early drop, growth, and the open-addressing index against a Map model.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../src/core/scheduler.ts';
import { Conntrack, ctStateName } from '../../../src/netfilter/conntrack/conntrack.ts';
import { ConnTable, IPS_ASSURED } from '../../../src/netfilter/conntrack/table.ts';
import { createTuple, invertTuple, makeTuple, type Tuple } from '../../../src/netfilter/conntrack/tuple.ts';
import { udpPacket } from '../../support/packets.ts';
import { at, trip } from './harness.ts';

function flow(n: number): [string, string] {
  return [`10.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}:${1024 + (n % 60000)}`, '192.168.0.1:53'];
}

/** A confirmed UDP entry for flow n; with `assured` it also gets a reply and a late packet. */
function udpFlow(ct: Conntrack, n: number, now: number, assured = false): number {
  const [client, server] = flow(n);
  const first = udpPacket(client, server);
  trip(ct, first, now);
  if (assured) {
    trip(ct, udpPacket(server, client), now);
    trip(ct, udpPacket(client, server), now + at(3));
  }
  return first.ctIndex;
}

describe('expiry', () => {
  it('expires lazily on lookup: the entry is gone at its deadline, not before', () => {
    const ct = new Conntrack();
    const index = udpFlow(ct, 1, 0);
    expect(ct.isListed(index, at(29.999))).toBe(true);
    expect(ct.isListed(index, at(30))).toBe(false);
    const [client, server] = flow(1);
    const again = udpPacket(client, server);
    trip(ct, again, at(29.999));
    expect(ctStateName(again)).toBe('NEW'); // still unreplied
    expect(ct.count).toBe(1);
    const later = udpPacket(client, server);
    trip(ct, later, at(60));
    expect(ct.count).toBe(1); // the old one was reaped by the lookup, a new one created
    expect(ct.timeoutSeconds(later.ctIndex, at(60))).toBe(30);
  });

  it('sweeps expired entries on the scheduler, reports DESTROY on time, and lets the scheduler go idle', () => {
    const scheduler = new Scheduler();
    const ct = new Conntrack();
    ct.attachScheduler(scheduler);
    const destroyed: number[] = [];
    ct.onEvent((type) => {
      if (type === 'DESTROY') destroyed.push(scheduler.now);
    });
    udpFlow(ct, 1, 0); // expires at 30 s
    scheduler.runUntil(at(10));
    udpFlow(ct, 2, at(10)); // expires at 40 s
    scheduler.runUntilIdle();
    expect(destroyed).toEqual([at(30), at(40)]);
    expect(ct.count).toBe(0);
    expect(scheduler.pending).toBe(0);
  });

  it('sweeps by hand without a scheduler', () => {
    const ct = new Conntrack();
    for (let n = 0; n < 100; n++) udpFlow(ct, n, 0);
    ct.sweep(at(29));
    expect(ct.count).toBe(100);
    ct.sweep(at(31));
    expect(ct.count).toBe(0);
    expect(ct.entries(at(31))).toEqual([]);
  });
});

describe('nf_conntrack_max', () => {
  it('evicts a non-ASSURED entry to make room (early_drop)', () => {
    const ct = new Conntrack({ max: 1000 });
    for (let n = 0; n < 1000; n++) udpFlow(ct, n, 0);
    expect(ct.count).toBe(1000);
    const index = udpFlow(ct, 5000, 0);
    expect(index).toBeGreaterThanOrEqual(0);
    expect(ct.count).toBe(1000);
    expect(ct.stats.early_drop).toBe(1);
  });

  it('drops the packet when every entry is ASSURED ("table full, dropping packet")', () => {
    const ct = new Conntrack({ max: 2 });
    udpFlow(ct, 1, 0, true);
    udpFlow(ct, 2, 0, true);
    const [client, server] = flow(3);
    const pkt = udpPacket(client, server);
    expect(ct.process(pkt, 'PREROUTING', at(4))).toBe('CONNTRACK_TABLE_FULL');
    expect(pkt.ctIndex).toBe(-1);
    expect(ct.stats.drop).toBe(1);
    expect(ct.count).toBe(2);
    expect(ct.stats.early_drop).toBe(0);
  });

  it('counts unconfirmed entries, and frees them when the packet is abandoned', () => {
    const ct = new Conntrack({ max: 1 });
    const [client, server] = flow(1);
    const pkt = udpPacket(client, server);
    expect(ct.process(pkt, 'OUTPUT', 0)).toBe('accept');
    expect(ct.count).toBe(1);
    ct.abandon(pkt);
    expect(ct.count).toBe(0);
    expect(pkt.ctIndex).toBe(-1);
    const [c2, s2] = flow(2);
    expect(ct.process(udpPacket(c2, s2), 'OUTPUT', 0)).toBe('accept');
  });

  it('after a failed early drop, the sweep evicts non-ASSURED entries while at 95% of max', () => {
    const ct = new Conntrack({ max: 100 });
    for (let n = 0; n < 50; n++) udpFlow(ct, n, 0, true);
    for (let n = 50; n < 100; n++) udpFlow(ct, n, at(3));
    expect(ct.count).toBe(100);
    ct.sweep(at(4));
    expect(ct.count).toBe(100); // nothing expired, and no early drop failed yet
    ct.table.gcEarlyDrop = true; // as after "table full, dropping packet"
    ct.sweep(at(4));
    expect(ct.count).toBe(94); // evicted while count >= 95
    const assured = ct.entries(at(4)).filter((index) => (ct.status(index) & IPS_ASSURED) !== 0);
    expect(assured.length).toBe(50);
  });
});

describe('the index', () => {
  it('grows to many entries and finds every tuple in both directions', () => {
    const table = new ConnTable({ max: 0, initialEntries: 16 });
    const orig = createTuple();
    const reply = createTuple();
    const n = 50_000;
    for (let i = 0; i < n; i++) {
      Object.assign(orig, makeTuple(0x0a000000 + i, 0xc0a80001, 17, 1024 + (i % 50000), 53));
      invertTuple(orig, reply);
      const index = table.alloc(orig, reply, 0);
      table.setExpiry(index, 1e12);
      table.link(index, 3);
    }
    for (let i = 0; i < n; i++) {
      Object.assign(orig, makeTuple(0x0a000000 + i, 0xc0a80001, 17, 1024 + (i % 50000), 53));
      invertTuple(orig, reply);
      expect(table.lookup(orig, 0)).toBe(i << 1);
      expect(table.lookup(reply, 0)).toBe((i << 1) | 1);
    }
    const load = table.indexLoad();
    expect(load.used).toBe(2 * n);
    expect(load.used / load.slots).toBeLessThanOrEqual(0.5);
  });

  it('agrees with a Map model under random inserts and deletes (backward-shift deletion)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 40 })), { minLength: 1, maxLength: 300 }),
        fc.integer(),
        (ops, seed) => {
          const table = new ConnTable({ max: 0, initialEntries: 16, hashSeed: seed });
          const model = new Map<number, number>();
          const t = createTuple();
          const r = createTuple();
          const set = (key: number): Tuple => Object.assign(t, makeTuple(key & 3, 7, 6, key, 80));
          let now = 0;
          for (const [insert, key] of ops) {
            now++;
            set(key);
            const found = table.lookup(t, now);
            if (insert && !model.has(key)) {
              expect(found).toBe(-1);
              invertTuple(t, r);
              const index = table.alloc(t, r, now);
              table.setExpiry(index, now + 1e9);
              table.link(index, 3);
              model.set(key, index);
            } else if (!insert && model.has(key)) {
              expect(found).toBe(model.get(key)! << 1);
              table.kill(model.get(key)!, now);
              model.delete(key);
            }
            for (let k = 0; k <= 40; k++) {
              set(k);
              const ref = table.lookup(t, now);
              expect(ref === -1 ? undefined : ref >>> 1).toBe(model.get(k));
              invertTuple(t, r);
              const back = table.lookup(r, now);
              expect(back === -1 ? undefined : back >>> 1).toBe(model.get(k));
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('hands out ids that are unique', () => {
    const ct = new Conntrack();
    const ids = new Set<number>();
    for (let n = 0; n < 2000; n++) ids.add(ct.id(udpFlow(ct, n, 0)));
    expect(ids.size).toBe(2000);
  });
});
