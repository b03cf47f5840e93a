// A controller's work queue in virtual time: keys added while a sync is pending are coalesced, and the sync runs on
// the simulation's scheduler (delay 0, after the change that caused it), as client-go's workqueue hands a key to one
// worker once however often it was added. No rate limiting, no retries with backoff.

import type { Scheduler } from '../../core/scheduler.ts';

export class WorkQueue {
  private readonly pending = new Set<string>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly work: (key: string) => void,
  ) {}

  add(key: string): void {
    if (this.pending.has(key)) return;
    this.pending.add(key);
    this.scheduler.schedule(0, () => {
      this.pending.delete(key);
      this.work(key);
    });
  }
}

/** `namespace/name` back to its parts. */
export function splitKey(key: string): [string, string] {
  const at = key.indexOf('/');
  return [key.slice(0, at), key.slice(at + 1)];
}

/** Whether labels carry every pair of a selector; an empty selector selects nothing here. */
export function selectorMatches(
  selector: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): boolean {
  const pairs = Object.entries(selector);
  return pairs.length > 0 && pairs.every(([key, value]) => labels[key] === value);
}
