// The incident on a real cluster (scenarios/incident-cluster.ts): a DaemonSet whose hostNetwork pods overwrite the
// packet mark breaks NodePort access to a pod on another node while pods, nodes and DaemonSets look healthy; the
// incident's nft trace shows bit 0x4000 lost; the DaemonSet workaround fixes every node, one added afterwards
// included; the upstream fix alone keeps it working. With flannel, its own masquerade rule hides the bug.

import { describe, expect, it } from 'vitest';
import { FORMATION_PROXIES } from '../../scenarios/formation-cluster.ts';
import { incidentClusterStory, TRACE_COMMANDS } from '../../scenarios/incident-cluster.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { type StoryResult, transcript } from '../../src/story/story.ts';

function check(result: StoryResult, name: string) {
  const found = result.checks.filter((c) => c.name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

describe.each(FORMATION_PROXIES)('the incident with kindnet and kube-proxy %s', (kubeProxy) => {
  const result = incidentClusterStory({ cni: 'kindnet', kubeProxy });

  it('passes every check', () => {
    expect(result.checks.filter((c) => !c.pass)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('breaks the NodePort on the nodes that forward, while everything looks healthy', () => {
    expect(check(result, 'after the upgrade: 172.18.0.3:30080 goes nowhere (curl times out)').actual).toBe(
      'curl exit 28',
    );
    expect(
      check(result, 'after the upgrade, on the node that runs the pod: 172.18.0.4:30080 answers').pass,
    ).toBe(true);
    // Healthy before the upgrade, after it, and with the workaround.
    expect(result.checks.filter((c) => c.name === 'kubectl get pods: every pod 1/1 Running')).toHaveLength(3);
    expect(check(result, "kubectl get ds -o wide: the agent's new image").actual).toBe(
      'netbirdio/netbird:0.30.0',
    );
    for (const node of ['formation-control-plane', 'formation-worker', 'formation-worker2'])
      expect(check(result, `${node}: the agent is up, its table loaded`).actual).toBe('table inet netbird {');
    expect(
      result.checks.filter((c) => c.name.startsWith('kubectl get ds netbird:')).every((c) => c.pass),
    ).toBe(true);
  });

  it('traces the packet losing bit 0x4000 to the unmasked rule', () => {
    const rule = check(
      result,
      "the trace: then Netbird's rule sets the mark without a mask, and the packet leaves forward with 0x00010000 only",
    );
    expect(rule.actual).toMatch(
      /inet netbird forward-mark rule meta mark set 0x00010000 \(verdict continue\)/,
    );
    expect(
      check(result, 'the trace: kube-proxy marks the NodePort packet for masquerade (bit 0x4000)').actual,
    ).toMatch(/0x0*4000/);
    expect(
      check(
        result,
        "the trace: the packet enters Netbird's chain with 0x00004000 and leaves it with 0x00010000: bit 0x4000 is lost there",
      ).actual,
    ).toBe(
      'inet debug before-netbird policy accept meta mark 0x00004000; inet netbird forward-mark policy accept meta mark 0x00010000',
    );
    const lines = transcript(result).join('\n');
    for (const command of TRACE_COMMANDS)
      expect(lines).toContain(`$ docker exec formation-worker ${command}\n`);
  });

  it('fixes every node with the DaemonSet, the added node and a restarted agent included, and then without it', () => {
    expect(check(result, 'netbird-mark-fix has a pod on formation-worker3').pass).toBe(true);
    expect(check(result, 'on the new node: 172.18.0.5:30080 answers').actual).toBe('ok signalements-7d9f-a');
    expect(check(result, 'after the agent restarted: 172.18.0.3:30080 answers').pass).toBe(true);
    expect(check(result, 'the workaround rewrote it on formation-worker this time').actual).toMatch(
      /^formation-worker: netbird-mark-fix-[a-z0-9]{5} rewrote rule handle \d+$/,
    );
    expect(check(result, 'four netbird pods, one per node, and no workaround left').pass).toBe(true);
    for (const address of ['172.18.0.2', '172.18.0.3', '172.18.0.4', '172.18.0.5'])
      expect(check(result, `with the upstream fix alone: ${address}:30080 answers`).pass).toBe(true);
  });

  it('shows the root-cause fix: disjoint bits, both kept through the trace, and no workaround needed after a restart', () => {
    expect(
      check(result, 'the root cause is gone: each component sets only its own bit, and the bits are disjoint')
        .actual,
    ).toBe('netbird 0x10000 & kube-proxy 0x4000 = 0');
    expect(
      check(
        result,
        "the trace with the upstream fix alone: both bits through Netbird's chain, then kube-proxy's masquerade",
      ).actual,
    ).toContain('inet netbird forward-mark policy accept meta mark 0x00014000');
    expect(
      check(result, "after formation-worker3's agent restarted, no workaround: 172.18.0.5:30080 answers")
        .actual,
    ).toBe('ok signalements-7d9f-a');
  });
});

describe('the incident with flannel', () => {
  it.each(FORMATION_PROXIES)(
    'is hidden by FLANNEL-POSTRTG (kube-proxy %s): the NodePort still answers',
    (kubeProxy) => {
      const result = incidentClusterStory({ cni: 'flannel-vxlan', kubeProxy });
      expect(result.checks.filter((c) => !c.pass)).toEqual([]);
      expect(check(result, 'after the upgrade, with flannel: 172.18.0.3:30080 answers').actual).toBe(
        'ok signalements-7d9f-a',
      );
    },
  );
});

describe('the incident replayed', () => {
  it('gives the same transcript twice from one seed', () => {
    expect(transcript(incidentClusterStory({ seed: 'twice' }))).toEqual(
      transcript(incidentClusterStory({ seed: 'twice' })),
    );
  });
});

describe('the scenario table', () => {
  it('runs the incident from its arguments and refuses unknown ones', () => {
    const entry = SCENARIOS.find((scenario) => scenario.name === 'incident')!;
    const result = entry.run({ seed: undefined, args: ['kindnet', 'nftables'] });
    if ('usage' in result) throw new Error(result.usage);
    expect(result.ok).toBe(true);
    expect(entry.run({ seed: undefined, args: ['cilium'] })).toHaveProperty('usage');
  });
});
