// The discrete-event scheduler: a virtual clock in integer nanoseconds and a stable min-heap of timers; no real time, no threads.
//
// Time is a JS number of nanoseconds since the simulation started. Integers are exact up to
// 2^53 ns (Number.MAX_SAFE_INTEGER), about 104.2 days of virtual time; scheduling beyond that is
// a programmer error. Events due at the same nanosecond run in the order they were scheduled.
//
// The heap lives in typed arrays (times and insertion counters in Float64Arrays, a slot index in
// an Int32Array) because bench prototypes ran 2-10x faster than a heap of objects (see
// shared/performance-notes.md). Callbacks sit in a slot table; a TimerId packs the slot with a
// per-slot generation, so a stale id never cancels the timer that later reuses its slot.
// Cancellation is lazy: the slot is marked dead and skipped when popped; when dead entries
// outnumber live ones the heap is compacted.

export const NS_PER_US = 1_000;
export const NS_PER_MS = 1_000_000;
export const NS_PER_SEC = 1_000_000_000;

/** Whole nanoseconds in `n` seconds (rounded to the nearest nanosecond). */
export function seconds(n: number): number {
  return Math.round(n * NS_PER_SEC);
}

/** Whole nanoseconds in `n` milliseconds (rounded to the nearest nanosecond). */
export function millis(n: number): number {
  return Math.round(n * NS_PER_MS);
}

/** Whole nanoseconds in `n` microseconds (rounded to the nearest nanosecond). */
export function micros(n: number): number {
  return Math.round(n * NS_PER_US);
}

/** Identifies one scheduled timer for `cancel`; never equal to the id of another timer. */
export type TimerId = number;

/** Runs when its timer fires; `nowNs` is the scheduler's clock at that moment. */
export type TimerCallback = (nowNs: number) => void;

export interface SchedulerOptions {
  /** Events one `run*` call may execute before it throws (a runaway-loop guard). Default 100 million. */
  readonly maxEventsPerRun?: number;
  /** Heap slots allocated up front; grows by doubling. Default 1024. */
  readonly initialCapacity?: number;
}

// A TimerId is generation * SLOT_SPACE + slot. 2^24 slots (16.7 M pending timers) leaves
// 2^29 generations per slot below 2^53; a slot whose generation is exhausted is retired
// rather than reused, so ids are never repeated.
const SLOT_BITS = 24;
const SLOT_SPACE = 2 ** SLOT_BITS;
const MAX_GENERATION = 2 ** (53 - SLOT_BITS) - 1;
const DEFAULT_MAX_EVENTS_PER_RUN = 100_000_000;
const DEFAULT_CAPACITY = 1024;
/** Below this many heap entries, dead ones are left for the pops to skip. */
const COMPACT_THRESHOLD = 1024;

/** A virtual clock and its event queue; one per simulation, passed to whoever needs time. */
export class Scheduler {
  private clock = 0;
  private counter = 0;
  private running = false;
  private readonly maxEventsPerRun: number;

  // Heap of (time, counter, slot), ordered by time then counter.
  private heapTimes: Float64Array;
  private heapCounters: Float64Array;
  private heapSlots: Int32Array;
  private heapSize = 0;

  // Slot table: a live slot has a callback; a dead (cancelled) one waits in the heap for its pop.
  private callbacks: (TimerCallback | undefined)[] = [];
  private generations: number[] = [];
  private freeSlots: number[] = [];
  private live = 0;

  constructor(options: SchedulerOptions = {}) {
    this.maxEventsPerRun = options.maxEventsPerRun ?? DEFAULT_MAX_EVENTS_PER_RUN;
    const capacity = Math.max(1, options.initialCapacity ?? DEFAULT_CAPACITY);
    this.heapTimes = new Float64Array(capacity);
    this.heapCounters = new Float64Array(capacity);
    this.heapSlots = new Int32Array(capacity);
  }

  /** The virtual time, in nanoseconds. */
  get now(): number {
    return this.clock;
  }

  /** Timers scheduled and neither run nor cancelled. */
  get pending(): number {
    return this.live;
  }

  /** The time of the earliest pending timer, or undefined when idle. */
  nextTime(): number | undefined {
    this.dropDeadTop();
    return this.heapSize === 0 ? undefined : this.heapTimes[0];
  }

  /** Runs `callback` `delayNs` nanoseconds from now (0 = after everything already due now). */
  schedule(delayNs: number, callback: TimerCallback): TimerId {
    if (!Number.isSafeInteger(delayNs) || delayNs < 0) {
      throw new RangeError(`schedule: delay must be a non-negative integer of nanoseconds, got ${delayNs}`);
    }
    return this.scheduleAt(this.clock + delayNs, callback);
  }

  /** Runs `callback` at absolute virtual time `timeNs`, which must not be in the past. */
  scheduleAt(timeNs: number, callback: TimerCallback): TimerId {
    if (!Number.isSafeInteger(timeNs)) {
      throw new RangeError(`scheduleAt: time must be an integer of nanoseconds below 2^53, got ${timeNs}`);
    }
    if (timeNs < this.clock) {
      throw new RangeError(`scheduleAt: ${timeNs} ns is in the past (now is ${this.clock} ns)`);
    }
    const slot = this.allocateSlot();
    this.callbacks[slot] = callback;
    this.live++;
    this.push(timeNs, this.counter++, slot);
    return this.generations[slot]! * SLOT_SPACE + slot;
  }

  /** Cancels a pending timer; false when it already ran, was cancelled, or never existed. */
  cancel(id: TimerId): boolean {
    if (!Number.isSafeInteger(id) || id < 0) return false;
    const slot = id % SLOT_SPACE;
    const generation = (id - slot) / SLOT_SPACE;
    if (slot >= this.callbacks.length) return false;
    if (this.generations[slot] !== generation || this.callbacks[slot] === undefined) return false;
    this.callbacks[slot] = undefined;
    this.live--;
    if (this.heapSize >= COMPACT_THRESHOLD && this.heapSize > 2 * this.live) this.compact();
    return true;
  }

  /**
   * When a pending timer will fire (absolute nanoseconds), or undefined when it already ran, was
   * cancelled or never existed. A scan of the heap: for tools (`ss -o`), not for hot paths.
   */
  dueTime(id: TimerId): number | undefined {
    if (!Number.isSafeInteger(id) || id < 0) return undefined;
    const slot = id % SLOT_SPACE;
    const generation = (id - slot) / SLOT_SPACE;
    if (slot >= this.callbacks.length) return undefined;
    if (this.generations[slot] !== generation || this.callbacks[slot] === undefined) return undefined;
    for (let i = 0; i < this.heapSize; i++) if (this.heapSlots[i] === slot) return this.heapTimes[i];
    return undefined;
  }

  /** Advances the clock to the earliest pending timer and runs it; false when idle. */
  runNext(): boolean {
    this.enter('runNext');
    try {
      return this.step(Number.POSITIVE_INFINITY);
    } finally {
      this.running = false;
    }
  }

  /**
   * Runs every timer due at or before `timeNs` (including those scheduled meanwhile), then
   * leaves the clock at `timeNs`. Returns the number of timers run.
   */
  runUntil(timeNs: number, maxEvents = this.maxEventsPerRun): number {
    if (!Number.isSafeInteger(timeNs)) {
      throw new RangeError(`runUntil: time must be an integer of nanoseconds below 2^53, got ${timeNs}`);
    }
    if (timeNs < this.clock) {
      throw new RangeError(`runUntil: ${timeNs} ns is in the past (now is ${this.clock} ns)`);
    }
    this.enter('runUntil');
    try {
      const ran = this.runLoop(timeNs, maxEvents, 'runUntil');
      this.clock = timeNs;
      return ran;
    } finally {
      this.running = false;
    }
  }

  /** Runs for `durationNs` of virtual time (see runUntil). Returns the number of timers run. */
  runFor(durationNs: number, maxEvents = this.maxEventsPerRun): number {
    if (!Number.isSafeInteger(durationNs) || durationNs < 0) {
      throw new RangeError(
        `runFor: duration must be a non-negative integer of nanoseconds, got ${durationNs}`,
      );
    }
    return this.runUntil(this.clock + durationNs, maxEvents);
  }

  /**
   * Runs until no timer is pending; the clock stays at the last timer run. Throws after
   * `maxEvents` timers, which almost always means a timer that keeps rescheduling itself.
   */
  runUntilIdle(maxEvents = this.maxEventsPerRun): number {
    this.enter('runUntilIdle');
    try {
      return this.runLoop(Number.POSITIVE_INFINITY, maxEvents, 'runUntilIdle');
    } finally {
      this.running = false;
    }
  }

  private enter(caller: string): void {
    if (this.running) throw new Error(`${caller}: called from inside a timer callback; schedule instead`);
    this.running = true;
  }

  private runLoop(limitNs: number, maxEvents: number, caller: string): number {
    let ran = 0;
    while (this.hasDue(limitNs)) {
      if (ran >= maxEvents) {
        throw new Error(
          `${caller}: ran ${ran} timers and more are still due (now ${this.clock} ns); ` +
            'a timer probably reschedules itself forever, or raise maxEvents',
        );
      }
      this.runTop();
      ran++;
    }
    return ran;
  }

  /** True when the root is a live timer due at or before `limitNs` (dead roots are dropped first). */
  private hasDue(limitNs: number): boolean {
    this.dropDeadTop();
    return this.heapSize > 0 && this.heapTimes[0]! <= limitNs;
  }

  /** Runs the earliest live timer due at or before `limitNs`; false if there is none. */
  private step(limitNs: number): boolean {
    if (!this.hasDue(limitNs)) return false;
    this.runTop();
    return true;
  }

  /** Pops the root, which must be live, advances the clock to it and runs it. */
  private runTop(): void {
    const time = this.heapTimes[0]!;
    const slot = this.heapSlots[0]!;
    this.pop();
    const callback = this.callbacks[slot]!;
    this.freeSlot(slot);
    this.live--;
    this.clock = time;
    callback(time);
  }

  /** Pops cancelled entries off the top so the root, if any, is live. */
  private dropDeadTop(): void {
    while (this.heapSize > 0) {
      const slot = this.heapSlots[0]!;
      if (this.callbacks[slot] !== undefined) return;
      this.pop();
      this.freeSlot(slot);
    }
  }

  private allocateSlot(): number {
    const reused = this.freeSlots.pop();
    if (reused !== undefined) {
      this.generations[reused]!++;
      return reused;
    }
    const slot = this.callbacks.length;
    if (slot >= SLOT_SPACE) throw new RangeError(`scheduler: more than ${SLOT_SPACE} timers pending`);
    this.callbacks.push(undefined);
    this.generations.push(0);
    return slot;
  }

  private freeSlot(slot: number): void {
    this.callbacks[slot] = undefined;
    // A slot whose generations are used up is retired, so no id is ever issued twice.
    if (this.generations[slot]! < MAX_GENERATION) this.freeSlots.push(slot);
  }

  private push(time: number, counter: number, slot: number): void {
    if (this.heapSize === this.heapTimes.length) this.grow();
    const times = this.heapTimes;
    const counters = this.heapCounters;
    const slots = this.heapSlots;
    // Sift up with a hole instead of swaps.
    let at = this.heapSize++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      const pt = times[parent]!;
      if (pt < time || (pt === time && counters[parent]! < counter)) break;
      times[at] = pt;
      counters[at] = counters[parent]!;
      slots[at] = slots[parent]!;
      at = parent;
    }
    times[at] = time;
    counters[at] = counter;
    slots[at] = slot;
  }

  private pop(): void {
    const last = --this.heapSize;
    if (last > 0) this.siftDown(0, this.heapTimes[last]!, this.heapCounters[last]!, this.heapSlots[last]!);
  }

  /** Places (time, counter, slot) at the hole `start`, moving smaller children up. */
  private siftDown(start: number, time: number, counter: number, slot: number): void {
    const times = this.heapTimes;
    const counters = this.heapCounters;
    const slots = this.heapSlots;
    const size = this.heapSize;
    let at = start;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      const right = child + 1;
      if (right < size) {
        const lt = times[child]!;
        const rt = times[right]!;
        if (rt < lt || (rt === lt && counters[right]! < counters[child]!)) child = right;
      }
      const ct = times[child]!;
      if (time < ct || (time === ct && counter < counters[child]!)) break;
      times[at] = ct;
      counters[at] = counters[child]!;
      slots[at] = slots[child]!;
      at = child;
    }
    times[at] = time;
    counters[at] = counter;
    slots[at] = slot;
  }

  private grow(): void {
    const capacity = this.heapTimes.length * 2;
    const times = new Float64Array(capacity);
    const counters = new Float64Array(capacity);
    const slots = new Int32Array(capacity);
    times.set(this.heapTimes);
    counters.set(this.heapCounters);
    slots.set(this.heapSlots);
    this.heapTimes = times;
    this.heapCounters = counters;
    this.heapSlots = slots;
  }

  /** Removes cancelled entries and re-heapifies (Floyd, O(n)); order is unchanged since keys are unique. */
  private compact(): void {
    const times = this.heapTimes;
    const counters = this.heapCounters;
    const slots = this.heapSlots;
    let kept = 0;
    for (let i = 0; i < this.heapSize; i++) {
      const slot = slots[i]!;
      if (this.callbacks[slot] === undefined) {
        this.freeSlot(slot);
        continue;
      }
      times[kept] = times[i]!;
      counters[kept] = counters[i]!;
      slots[kept] = slot;
      kept++;
    }
    this.heapSize = kept;
    for (let i = (kept >> 1) - 1; i >= 0; i--) this.siftDown(i, times[i]!, counters[i]!, slots[i]!);
  }
}
