// The lesson's security points (scenarios/security.ts): each passes every check it declares, shows the outputs that
// prove it, and is the same story for a seed; the scenario table runs them from their arguments.

import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';
import { type SECURITY_POINTS, securityStory } from '../../scenarios/security.ts';
import { checkLines, type StoryResult, transcript } from '../../src/story/story.ts';

const results = new Map<string, StoryResult>();
function run(which: (typeof SECURITY_POINTS)[number], tool: 'iptables' | 'nft' = 'iptables'): StoryResult {
  const key = `${which} ${tool}`;
  let result = results.get(key);
  if (result === undefined) {
    result = securityStory(which, 'security', tool);
    results.set(key, result);
  }
  return result;
}

describe('the security points', () => {
  it.each([
    [1, 'iptables'],
    [2, 'iptables'],
    [2, 'nft'],
    [3, 'iptables'],
    [4, 'iptables'],
  ] as const)('security %i (%s) passes every check it declares', (which, tool) => {
    const result = run(which, tool);
    expect(result.checks.length).toBeGreaterThanOrEqual(4);
    expect(checkLines(result).filter((line) => !line.startsWith('PASS'))).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('1: tcpdump -A on eth0 prints the report inside VXLAN, -X its bytes', () => {
    const lines = transcript(run(1));
    expect(lines).toContain('{"nom":"Martin","telephone":"0612345678","adresse":"12 rue des Lilas"}');
    expect(
      lines.some((line) =>
        /^\d\d:\d\d:\d\d\.\d{6} IP 172\.18\.0\.3\.\d+ > 172\.18\.0\.4\.8472: OTV/.test(line),
      ),
    ).toBe(true);
    expect(lines.some((line) => /^\t0x00[0-9a-f]0: .*504f 5354/.test(line))).toBe(true);
  });

  it('2: every node answers its NodePort until the filter, then only the balancer gets through', () => {
    for (const tool of ['iptables', 'nft'] as const) {
      const lines = transcript(run(2, tool));
      const timedOut = lines.filter(
        (line) => line === 'curl: (28) Connection timed out after 2000 milliseconds',
      );
      expect(timedOut).toHaveLength(3);
      expect(
        lines.filter((line) => /^\$ curl -sS -m 2 http:\/\/172\.18\.0\.[234]:30080\/sante$/.test(line)),
      ).toHaveLength(6);
    }
    expect(transcript(run(2, 'nft'))).toContain(
      '\t\ttcp flags syn / fin,syn,rst,ack tcp dport 30000-32767 ip saddr != 172.18.0.1 counter packets 2 bytes 120 drop',
    );
  });

  it("3: the partner's log sees 172.18.0.3 for both pods of formation-worker, then 172.18.0.100 for diag alone", () => {
    const lines = transcript(run(3));
    const logged = lines
      .filter((line) => / - - \[.*\] "GET \/api HTTP\/1\.1" 200 13$/.test(line))
      .map((line) => line.split(' ')[0]);
    expect(logged).toEqual(['172.18.0.3', '172.18.0.3', '172.18.0.4', '172.18.0.100']);
  });

  it('4: the ClusterIP rule counts 0 in FORWARD, the pod-address and ctorigdst rules count the SYNs', () => {
    const counted = transcript(run(4)).filter((line) => /^ +\d+ +\d+ DROP /.test(line));
    expect(counted.map((line) => line.trim().split(/ +/)[0])).toEqual(['0', '2', '2']);
  });

  it('is the same story for a seed', () => {
    expect(transcript(securityStory(4))).toEqual(transcript(run(4)));
    expect(transcript(securityStory(2, 'security', 'nft'))).toEqual(transcript(run(2, 'nft')));
  });

  it('the scenario table runs a point from its arguments and refuses others', () => {
    const entry = SCENARIOS.find((scenario) => scenario.name === 'security')!;
    const result = entry.run({ seed: undefined, args: ['4'] });
    if ('usage' in result) throw new Error(result.usage);
    expect(result.scenario).toBe('security 4');
    expect(result.ok).toBe(true);
    expect(entry.run({ seed: undefined, args: ['5'] })).toHaveProperty('usage');
    expect(entry.run({ seed: undefined, args: ['1', 'nft'] })).toHaveProperty('usage');
    expect(entry.run({ seed: undefined, args: ['2', 'pf'] })).toHaveProperty('usage');
  });
});
