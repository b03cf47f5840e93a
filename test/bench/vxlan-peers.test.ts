// Smoke test of bench/suites/vxlan-peers.ts: the suite builds a node with peers through the real commands, runs the lookups against their baseline and evaluates the bytes-per-peer goal (no assertion on a time or a ratio's value).

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/vxlan-peers.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite vxlan-peers', () => {
  it('runs quickly and reports the lookups against their baseline, the bytes per peer and its goal', async () => {
    const result = await runSuite(suite, { quick: true });
    expectWellFormed(result);
    expect(result.results.map((row) => row.name)).toEqual(['string maps 200 peers', 'packetlab 200 peers']);
    expect(result.metrics.map((metric) => metric.name)).toEqual(['bytes per peer at 200']);
    expect(result.goals.map((goal) => goal.name)).toEqual(['a VXLAN peer <= 64 bytes at 200 peers']);
  });
});
