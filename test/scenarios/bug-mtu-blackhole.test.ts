// The MTU black-hole replay (scenarios/bug-mtu-blackhole.ts, moby/libnetwork#2661): an underlay narrower than the
// node NICs drops big VXLAN packets silently; small requests pass, the export stalls with retransmissions and no
// ICMP; the ping search finds the limit; flannel.1 at 1400 brings back "Frag needed" and the export.

import { describe, expect, it } from 'vitest';
import { mtuBlackholeStory } from '../../scenarios/bug-mtu-blackhole.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { transcript } from '../../src/story/story.ts';

describe('bug-mtu-blackhole', () => {
  const result = mtuBlackholeStory('bug-mtu-blackhole');
  const lines = transcript(result);

  it('passes every check', () => {
    expect(result.checks.filter((c) => !c.pass)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('shows the NIC at 1500, the stall, the silent pings and the error once fixed', () => {
    expect(lines.some((line) => /^2: eth0@if\d+: .* mtu 1500 /.test(line))).toBe(true);
    expect(lines.filter((line) => line === '000 0 28')).toHaveLength(1);
    expect(lines).toContain('200 100000 0');
    const pings = lines.filter((line) => line.startsWith('$ kubectl exec diag -- ping -M do -s '));
    expect(pings.length).toBeGreaterThan(5);
    expect(lines.filter((line) => line.startsWith('From ') && line.includes('Frag needed'))).toEqual([
      'From 10.244.1.1 icmp_seq=1 Frag needed and DF set (mtu = 1400)',
    ]);
  });

  it('is deterministic: the same seed gives the same transcript', () => {
    expect(transcript(mtuBlackholeStory('bug-mtu-blackhole'))).toEqual(lines);
  });

  it('takes no arguments', () => {
    const entry = SCENARIOS.find((s) => s.name === 'bug-mtu-blackhole')!;
    expect(entry.run({ seed: undefined, args: ['x'] })).toEqual({
      usage: 'usage: packetlab run bug-mtu-blackhole',
    });
  });
});
