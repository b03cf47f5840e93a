// Smoke test of bench/suites/rules-nftables.ts: the suite builds 100 Services through kube-proxy's nftables sync, every case runs and reports well-formed figures (no assertion on a time or a ratio's value).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/rules-nftables.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite rules-nftables', () => {
  it('runs quickly at 100 Services and reports every case, metric and its baselines', async () => {
    const result = await runSuite(suite, { quick: true });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual([
      'first packet 100 Services',
      'established packet 100 Services',
      'Map<string> lookup 10k elements',
      'set index lookup 10k elements',
    ]);
    expect(result.results[3]!.baseline?.name).toBe('Map<string> lookup 10k elements');
    expect(result.metrics.map((metric) => metric.name)).toEqual([
      'nft -f load 100 Services',
      'heap per ruleset 100 Services',
      'heap per Service 100 Services',
    ]);
    // Goals compare 1k with 10k Services: a quick run has neither.
    expect(result.goals).toEqual([]);
  });
});
