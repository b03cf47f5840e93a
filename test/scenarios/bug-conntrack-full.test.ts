// The full-table replay (scenarios/bug-conntrack-full.ts, kubernetes#71261): UNREPLIED UDP entries are evicted for
// new flows (early_drop), ASSURED connections are not; then the node drops new flows, its pod's readiness probe
// fails, the pod leaves the Service, dmesg says "table full" (rate-limited); a larger nf_conntrack_max fixes it.

import { describe, expect, it } from 'vitest';
import { conntrackFullStory } from '../../scenarios/bug-conntrack-full.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { transcript } from '../../src/story/story.ts';

describe('bug-conntrack-full', () => {
  const result = conntrackFullStory('bug-conntrack-full');
  const lines = transcript(result);

  it('passes every check', () => {
    expect(result.checks.filter((c) => !c.pass)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("prints the kernel's words, rate-limited, and the counters", () => {
    const full = lines.filter((line) =>
      / nf_conntrack: nf_conntrack: table full in netns \d+, dropping packet$/.test(line),
    );
    const suppressed = lines.filter((line) =>
      /^\[ *\d+\.\d{6}\] net_ratelimit: \d+ callbacks suppressed$/.test(line),
    );
    expect(suppressed.length).toBeGreaterThan(0);
    // At most 10 lines per 5 s window: far fewer lines than drops.
    const stats = lines.filter((line) => line.startsWith('cpu=0'));
    const drops = Number(/drop=(\d+)/.exec(stats.at(-1)!)![1]);
    expect(full.length).toBeLessThan(drops / 5);
    expect(lines).toContain('net.netfilter.nf_conntrack_count = 400');
  });

  it('shows the pod unready while the table is full, ready once the limit is raised', () => {
    const readiness = lines
      .filter((line) => line.startsWith('signalements-7d9f-a '))
      .map((l) => l.split(/ +/)[1]);
    expect(readiness).toEqual(['1/1', '0/1', '1/1']);
    expect(lines).toContain(
      '$ docker exec formation-worker2 sysctl -w net.netfilter.nf_conntrack_max=262144',
    );
  });

  it('is deterministic: the same seed gives the same transcript', () => {
    expect(transcript(conntrackFullStory('bug-conntrack-full'))).toEqual(lines);
  });

  it('takes no arguments', () => {
    const entry = SCENARIOS.find((s) => s.name === 'bug-conntrack-full')!;
    expect(entry.run({ seed: undefined, args: ['x'] })).toEqual({
      usage: 'usage: packetlab run bug-conntrack-full',
    });
  });
});
