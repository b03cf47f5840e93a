// Smoke test of bench/suites/packet-path.ts: the suite builds its four paths, every case runs against its bound and the allocation metrics and goals come out well-formed (no assertion on a time, a ratio or a byte count).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/packet-path.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite packet-path', () => {
  it('runs quickly: each path against its allocation-free bound, with bytes per packet and goals', async () => {
    const result = await runSuite(suite, { quick: true, args: { flows: '50', packets: '200' } });
    expectWellFormed(result);
    const paths = result.results.filter((row) => row.baseline !== null);
    expect(paths.map((row) => row.name)).toEqual([
      'bridge, 1 flow',
      'bridge, 50 flows',
      'vxlan, 1 flow',
      'vxlan, 50 flows',
      'clusterip, 1 flow',
      'clusterip, 50 flows',
      'nodeport, 1 flow',
      'nodeport, 50 flows',
    ]);
    for (const row of paths) expect(row.baseline?.name).toBe(row.name.replace(',', ' bound,'));
    expect(result.metrics.map((metric) => metric.unit)).toEqual(Array(8).fill('bytes/packet'));
    expect(result.goals).toHaveLength(16);
  }, 30_000);
});
