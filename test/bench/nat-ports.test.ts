// Smoke test of bench/suites/nat-ports.ts: the shipped search and the string-set search agree (the build checks it), every case runs and the figures are well-formed (no assertion on a time or a ratio's value).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/nat-ports.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite nat-ports', () => {
  it('runs quickly and reports each occupancy against the string set, with probes per flow', async () => {
    const result = await runSuite(suite, { quick: true });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual([
      'string-set 50%',
      'conntrack 50%',
      'string-set exhausted',
      'conntrack exhausted',
    ]);
    expect(result.results[1]!.baseline?.name).toBe('string-set 50%');
    // At exhaustion every selection makes the kernel's whole budget of 248 probes.
    expect(result.metrics.find((m) => m.name === 'probes per flow at exhausted')?.value).toBe(248);
  });
});
