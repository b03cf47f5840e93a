// Smoke test of bench/suites/conntrack.ts: the suite builds a small table and Map, checks every lookup, runs every case and reports well-formed figures (no assertion on a time or a ratio's value).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/conntrack.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite conntrack', () => {
  it('runs quickly and reports hit and miss against the Map, bytes per flow, and its goals', async () => {
    const result = await runSuite(suite, { quick: true, args: {} });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual([
      'conntrack hit 2k',
      'conntrack miss 2k',
      'map hit 2k',
      'map miss 2k',
    ]);
    expect(result.results[0]!.baseline?.name).toBe('map hit 2k');
    expect(result.metrics.find((m) => m.name === 'flows held at 2k')?.value).toBe(2000);
    expect(result.goals.map((goal) => goal.name)).toEqual([
      '<= 128 bytes per flow at 2k flows (index + entry with NAT and timers)',
    ]);
  });

  it('takes its sizes from --flows', async () => {
    const result = await runSuite(suite, { quick: true, args: { flows: '300', 'map-max': '0' } });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual(['conntrack hit 300', 'conntrack miss 300']);
  });
});
