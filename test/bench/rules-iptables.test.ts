// Smoke test of bench/suites/rules-iptables.ts: the suite builds at 100 Services (and at 50 and 100 for its goals), every case runs and reports well-formed figures (no assertion on a time or a ratio's value).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/rules-iptables.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite rules-iptables', () => {
  it('runs quickly at 100 Services and reports every case and metric', async () => {
    const result = await runSuite(suite, { quick: true });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual(['first packet 100', 'established packet 100']);
    expect(result.metrics.map((metric) => metric.name)).toEqual([
      'rules 100',
      'iptables-restore load 100',
      'heap first ruleset 100',
      'heap per further ruleset 100',
    ]);
  }, 30_000);

  it('compares each size with the smallest in the same run and evaluates the goals', async () => {
    const result = await runSuite(suite, { quick: true, args: { services: '50,100' } });
    expectWellFormed(result);
    expect(result.results.find((row) => row.name === 'first packet 100')?.baseline?.name).toBe(
      'first packet 50',
    );
    expect(result.goals.map((goal) => goal.name)).toEqual([
      'first packet 100/50 <= 2.4x (cost per rule constant)',
      'established packet 100/50 <= 1.5x (flat)',
      'iptables-restore load 100/50 <= 2.4x (linear)',
    ]);
  }, 30_000);
});
