// Smoke test of bench/suites/new-connections.ts: the churn creates, NATs and confirms every flow (the build checks it), every case runs and the figures are well-formed (no assertion on a time or a ratio's value).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/new-connections.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite new-connections', () => {
  it('runs quickly and reports both cases, the allocation per connection and its goal', async () => {
    const result = await runSuite(suite, { quick: true });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual([
      'create + NAT port + confirm',
      'create + confirm',
    ]);
    expect(result.metrics.find((m) => m.name === 'live connections')?.value).toBe(1024);
    expect(result.goals.map((goal) => goal.name)).toEqual([
      '>= 1M new connections/s with NAT port selection',
    ]);
  });
});
