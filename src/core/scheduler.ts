// The discrete-event scheduler: a virtual clock in integer nanoseconds and a stable min-heap of timers; no real time, no threads.
//
// Time is a JS number of nanoseconds since the simulation started. Integers are exact up to
// 2^53 ns (Number.MAX_SAFE_INTEGER), about 104.2 days of virtual time; scheduling beyond that is
// a programmer error. Events due at the same nanosecond run in the order they were scheduled.
//
// The heap is a 4-ary min-heap in one interleaved Float64Array, [time, slot] per entry, so a
// sift compares keys that share cache lines (bench/suites/event-engine.ts: a binary heap over
// three parallel typed arrays ran at 0.7x a heap of objects with 1k pending; the interleaved
// 4-ary heap has half the levels and a quarter of the cache lines per level). The insertion
// counter that breaks ties between equal times lives in the slot table and is read only on a
// tie. Callbacks sit in the slot table; a TimerId packs the slot with a per-slot generation,
// so a stale id never cancels the timer that later reuses its slot. Cancellation is lazy: the
// slot is marked dead and skipped when popped; when dead entries outnumber live ones the heap
// is compacted.

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

  /** 4-ary heap ordered by (time, the slot's counter): entry i is heap[2i] = time, heap[2i + 1] = slot. */
  private heap: Float64Array;
  private heapSize = 0;

  // Slot table: a live slot has a callback; a dead (cancelled) one waits in the heap for its pop.
  private callbacks: (TimerCallback | undefined)[] = [];
  /** The insertion counter of the slot's timer: the tie-break between timers due at the same time. */
  private counters: Float64Array;
  private generations: Int32Array;
  private slotCount = 0;
  /** A stack of free slots. */
  private freeSlots: Int32Array;
  private freeCount = 0;
  private live = 0;

  constructor(options: SchedulerOptions = {}) {
    this.maxEventsPerRun = options.maxEventsPerRun ?? DEFAULT_MAX_EVENTS_PER_RUN;
    const capacity = Math.max(1, options.initialCapacity ?? DEFAULT_CAPACITY);
    this.heap = new Float64Array(capacity * 2);
    this.counters = new Float64Array(capacity);
    this.generations = new Int32Array(capacity);
    this.freeSlots = new Int32Array(capacity);
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
    return this.heapSize === 0 ? undefined : this.heap[0];
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
    this.counters[slot] = this.counter++;
    this.live++;
    this.push(timeNs, slot);
    return this.generations[slot]! * SLOT_SPACE + slot;
  }

  /** Cancels a pending timer; false when it already ran, was cancelled, or never existed. */
  cancel(id: TimerId): boolean {
    const slot = this.liveSlot(id);
    if (slot < 0) return false;
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
    const slot = this.liveSlot(id);
    if (slot < 0) return undefined;
    const heap = this.heap;
    for (let i = 0; i < this.heapSize; i++) if (heap[2 * i + 1] === slot) return heap[2 * i];
    return undefined;
  }

  /** The slot of a pending timer's id, -1 when the id is not pending. */
  private liveSlot(id: TimerId): number {
    if (!Number.isSafeInteger(id) || id < 0) return -1;
    const slot = id % SLOT_SPACE;
    const generation = (id - slot) / SLOT_SPACE;
    if (slot >= this.slotCount) return -1;
    if (this.generations[slot] !== generation || this.callbacks[slot] === undefined) return -1;
    return slot;
  }

  /** Advances the clock to the earliest pending timer and runs it; false when idle. */
  runNext(): boolean {
    this.enter('runNext');
    try {
      if (!this.hasDue(Number.POSITIVE_INFINITY)) return false;
      this.runTop();
      return true;
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
    return this.heapSize > 0 && this.heap[0]! <= limitNs;
  }

  /** Pops the root, which must be live, advances the clock to it and runs it. */
  private runTop(): void {
    const time = this.heap[0]!;
    const slot = this.heap[1]!;
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
      const slot = this.heap[1]!;
      if (this.callbacks[slot] !== undefined) return;
      this.pop();
      this.freeSlot(slot);
    }
  }

  private allocateSlot(): number {
    if (this.freeCount > 0) {
      const reused = this.freeSlots[--this.freeCount]!;
      this.generations[reused]!++;
      return reused;
    }
    const slot = this.slotCount;
    if (slot >= SLOT_SPACE) throw new RangeError(`scheduler: more than ${SLOT_SPACE} timers pending`);
    if (slot === this.generations.length) this.growSlots();
    this.slotCount++;
    this.callbacks.push(undefined);
    return slot;
  }

  private freeSlot(slot: number): void {
    this.callbacks[slot] = undefined;
    // A slot whose generations are used up is retired, so no id is ever issued twice.
    if (this.generations[slot]! < MAX_GENERATION) this.freeSlots[this.freeCount++] = slot;
  }

  private growSlots(): void {
    const capacity = this.generations.length * 2;
    const counters = new Float64Array(capacity);
    const generations = new Int32Array(capacity);
    const free = new Int32Array(capacity);
    counters.set(this.counters);
    generations.set(this.generations);
    free.set(this.freeSlots);
    this.counters = counters;
    this.generations = generations;
    this.freeSlots = free;
  }

  /** Sift up with a hole instead of swaps. */
  private push(time: number, slot: number): void {
    if (this.heapSize * 2 === this.heap.length) this.growHeap();
    const heap = this.heap;
    const counters = this.counters;
    const counter = counters[slot]!;
    let at = this.heapSize++;
    while (at > 0) {
      const parent = (at - 1) >> 2;
      const pt = heap[2 * parent]!;
      if (pt < time || (pt === time && counters[heap[2 * parent + 1]!]! < counter)) break;
      heap[2 * at] = pt;
      heap[2 * at + 1] = heap[2 * parent + 1]!;
      at = parent;
    }
    heap[2 * at] = time;
    heap[2 * at + 1] = slot;
  }

  private pop(): void {
    const last = --this.heapSize;
    if (last > 0) this.siftDown(0, this.heap[2 * last]!, this.heap[2 * last + 1]!);
  }

  /** Places (time, slot) at the hole `start`, moving the smallest child up while it is earlier. */
  private siftDown(start: number, time: number, slot: number): void {
    const heap = this.heap;
    const counters = this.counters;
    const size = this.heapSize;
    const counter = counters[slot]!;
    let at = start;
    for (;;) {
      const first = 4 * at + 1;
      if (first >= size) break;
      // The earliest of up to four children.
      let child = first;
      let ct = heap[2 * first]!;
      const end = Math.min(first + 4, size);
      for (let c = first + 1; c < end; c++) {
        const t = heap[2 * c]!;
        if (t < ct || (t === ct && counters[heap[2 * c + 1]!]! < counters[heap[2 * child + 1]!]!)) {
          child = c;
          ct = t;
        }
      }
      if (time < ct || (time === ct && counter < counters[heap[2 * child + 1]!]!)) break;
      heap[2 * at] = ct;
      heap[2 * at + 1] = heap[2 * child + 1]!;
      at = child;
    }
    heap[2 * at] = time;
    heap[2 * at + 1] = slot;
  }

  private growHeap(): void {
    const heap = new Float64Array(this.heap.length * 2);
    heap.set(this.heap);
    this.heap = heap;
  }

  /** Removes cancelled entries and re-heapifies (Floyd, O(n)); order is unchanged since keys are unique. */
  private compact(): void {
    const heap = this.heap;
    let kept = 0;
    for (let i = 0; i < this.heapSize; i++) {
      const slot = heap[2 * i + 1]!;
      if (this.callbacks[slot] === undefined) {
        this.freeSlot(slot);
        continue;
      }
      heap[2 * kept] = heap[2 * i]!;
      heap[2 * kept + 1] = slot;
      kept++;
    }
    this.heapSize = kept;
    for (let i = (kept - 2) >> 2; i >= 0; i--) this.siftDown(i, heap[2 * i]!, heap[2 * i + 1]!);
  }
}
