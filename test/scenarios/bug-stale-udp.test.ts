// The stale UDP conntrack replay (scenarios/bug-stale-udp.ts, kubernetes#59368): without kube-proxy's cleanup the
// statsd counters keep going to the deleted pod's address until `conntrack -D`; with it, they reach the new pod.

import { describe, expect, it } from 'vitest';
import { STALE_UDP_VARIANTS, staleUdpStory } from '../../scenarios/bug-stale-udp.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { type StoryResult, transcript } from '../../src/story/story.ts';

function check(result: StoryResult, name: string) {
  const found = result.checks.filter((c) => c.name.startsWith(name));
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

describe.each(STALE_UDP_VARIANTS)('bug-stale-udp %s', (variant) => {
  const result = staleUdpStory(variant, 'bug-stale-udp');
  const lines = transcript(result);

  it('passes every check', () => {
    expect(result.checks.filter((c) => !c.pass)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('shows the entry the first datagram made, then where the later ones go', () => {
    expect(lines).toContain('$ docker exec formation-worker conntrack -L -p udp');
    const entries = lines.filter((line) => line.startsWith('udp      17 '));
    expect(entries[0]).toMatch(
      /src=10\.244\.1\.5 dst=10\.96\.81\.25 sport=41240 dport=8125 \[UNREPLIED\] src=10\.244\.2\.2 /,
    );
    if (variant === 'no-cleanup') {
      expect(check(result, 'the new pod').actual).toBe('0');
      expect(lines).toContain('$ docker exec formation-worker conntrack -D -p udp --orig-dst 10.96.81.25');
      expect(lines).toContain('conntrack v1.4.7 (conntrack-tools): 1 flow entries have been deleted.');
      expect(entries.at(-1)).toMatch(/\[UNREPLIED\] src=10\.244\.1\.6 dst=10\.244\.1\.5/);
    } else {
      expect(Number(check(result, 'the new pod').actual)).toBeGreaterThan(10);
      expect(lines.some((line) => line.startsWith('$ ') && line.includes('conntrack -D'))).toBe(false);
    }
  });

  it('is deterministic: the same seed gives the same transcript', () => {
    expect(transcript(staleUdpStory(variant, 'bug-stale-udp'))).toEqual(lines);
  });
});

describe('bug-stale-udp in the scenario table', () => {
  it('runs by name and refuses unknown variants', () => {
    const entry = SCENARIOS.find((s) => s.name === 'bug-stale-udp')!;
    expect(entry.run({ seed: undefined, args: ['bogus'] })).toEqual({
      usage: 'usage: packetlab run bug-stale-udp [no-cleanup|cleanup]',
    });
  });
});
