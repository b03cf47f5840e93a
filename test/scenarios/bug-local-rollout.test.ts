// The Local rollout replay (scenarios/bug-local-rollout.ts, kubernetes#85643): without a preStop hook requests fail
// while the load balancer still sends to the node whose only pod is gone; with a preStop sleep longer than the health
// check's detection, the terminating pod serves until its node is out of the pool and nothing fails.

import { describe, expect, it } from 'vitest';
import { localRolloutStory, ROLLOUT_VARIANTS } from '../../scenarios/bug-local-rollout.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { transcript } from '../../src/story/story.ts';

describe.each(ROLLOUT_VARIANTS)('bug-local-rollout %s', (variant) => {
  const result = localRolloutStory(variant, 'bug-local-rollout');
  const lines = transcript(result);

  it('passes every check', () => {
    expect(result.checks.filter((c) => !c.pass)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("prints the second-by-second table and the load generator's report", () => {
    const header = lines.indexOf('second  failed  pool                                  old pod');
    expect(header).toBeGreaterThan(0);
    const rows = lines.slice(header + 1, header + 21).map((line) => line.trim().split(/\s+/));
    const failed = rows.reduce((sum, row) => sum + Number(row[1]), 0);
    const report = lines.find((line) => line.startsWith('failed '))!;
    expect(Number(report.split(/\s+/)[1])).toBe(failed);
    // The pool moves from formation-worker2 to formation-worker during the rollout.
    expect(rows[0]![2]).toBe('formation-worker2');
    expect(rows.at(-1)![2]).toBe('formation-worker');
    if (variant === 'no-prestop') {
      expect(failed).toBeGreaterThan(20);
      expect(lines.some((line) => line.includes('"default/web:http has no local endpoints"'))).toBe(true);
    } else {
      expect(failed).toBe(0);
      expect(rows.some((row) => row.join(' ').includes('Terminating, serving'))).toBe(true);
    }
  });

  it('is deterministic: the same seed gives the same transcript', () => {
    expect(transcript(localRolloutStory(variant, 'bug-local-rollout'))).toEqual(lines);
  });
});

describe('bug-local-rollout in the scenario table', () => {
  it('refuses unknown variants', () => {
    const entry = SCENARIOS.find((s) => s.name === 'bug-local-rollout')!;
    expect(entry.run({ seed: undefined, args: ['later'] })).toEqual({
      usage: 'usage: packetlab run bug-local-rollout [no-prestop|prestop]',
    });
  });
});
