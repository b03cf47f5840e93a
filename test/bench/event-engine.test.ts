// Smoke test of bench/suites/event-engine.ts: the suite builds, every case runs and reports well-formed figures (no assertion on a time or a ratio's value).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/event-engine.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite event-engine', () => {
  it('runs quickly and reports every case against its baseline, and its goals', async () => {
    const result = await runSuite(suite, { quick: true });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual(['object heap 1k pending', 'scheduler 1k pending']);
    expect(result.results[1]!.baseline?.name).toBe('object heap 1k pending');
    expect(result.goals.map((goal) => goal.name)).toEqual(['scheduler >= 8 M events/s with 1k pending']);
  });
});
