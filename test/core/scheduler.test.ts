import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import {
  micros,
  millis,
  NS_PER_MS,
  NS_PER_SEC,
  NS_PER_US,
  Scheduler,
  seconds,
} from '../../src/core/scheduler.ts';

describe('time units', () => {
  it('converts to whole nanoseconds', () => {
    expect([NS_PER_US, NS_PER_MS, NS_PER_SEC]).toEqual([1e3, 1e6, 1e9]);
    expect(seconds(1.5)).toBe(1_500_000_000);
    expect(millis(30)).toBe(30_000_000);
    expect(micros(2)).toBe(2_000);
    expect(seconds(0.1)).toBe(100_000_000); // rounded, not 100000000.00000001
    expect(seconds(432_000)).toBe(432_000 * NS_PER_SEC);
  });
});

describe('scheduler', () => {
  it('runs timers in time order and advances the clock to each', () => {
    const s = new Scheduler();
    const log: string[] = [];
    s.schedule(millis(30), (now) => log.push(`c@${now}`));
    s.schedule(millis(10), (now) => log.push(`a@${now}`));
    s.schedule(millis(20), () => log.push(`b@${s.now}`));
    expect(s.pending).toBe(3);
    expect(s.runUntilIdle()).toBe(3);
    expect(log).toEqual(['a@10000000', 'b@20000000', 'c@30000000']);
    expect(s.now).toBe(millis(30));
    expect(s.pending).toBe(0);
  });

  it('runs timers due at the same time in the order they were scheduled', () => {
    const s = new Scheduler();
    const log: number[] = [];
    for (let i = 0; i < 100; i++) s.scheduleAt(5, () => log.push(i));
    s.runUntilIdle();
    expect(log).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('runs a zero-delay timer scheduled by a callback after the ones already due', () => {
    const s = new Scheduler();
    const log: string[] = [];
    s.schedule(0, () => {
      log.push('first');
      s.schedule(0, () => log.push('scheduled by first'));
    });
    s.schedule(0, () => log.push('second'));
    s.runUntilIdle();
    expect(log).toEqual(['first', 'second', 'scheduled by first']);
    expect(s.now).toBe(0);
  });

  it('matches a stable sort of (time, schedule order) for random workloads, across heap growth', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 300 }), (times) => {
        const s = new Scheduler({ initialCapacity: 2 });
        const order: number[] = [];
        for (const [index, time] of times.entries()) s.scheduleAt(time, () => order.push(index));
        s.runUntilIdle();
        const expected = times.map((time, index) => ({ time, index }));
        expected.sort((a, b) => a.time - b.time || a.index - b.index);
        expect(order).toEqual(expected.map((entry) => entry.index));
      }),
    );
  });

  it('cancels a pending timer once, and not one that already ran', () => {
    const s = new Scheduler();
    const log: string[] = [];
    const kept = s.schedule(10, () => log.push('kept'));
    const dropped = s.schedule(5, () => log.push('dropped'));
    expect(s.cancel(dropped)).toBe(true);
    expect(s.pending).toBe(1);
    expect(s.cancel(dropped)).toBe(false);
    s.runUntilIdle();
    expect(log).toEqual(['kept']);
    expect(s.cancel(kept)).toBe(false);
    expect(s.cancel(12345)).toBe(false);
    expect(s.cancel(-1)).toBe(false);
    expect(s.cancel(1.5)).toBe(false);
  });

  it('never lets a stale id cancel the timer that reused its slot', () => {
    const s = new Scheduler();
    const log: string[] = [];
    const old = s.schedule(1, () => log.push('old'));
    s.runUntilIdle();
    const fresh = s.schedule(1, () => log.push('fresh'));
    expect(fresh).not.toBe(old);
    expect(s.cancel(old)).toBe(false);
    const cancelled = s.schedule(2, () => log.push('cancelled'));
    s.cancel(cancelled);
    s.runUntilIdle(); // pops the dead entry, freeing its slot
    const next = s.schedule(1, () => log.push('next'));
    expect(s.cancel(cancelled)).toBe(false);
    s.runUntilIdle();
    expect(log).toEqual(['old', 'fresh', 'next']);
    expect(new Set([old, fresh, cancelled, next]).size).toBe(4);
  });

  it('lets a callback cancel a later timer', () => {
    const s = new Scheduler();
    const log: string[] = [];
    let retransmit = 0;
    s.schedule(10, () => {
      log.push('ack');
      s.cancel(retransmit);
    });
    retransmit = s.schedule(20, () => log.push('retransmit'));
    s.runUntilIdle();
    expect(log).toEqual(['ack']);
  });

  it('compacts many cancelled timers and still runs the rest in order', () => {
    const s = new Scheduler({ initialCapacity: 16 });
    const rng = new Rng('compact');
    const ids: { id: number; time: number; index: number }[] = [];
    for (let index = 0; index < 5000; index++) {
      const time = rng.int(1000);
      ids.push({ id: s.scheduleAt(time, () => ran.push(index)), time, index });
    }
    const ran: number[] = [];
    const survivors = ids.filter((entry) => entry.index % 5 === 0);
    for (const entry of ids) if (entry.index % 5 !== 0) expect(s.cancel(entry.id)).toBe(true);
    expect(s.pending).toBe(1000);
    expect(s.nextTime()).toBe(Math.min(...survivors.map((entry) => entry.time)));
    s.runUntilIdle();
    survivors.sort((a, b) => a.time - b.time || a.index - b.index);
    expect(ran).toEqual(survivors.map((entry) => entry.index));
    for (const entry of survivors) expect(s.cancel(entry.id)).toBe(false);
  });

  it('matches a model under random schedule / cancel / run', () => {
    type Op =
      | { kind: 'schedule'; delay: number }
      | { kind: 'cancel'; pick: number }
      | { kind: 'run'; step: number };
    const op = fc.oneof(
      fc.record({ kind: fc.constant('schedule' as const), delay: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat(1000) }),
      fc.record({ kind: fc.constant('run' as const), step: fc.integer({ min: 0, max: 15 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops: Op[]) => {
        const s = new Scheduler({ initialCapacity: 1 });
        const model: { id: number; time: number; seq: number; live: boolean }[] = [];
        const ran: number[] = [];
        let seq = 0;
        for (const o of ops) {
          if (o.kind === 'schedule') {
            const mine = seq++;
            const id = s.schedule(o.delay, () => ran.push(mine));
            model.push({ id, time: s.now + o.delay, seq: mine, live: true });
          } else if (o.kind === 'cancel') {
            if (model.length === 0) continue;
            const entry = model[o.pick % model.length]!;
            expect(s.cancel(entry.id)).toBe(entry.live);
            entry.live = false;
          } else {
            const until = s.now + o.step;
            const due = model.filter((entry) => entry.live && entry.time <= until);
            due.sort((a, b) => a.time - b.time || a.seq - b.seq);
            const before = ran.length;
            expect(s.runUntil(until)).toBe(due.length);
            expect(ran.slice(before)).toEqual(due.map((entry) => entry.seq));
            for (const entry of due) entry.live = false;
            expect(s.now).toBe(until);
          }
          expect(s.pending).toBe(model.filter((entry) => entry.live).length);
        }
      }),
    );
  });

  it('runUntil runs timers due at the limit, leaves later ones, and sets the clock', () => {
    const s = new Scheduler();
    const log: number[] = [];
    for (const t of [5, 10, 11]) s.scheduleAt(t, (now) => log.push(now));
    expect(s.runUntil(10)).toBe(2);
    expect(log).toEqual([5, 10]);
    expect(s.now).toBe(10);
    expect(s.pending).toBe(1);
    expect(s.runFor(0)).toBe(0);
    expect(s.runFor(100)).toBe(1);
    expect(s.now).toBe(110);
    expect(s.runFor(seconds(1))).toBe(0);
    expect(s.now).toBe(110 + NS_PER_SEC);
  });

  it('runNext runs one timer and reports idleness', () => {
    const s = new Scheduler();
    const log: number[] = [];
    s.scheduleAt(3, () => log.push(3));
    s.scheduleAt(1, () => log.push(1));
    expect(s.nextTime()).toBe(1);
    expect(s.runNext()).toBe(true);
    expect(log).toEqual([1]);
    expect(s.now).toBe(1);
    expect(s.runNext()).toBe(true);
    expect(s.runNext()).toBe(false);
    expect(s.nextTime()).toBeUndefined();
    expect(s.now).toBe(3);
  });

  it('skips a cancelled timer in runNext without running it or moving the clock to it', () => {
    const s = new Scheduler();
    const log: number[] = [];
    s.cancel(s.scheduleAt(1, () => log.push(1)));
    s.scheduleAt(7, () => log.push(7));
    expect(s.runNext()).toBe(true);
    expect(log).toEqual([7]);
    expect(s.now).toBe(7);
  });

  it('throws for time going backwards or not in whole nanoseconds', () => {
    const s = new Scheduler();
    s.runUntil(100);
    expect(() => s.scheduleAt(99, () => {})).toThrow(/in the past/);
    expect(() => s.schedule(-1, () => {})).toThrow(RangeError);
    expect(() => s.schedule(0.5, () => {})).toThrow(/integer/);
    expect(() => s.schedule(Number.NaN, () => {})).toThrow(RangeError);
    expect(() => s.scheduleAt(2 ** 53, () => {})).toThrow(/2\^53/);
    expect(() => s.schedule(Number.MAX_SAFE_INTEGER, () => {})).toThrow(RangeError);
    expect(() => s.runUntil(50)).toThrow(/in the past/);
    expect(() => s.runFor(-1)).toThrow(RangeError);
    expect(s.now).toBe(100);
  });

  it('stops a timer that reschedules itself forever with a clear error', () => {
    const s = new Scheduler();
    const again = (): void => {
      s.schedule(0, again);
    };
    s.schedule(0, again);
    expect(() => s.runUntilIdle(1000)).toThrow(
      /runUntilIdle: ran 1000 timers and more are still due.*reschedules itself/,
    );
    const bounded = new Scheduler({ maxEventsPerRun: 50 });
    const tick = (): void => {
      bounded.schedule(0, tick);
    };
    bounded.schedule(0, tick);
    expect(() => bounded.runUntil(10)).toThrow(/runUntil: ran 50 timers/);
  });

  it('allows exactly maxEvents timers', () => {
    const s = new Scheduler();
    for (let i = 0; i < 10; i++) s.schedule(i, () => {});
    expect(s.runUntilIdle(10)).toBe(10);
  });

  it('refuses to run from inside a callback', () => {
    const s = new Scheduler();
    let error: unknown;
    s.schedule(1, () => {
      try {
        s.runUntilIdle();
      } catch (caught) {
        error = caught;
      }
    });
    s.runUntilIdle();
    expect(String(error)).toMatch(/inside a timer callback/);
  });

  it('stays usable after a callback throws', () => {
    const s = new Scheduler();
    s.schedule(1, () => {
      throw new Error('boom');
    });
    const log: number[] = [];
    s.schedule(2, (now) => log.push(now));
    expect(() => s.runUntilIdle()).toThrow('boom');
    expect(s.now).toBe(1);
    expect(s.runUntilIdle()).toBe(1);
    expect(log).toEqual([2]);
  });
});

describe('dueTime', () => {
  it('the absolute time of a pending timer; undefined once it ran or was cancelled, or for a stale id', () => {
    const s = new Scheduler();
    const a = s.schedule(500, () => {});
    const b = s.schedule(200, () => {});
    s.runFor(100);
    expect(s.dueTime(a)).toBe(500);
    expect(s.dueTime(b)).toBe(200);
    s.cancel(a);
    expect(s.dueTime(a)).toBeUndefined();
    s.runFor(150);
    expect(s.dueTime(b)).toBeUndefined();
    // b's slot is reused by c: b's id stays stale.
    const c = s.schedule(10, () => {});
    expect(s.dueTime(c)).toBe(260);
    expect(s.dueTime(b)).toBeUndefined();
    expect(s.dueTime(-1)).toBeUndefined();
    expect(s.dueTime(1.5)).toBeUndefined();
  });
});
