// Smoke test of bench/suites/connect-ports.ts: in quick mode a 1,000-port range fills to EADDRNOTAVAIL with every port handed out once (the build checks it), every case runs and the figures are well-formed (no assertion on a time or a ratio's value).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/connect-ports.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite connect-ports', () => {
  it('runs quickly: the fill by tenths, the failing connect() and the search against the string set', async () => {
    const result = await runSuite(suite, { quick: true });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual([
      'connect() fails: EADDRNOTAVAIL',
      'string-set 50%',
      'search 50%',
      'string-set 90%',
      'search 90%',
      'string-set 99%',
      'search 99%',
    ]);
    expect(result.results[2]!.baseline?.name).toBe('string-set 50%');
    expect(result.metrics.find((m) => m.name === 'ports handed out before EADDRNOTAVAIL')?.value).toBe(1000);
    expect(result.metrics.filter((m) => m.unit === 'us')).toHaveLength(10);
  });
});
