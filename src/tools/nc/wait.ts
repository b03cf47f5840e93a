// How a foreground nc waits: it runs the simulation's virtual clock until something it waits for happened, a
// deadline passed (poll's timeout), or nothing is left to happen; it never reads the wall clock.

import type { Namespace } from '../../netns/namespace.ts';

/**
 * A wait with no timeout (nc without -w would block forever) stops when the simulation is idle
 * or after this much virtual time, whichever comes first (docs/deviations.md).
 */
export const FOREVER_NS = 3600e9;

export type WaitOutcome = 'done' | 'timeout' | 'idle';

/**
 * Runs events until `done()` holds, `deadlineNs` (absolute; undefined for none) comes, or no event is
 * pending. At the deadline nc gives up first: `onTimeout` (closing its socket) runs before the events
 * due at that very instant, as poll()'s timeout beats a kernel timer set for the same moment (a SYN
 * retransmission at exactly -w seconds is not sent).
 */
export function waitFor(
  ns: Namespace,
  done: () => boolean,
  deadlineNs: number | undefined,
  onTimeout?: () => void,
): WaitOutcome {
  const scheduler = ns.sim.scheduler;
  const limit = deadlineNs ?? scheduler.now + FOREVER_NS;
  for (;;) {
    if (done()) return 'done';
    const next = scheduler.nextTime();
    if (next === undefined && deadlineNs === undefined) return 'idle';
    if (next === undefined || next >= limit) {
      if (limit > scheduler.now) scheduler.runUntil(limit - 1);
      if (done()) return 'done';
      onTimeout?.();
      scheduler.runUntil(Math.max(limit, scheduler.now));
      return deadlineNs === undefined ? 'idle' : 'timeout';
    }
    scheduler.runNext();
  }
}

/** Runs what is due at the current instant (the frames and answers a send set off, with no link latency). */
export function settle(ns: Namespace): void {
  ns.sim.scheduler.runUntil(ns.sim.scheduler.now);
}

/** sleep(): the virtual clock moves by `ns`, running everything due meanwhile. */
export function sleep(ns: Namespace, durationNs: number): void {
  ns.sim.scheduler.runFor(durationNs);
}
