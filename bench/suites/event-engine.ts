// The event scheduler (src/core/scheduler.ts): events per second with 1k and 100k timers pending, against a binary heap of closures (what a first implementation writes).
//
// Each operation schedules one event at a pseudo-random delay and runs the earliest one, so the pending count stays
// constant. Goals (issue 13): >= 8 M events/s with 1k pending, >= 4 M/s with 100k.
//
// The baseline is an array-backed binary heap of { time, seq, callback } objects, the usual first implementation;
// the goals compare the shipped scheduler's own rate with the targets (events/s), the only absolute goals,
// so read them against the machine line (measured on 2 shared cores).

import { defineSuite, type SuiteResults } from '../../src/cli/bench/suite.ts';
import { Scheduler } from '../../src/core/scheduler.ts';
import { xorshift32 } from '../support/xorshift.ts';

interface HeapEvent {
  readonly time: number;
  readonly seq: number;
  readonly callback: () => void;
}

/** A binary min-heap of event objects ordered by (time, seq). */
class ObjectHeap {
  private readonly items: HeapEvent[] = [];
  private seq = 0;
  now = 0;

  push(delay: number, callback: () => void): void {
    const items = this.items;
    const event = { time: this.now + delay, seq: this.seq++, callback };
    let at = items.push(event) - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(event, items[parent]!)) break;
      items[at] = items[parent]!;
      at = parent;
    }
    items[at] = event;
  }

  runNext(): void {
    const items = this.items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child = right < items.length && before(items[right]!, items[left]!) ? right : left;
        if (!before(items[child]!, last)) break;
        items[at] = items[child]!;
        at = child;
      }
      items[at] = last;
    }
    this.now = top.time;
    top.callback();
  }
}

function before(a: HeapEvent, b: HeapEvent): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}

const DELAYS = 4096;

export default defineSuite({
  name: 'event-engine',
  title: 'the event scheduler at 1k and 100k pending timers',
  build(options) {
    const sizes = options.quick ? [1_000] : [1_000, 100_000];
    const next = xorshift32(7);
    const delays = new Float64Array(DELAYS);
    for (let i = 0; i < DELAYS; i++) delays[i] = 1 + (next() % 1_000_000);
    const cases = [];
    const goals = [];
    const onTimer = () => {};
    for (const pending of sizes) {
      const label = pending >= 1000 ? `${pending / 1000}k` : String(pending);
      const scheduler = new Scheduler();
      const heap = new ObjectHeap();
      for (let i = 0; i < pending; i++) {
        scheduler.schedule(delays[i % DELAYS]!, onTimer);
        heap.push(delays[i % DELAYS]!, onTimer);
      }
      let k = 0;
      let j = 0;
      cases.push({
        name: `object heap ${label} pending`,
        fn: () => {
          heap.push(delays[j++ & (DELAYS - 1)]!, onTimer);
          heap.runNext();
        },
      });
      cases.push({
        name: `scheduler ${label} pending`,
        baseline: `object heap ${label} pending`,
        fn: () => {
          scheduler.schedule(delays[k++ & (DELAYS - 1)]!, onTimer);
          scheduler.runNext();
        },
      });
      const target = pending <= 1_000 ? 8e6 : 4e6;
      goals.push({
        name: `scheduler >= ${target / 1e6} M events/s with ${label} pending`,
        value: (results: SuiteResults) => results.result(`scheduler ${label} pending`).hz,
        op: '>=' as const,
        target,
      });
    }
    return { cases, goals };
  },
});
