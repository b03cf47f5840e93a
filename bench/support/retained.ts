// Retained bytes for suites that also run in the smoke tests: retainedBytes after full GCs under `npm run bench`
// (node --expose-gc), a rough heap-plus-array-buffer difference without GC under vitest (a number, never judged).

import { retainedBytes } from '../../src/cli/bench/measure.ts';

export function retainedOrRough<T>(build: () => T): { readonly bytes: number; readonly value: T } {
  if (typeof (globalThis as { gc?: unknown }).gc === 'function') return retainedBytes(build);
  const start = process.memoryUsage();
  const value = build();
  const end = process.memoryUsage();
  return { bytes: end.heapUsed - start.heapUsed + (end.arrayBuffers - start.arrayBuffers), value };
}
