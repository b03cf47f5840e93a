// The lesson's two load-balancer pitfalls (scenarios/pitfall-source.ts, pitfall-local.ts): every check passes, with
// key facts read from the transcript itself, the scenario table runs them from their arguments, and a seed gives
// one transcript.

import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';
import { pitfallLocalStory } from '../../scenarios/pitfall-local.ts';
import { pitfallSourceStory } from '../../scenarios/pitfall-source.ts';
import { type StoryResult, transcript } from '../../src/story/story.ts';

function passes(result: StoryResult): string[] {
  expect(result.checks.filter((check) => !check.pass)).toEqual([]);
  expect(result.ok).toBe(true);
  return transcript(result);
}

/** The `statuses` rows of the load reports, in order. */
const statuses = (lines: readonly string[]) =>
  lines.filter((line) => line.startsWith('statuses ')).map((line) => line.replace(/^statuses +/, ''));

describe('pitfall-source: the pod sees a node address instead of the client', () => {
  const result = pitfallSourceStory();
  const lines = passes(result);

  it('under Cluster the logs hold node addresses and the people are refused; each remedy logs the clients', () => {
    expect(result.checks).toHaveLength(8);
    const seen = lines.filter((line) => line.startsWith("the client addresses in the pods' access logs: "));
    expect(seen).toHaveLength(4);
    expect(seen[0]).not.toMatch(/203\.0\.113\.10|198\.51\.100\.21|192\.0\.2\.31/);
    for (const remedy of seen.slice(1))
      for (const addr of ['203.0.113.10', '198.51.100.21', '192.0.2.31'])
        expect(remedy).toContain(`${addr} ×`);
    // Four phases × three clients: under Cluster alice or bob meet a 429; after, only the scraper.
    const rows = statuses(lines);
    expect(rows).toHaveLength(12);
    expect(rows.slice(1, 3).some((row) => row.includes('429='))).toBe(true);
    for (let phase = 1; phase < 4; phase++) {
      expect(rows[phase * 3]).toMatch(/429=\d+/);
      expect(rows[phase * 3 + 1]).not.toContain('429');
      expect(rows[phase * 3 + 2]).not.toContain('429');
    }
  });

  it('another CNI and mode tells the same story', () => {
    passes(pitfallSourceStory({ cni: 'flannel-vxlan', kubeProxy: 'nftables' }));
  });
});

describe('pitfall-local: Local and a node with no pod', () => {
  const lines = passes(pitfallLocalStory());

  it('one request in three lost to formation-worker3, then none with the healthCheckNodePort and with a DaemonSet', () => {
    const rows = lines.filter((line) => line.startsWith('failures '));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^failures +curl 28=\d+$/);
    expect(rows.slice(1)).toEqual(['failures      -', 'failures      -']);
    expect(lines.filter((line) => line.includes('numgen random mod'))).toHaveLength(3);
    expect(
      lines.some((line) => line.includes('[UNREPLIED] src=172.18.0.5 dst=203.0.113.10 sport=30080')),
    ).toBe(true);
    expect(lines).toContain('$ kubectl get ds signalements-entree');
  });

  it('the same seed gives the same transcript; the other mode and CNI pass', () => {
    expect(transcript(pitfallLocalStory())).toEqual(lines);
    passes(pitfallLocalStory({ cni: 'flannel-host-gw', kubeProxy: 'nftables' }));
  });

  it('the scenario table lists both and refuses unknown arguments', () => {
    for (const name of ['pitfall-source', 'pitfall-local']) {
      const entry = SCENARIOS.find((scenario) => scenario.name === name)!;
      expect(entry.summary.length).toBeGreaterThan(20);
      expect(entry.run({ seed: undefined, args: ['cilium'] })).toHaveProperty('usage');
      expect(entry.run({ seed: undefined, args: ['kindnet', 'ipvs'] })).toHaveProperty('usage');
    }
  });
});
