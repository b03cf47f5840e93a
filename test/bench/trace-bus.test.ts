// Smoke test of bench/suites/trace-bus.ts: both builds (tracing compiled out, tracing with no listener) bundle, load and run, and the goals are evaluated (no assertion on a time or a ratio's value).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/trace-bus.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite trace-bus', () => {
  it('runs quickly: each path compiled out as the baseline of the same path traced with no listener', async () => {
    const result = await runSuite(suite, { quick: true });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual([
      'bridge, tracing compiled out',
      'bridge, tracing with no listener',
    ]);
    expect(result.metrics.map((metric) => metric.unit)).toEqual(['ratio']);
    expect(result.goals).toHaveLength(1);
  }, 60_000);

  it('compiles the trace sites out of one build only', () => {
    const off = readFileSync('tmp/bench/trace-bus-compiled-out.mjs', 'utf8');
    const on = readFileSync('tmp/bench/trace-bus-traced.mjs', 'utf8');
    expect(on).toContain('bus.wants.step');
    expect(off).not.toContain('bus.wants.step');
  });
});
