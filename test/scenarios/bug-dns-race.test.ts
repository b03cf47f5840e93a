// The DNS insert-race replay (scenarios/bug-dns-race.ts, kubernetes#56903) on each kernel generation: 4.19 delays
// every lookup by 5 s, 5.4 those whose queries went to different CoreDNS pods, 6.18 none; single-request-reopen and
// (from 5.0) a single endpoint remove the delays.

import { describe, expect, it } from 'vitest';
import { DNS_RACE_KERNELS, dnsRaceStory } from '../../scenarios/bug-dns-race.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { type StoryResult, transcript } from '../../src/story/story.ts';

function check(result: StoryResult, name: string) {
  const found = result.checks.filter((c) => c.name.startsWith(name));
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

/** Every time_namelookup the transcript printed, in order. */
function lookupTimes(lines: readonly string[]): number[] {
  return lines.filter((line) => /^\d+\.\d{6}$/.test(line)).map(Number);
}

describe.each(DNS_RACE_KERNELS)('bug-dns-race on Linux %s', (kernel) => {
  const result = dnsRaceStory(kernel, 'bug-dns-race');
  const lines = transcript(result);

  it('passes every check', () => {
    expect(result.checks.filter((c) => !c.pass)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('prints the lookup times and the counters that diagnose them', () => {
    const times = lookupTimes(lines);
    const stats = lines.filter((line) => line.startsWith('cpu=0'));
    if (kernel === '6.18') {
      expect(times).toEqual(new Array(8).fill(0));
      expect(stats.at(-1)).toContain('insert_failed=0 drop=0');
      expect(stats.at(-1)).toContain('clash_resolve=8');
    } else {
      // diag's lookups, diag-reopen's, then diag's with one CoreDNS pod.
      expect(times).toHaveLength(24);
      expect(times.slice(8, 16)).toEqual(new Array(8).fill(0));
      expect(times.slice(0, 8).some((t) => t === 5)).toBe(true);
      expect(stats[1]).toContain('insert_failed=8');
      expect(lines).toContain('$ kubectl scale deployment coredns -n kube-system --replicas=1');
      expect(times.slice(16).every((t) => t === (kernel === '4.19' ? 5 : 0))).toBe(true);
    }
  });

  it('shows one capture, with the AAAA query that did or did not leave the node', () => {
    const at = lines.findIndex((line) => line.startsWith('# what a capture on formation-worker saw'));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe("$ docker exec formation-worker tcpdump -ni any 'udp port 53'");
    expect(check(result, 'the capture').pass).toBe(true);
  });

  it('is deterministic: the same seed gives the same transcript', () => {
    expect(transcript(dnsRaceStory(kernel, 'bug-dns-race'))).toEqual(lines);
  });
});

describe('bug-dns-race in the scenario table', () => {
  it('defaults to 5.4 and refuses other kernels', () => {
    const entry = SCENARIOS.find((s) => s.name === 'bug-dns-race')!;
    expect(entry.run({ seed: undefined, args: ['3.10'] })).toEqual({
      usage: 'usage: packetlab run bug-dns-race [4.19|5.4|6.18]',
    });
  });
});
