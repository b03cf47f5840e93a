// The shape every bench suite's result must have, for the suites' smoke tests (test/bench/): finite figures, baselines that are cases, goals evaluated.

import { expect } from 'vitest';
import type { SuiteResult } from '../../src/cli/bench/suite.ts';

export function expectWellFormed(result: SuiteResult): void {
  expect(result.results.length + result.metrics.length).toBeGreaterThan(0);
  const names = new Set(result.results.map((row) => row.name));
  expect(names.size).toBe(result.results.length);
  for (const row of result.results) {
    expect(row.hz, row.name).toBeGreaterThan(0);
    expect(Number.isFinite(row.nsPerOp), row.name).toBe(true);
    expect(Number.isFinite(row.rme), row.name).toBe(true);
    expect(row.samples, row.name).toBeGreaterThan(0);
    if (row.baseline === null) expect(row.ratio, row.name).toBeNull();
    else {
      expect(names.has(row.baseline.name), row.name).toBe(true);
      expect(row.ratio, row.name).toBeCloseTo(row.hz / row.baseline.hz, 9);
    }
  }
  for (const metric of result.metrics) {
    expect(Number.isFinite(metric.value), metric.name).toBe(true);
    expect(metric.unit.length, metric.name).toBeGreaterThan(0);
  }
  for (const goal of result.goals) {
    expect(Number.isFinite(goal.value), goal.name).toBe(true);
    expect(goal.met).toBe(goal.op === '>=' ? goal.value >= goal.target : goal.value <= goal.target);
  }
}
