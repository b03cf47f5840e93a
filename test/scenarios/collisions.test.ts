// The shared-namespace collisions (scenarios/collisions.ts): one routing table number, one nft table name, a node's
// source port that is a NodePort; each with kube-proxy in iptables and nftables mode, every check passing, the key
// facts read from the transcript itself, and the same transcript twice from one seed.

import { describe, expect, it } from 'vitest';
import { collisionNftStory, collisionPortsStory, collisionTableStory } from '../../scenarios/collisions.ts';
import { FORMATION_PROXIES } from '../../scenarios/formation-cluster.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { type StoryResult, transcript } from '../../src/story/story.ts';

function check(result: StoryResult, name: string) {
  const found = result.checks.filter((c) => c.name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

/** The output of the n-th run of `command` in the transcript (0-based). */
function outputOf(result: StoryResult, command: string, n = 0): string {
  const runs = result.steps.filter((step) => step.kind === 'command' && step.command === command);
  const step = runs[n];
  if (step === undefined || step.kind !== 'command') throw new Error(`no run ${n} of ${command}`);
  return step.output;
}

describe.each(FORMATION_PROXIES)('collision-table, kube-proxy %s', (kubeProxy) => {
  const result = collisionTableStory({ kubeProxy });

  it('passes every check', () => {
    expect(result.checks.filter((c) => !c.pass)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("shows the VPN's flush erasing the egress route, then one table per component", () => {
    const table100 = 'docker exec formation-worker ip route show table 100';
    expect(outputOf(result, table100, 0)).toBe('default via 172.18.0.4 dev eth0 \n');
    expect(outputOf(result, table100, 1)).toBe('192.168.100.0/24 via 172.18.0.1 dev eth0 \n');
    const get = 'docker exec formation-worker ip route get 203.0.113.10 mark 0x200';
    expect(outputOf(result, get, 0)).toMatch(/^203\.0\.113\.10 via 172\.18\.0\.4 dev eth0 table 100 /);
    expect(outputOf(result, get, 1)).toMatch(
      /^203\.0\.113\.10 via 172\.18\.0\.1 dev eth0 src 172\.18\.0\.3 /,
    );
    expect(outputOf(result, get, 2)).toMatch(/ table 200 /);
    expect(
      check(result, 'after the VPN agent started: diag no longer reaches the partner (curl times out)')
        .actual,
    ).toBe('curl exit 28');
    expect(
      check(result, 'after the VPN reconnected: diag reaches the partner through the egress node').actual,
    ).toBe('ok partner');
  });
});

describe.each(FORMATION_PROXIES)('collision-nft, kube-proxy %s', (kubeProxy) => {
  const result = collisionNftStory({ kubeProxy });

  it('passes every check', () => {
    expect(result.checks.filter((c) => !c.pass)).toEqual([]);
  });

  it("shows the firewall's flush emptying the blocklist's chain while its set still holds the ban", () => {
    const listing = outputOf(result, 'docker exec formation-worker nft -a list table inet filter', 1);
    expect(listing).toMatch(
      /\tchain blocklist \{ # handle \d+\n\t\ttype filter hook prerouting priority mangle; policy accept;\n\t\}/,
    );
    expect(listing).toContain('elements = { 203.0.113.10 }');
    expect(outputOf(result, 'docker exec formation-worker nft monitor')).toMatch(
      /^delete rule inet filter input handle 2\ndelete rule inet filter blocklist handle 5\n/,
    );
    expect(check(result, 'with the ban: 203.0.113.10 is dropped at formation-worker:30080').actual).toBe(
      'curl exit 28',
    );
    expect(
      check(result, 'after the firewall reload: 203.0.113.10 reaches formation-worker:30080').actual,
    ).toBe('ok signalements-7d9f-a');
    expect(
      check(
        result,
        'after the fix and another firewall reload: 203.0.113.10 is dropped at formation-worker:30080',
      ).actual,
    ).toBe('curl exit 28');
  });
});

describe.each(FORMATION_PROXIES)('collision-ports, kube-proxy %s', (kubeProxy) => {
  const result = collisionPortsStory({ kubeProxy });

  it('passes every check', () => {
    expect(result.checks.filter((c) => !c.pass)).toEqual([]);
  });

  it("shows the expired entry's next segment DNATed to the pod and reset, then the reservation that fixes it", () => {
    const lines = transcript(result).join('\n');
    expect(lines).toMatch(/eth0 {2}In {2}IP 172\.18\.0\.1\.7000 > 172\.18\.0\.3\.30080: Flags \[P\.\]/);
    expect(lines).toMatch(/Out IP 172\.18\.0\.3\.\d+ > 10\.244\.2\.7\.8000: Flags \[P\.\]/);
    expect(lines).toMatch(/eth0 {2}Out IP 172\.18\.0\.3\.30080 > 172\.18\.0\.1\.7000: Flags \[R\]/);
    expect(lines).toContain('subscriber 172.18.0.3:30080 lost (ECONNRESET)');
    expect(lines).toContain("config agent's log:\napplied config v1\napplied config v3");
    const fixed = check(result, "ss: connect()'s own draw now lands outside 30000-32767").actual;
    const port = Number(/172\.18\.0\.3:(\d+)/.exec(fixed)?.[1]);
    expect(port < 30000 || port > 32767).toBe(true);
    expect(lines).toContain('subscriber 172.18.0.3:31000 connected');
  });
});

describe('the collision scenarios', () => {
  it('give the same transcript twice from one seed', () => {
    for (const story of [collisionTableStory, collisionNftStory, collisionPortsStory])
      expect(transcript(story({ seed: 'twice' }))).toEqual(transcript(story({ seed: 'twice' })));
  });

  it('run from the scenario table and refuse unknown arguments', () => {
    for (const name of ['collision-table', 'collision-nft', 'collision-ports']) {
      const entry = SCENARIOS.find((scenario) => scenario.name === name)!;
      expect(entry.run({ seed: undefined, args: ['kube-router'] })).toHaveProperty('usage');
      expect(entry.run({ seed: undefined, args: ['iptables', 'more'] })).toHaveProperty('usage');
    }
    const result = SCENARIOS.find((scenario) => scenario.name === 'collision-ports')!.run({
      seed: 'x',
      args: ['nftables'],
    });
    if ('usage' in result) throw new Error(result.usage);
    expect(result.ok).toBe(true);
    expect(result.seed).toBe('x');
  });
});
