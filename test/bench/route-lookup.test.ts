// Smoke test of bench/suites/route-lookup.ts: the suite builds, every case runs against its linear baseline, the bytes-per-route metric and the goals are evaluated (no assertion on a time or a ratio's value).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/route-lookup.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite route-lookup', () => {
  it('runs quickly and reports every case against its baseline, the bytes per route and its goals', async () => {
    const result = await runSuite(suite, { quick: true });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual([
      'linear 10',
      'RouteTable 10',
      'linear 1k',
      'RouteTable 1k',
    ]);
    expect(result.results[3]!.baseline?.name).toBe('linear 1k');
    expect(result.metrics.map((metric) => metric.name)).toEqual(['bytes per route at 1k']);
    expect(result.goals.map((goal) => goal.name)).toEqual([
      'route lookup >= 300x linear at 1k routes',
      '<= 32 bytes per route at 1k',
    ]);
  });
});
