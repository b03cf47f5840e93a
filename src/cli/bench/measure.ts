// Figures a benchmark reports besides rates: bytes allocated per operation (summed over every GC), bytes retained by a structure (heap and array buffers after a full GC), and the time of one long operation (a ruleset load).
//
// allocatedBytes counts what the code asked of the JS heap, not what survived: node:v8's GCProfiler reports the used
// heap before and after each collection, so allocated = (used at the end - used at the start) + the sum of what each
// collection freed. A peak-heap reading over a short run is capped by the young generation (16 MiB) and
// under-reports (performance-notes.md); run this over at least a million operations. ArrayBuffer backing stores
// are outside the JS heap: a `new Uint8Array(1500)` counts its 100-odd bytes of object here, and shows in
// retainedBytes' arrayBuffers when kept. retainedBytes collects with the gc `--expose-gc`
// gives (bench/run.ts passes it), or exposes one for a fresh context when the flag was not given (a smoke test under vitest).

import { GCProfiler, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A full collection: the global gc of `node --expose-gc`, or one exposed now for a fresh context (under vitest). */
function collect(): void {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
  gc();
}

/** Bytes allocated on the JS heap per call of fn, over `count` calls (after `count / 10` warm-up calls). */
export function allocatedBytes(fn: () => void, count: number): number {
  const warmUp = Math.max(1, Math.floor(count / 10));
  for (let i = 0; i < warmUp; i++) fn();
  const profiler = new GCProfiler();
  const before = getHeapStatistics().used_heap_size;
  profiler.start();
  for (let i = 0; i < count; i++) fn();
  const after = getHeapStatistics().used_heap_size;
  const report = profiler.stop();
  let freed = 0;
  for (const gc of report?.statistics ?? [])
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  return Math.max(0, after - before + freed) / count;
}

/** The memory `build` leaves reachable (JS heap plus array buffers), measured after full GCs; returns it with build's result. */
export function retainedBytes<T>(build: () => T): { readonly bytes: number; readonly value: T } {
  collect();
  const start = process.memoryUsage();
  const value = build();
  collect();
  const end = process.memoryUsage();
  return { bytes: end.heapUsed - start.heapUsed + (end.arrayBuffers - start.arrayBuffers), value };
}

/** Milliseconds one call of fn takes (for a load or a build, too long to repeat as a benchmark case). */
export function timeOnce<T>(fn: () => T): { readonly ms: number; readonly value: T } {
  const start = process.hrtime.bigint();
  const value = fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}
