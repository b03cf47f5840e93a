// The lesson's variants (scenarios/lesson-cluster.ts, lesson-entry.ts): flannel's host-gw wiring (a bridge and
// direct routes), case 4's hairpin in both kube-proxy modes (mark, masquerade, conntrack, tcpdump, the bridge port's
// hairpin mode), and case 6 through the load balancer (eTP Cluster, Local with the health check, PROXY v2), each
// passing every check, with key facts read from the transcript itself.

import { describe, expect, it } from 'vitest';
import { FORMATION_PROXIES, type FormationCni } from '../../scenarios/formation-cluster.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import { lessonCaseStory } from '../../scenarios/lesson-cluster.ts';
import type { LbEntry } from '../../scenarios/lesson-entry.ts';
import { type StoryResult, transcript } from '../../src/story/story.ts';

function passes(result: StoryResult): string[] {
  expect(result.checks.filter((check) => !check.pass)).toEqual([]);
  expect(result.ok).toBe(true);
  return transcript(result);
}

describe('flannel host-gw: the bridge of case 1, the direct routes of case 2', () => {
  it('case 2 routes formation-worker2 via its address on eth0, no tunnel, the bare packet on the wire', () => {
    const lines = passes(lessonCaseStory(2, { cni: 'flannel-host-gw' }));
    expect(lines).toContain('10.244.2.0/24 via 172.18.0.4 dev eth0 ');
    expect(lines.some((line) => line.startsWith('flannel.1'))).toBe(false);
    expect(
      lines.some((line) => / eth0 {2}Out IP 10\.244\.1\.5 > 10\.244\.2\.7: ICMP echo request/.test(line)),
    ).toBe(true);
    expect(lines.some((line) => line.includes('.8472:'))).toBe(false);
  });
});

describe('case 4: hairpin', () => {
  // Every case × CNI × mode runs in lesson-cluster.test.ts; here the facts of two, one per kube-proxy mode.
  it.each([
    ['flannel-vxlan', 'iptables'],
    ['kindnet', 'nftables'],
  ] as const)('with %s and kube-proxy %s', (cni, kubeProxy) => {
    const lines = passes(lessonCaseStory(4, { cni, kubeProxy }));
    expect(
      lines.some((line) =>
        /src=10\.244\.1\.9 dst=10\.96\.40\.12 sport=\d+ dport=80 src=10\.244\.1\.9 dst=10\.244\.1\.1 sport=8000/.test(
          line,
        ),
      ),
    ).toBe(true);
    expect(lines).toContain(
      kubeProxy === 'iptables'
        ? '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000'
        : '\t\tmeta mark set meta mark | 0x00004000',
    );
    expect(
      lines.some((line) =>
        /veth[0-9a-f]{8} Out IP 10\.244\.1\.1\.\d+ > 10\.244\.1\.9\.8000: Flags \[S\]/.test(line),
      ),
    ).toBe(true);
    const bridgeCommands = lines.filter((line) => line.startsWith('$ docker exec formation-worker bridge'));
    if (cni === 'kindnet') expect(bridgeCommands).toEqual([]);
    else {
      expect(bridgeCommands.map((line) => line.replace(/veth[0-9a-f]{8}/, 'VETH'))).toEqual([
        '$ docker exec formation-worker bridge -d link show dev VETH',
        '$ docker exec formation-worker bridge link set dev VETH hairpin off',
        '$ docker exec formation-worker bridge link set dev VETH hairpin on',
      ]);
      expect(lines).toContain('command terminated with exit code 28');
    }
  });
});

const ENTRY_MATRIX = (['cluster', 'local', 'proxy'] as const).flatMap((entry, e) =>
  (['flannel-vxlan', 'flannel-host-gw', 'kindnet'] as const).map(
    (cni, c) => [entry, cni, FORMATION_PROXIES[(e + c) % 2]!] as const,
  ),
);

describe('case 6 through the load balancer', () => {
  it.each(ENTRY_MATRIX)('%s with %s and kube-proxy %s passes every check', (entry, cni, kubeProxy) => {
    const result = lessonCaseStory(6, { cni: cni as FormationCni, kubeProxy, entry: entry as LbEntry });
    expect(result.scenario).toBe(`lesson-case 6 ${entry}`);
    expect(result.checks.length).toBeGreaterThanOrEqual(5);
    const lines = passes(result);
    expect(lines).toContain('$ curl -s -m 2 http://172.18.255.200/sante');
    const logged = lines.filter((line) => /^signalements-7d9f-[ab]: /.test(line));
    expect(logged).toHaveLength(6);
    const fromClient = logged.filter((line) => line.includes(': 203.0.113.10 - - ['));
    expect(fromClient).toHaveLength(entry === 'cluster' ? 0 : 6);
  });

  it('Local: the health check answers 503 with localEndpoints 0 on the node without a pod, which leaves the LB', () => {
    const lines = passes(lessonCaseStory(6, { entry: 'local' }));
    const at = lines.findIndex((line) =>
      /^\$ curl -s -w ' %\{http_code\}\\n' http:\/\/172\.18\.0\.5:\d+\/$/.test(line),
    );
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at, at + 10)).toContain('\t"localEndpoints": 0,');
    expect(lines.slice(at, at + 10)).toContain('} 503');
    expect(lines.some((line) => line.includes('formation-worker3 {'))).toBe(false);
  });

  it('is the same story for a seed', () => {
    expect(transcript(lessonCaseStory(6, { entry: 'proxy', seed: 's1' }))).toEqual(
      transcript(lessonCaseStory(6, { entry: 'proxy', seed: 's1' })),
    );
  });

  it('the scenario table takes the entry as a fourth word, for case 6 only', () => {
    const entry = SCENARIOS.find((scenario) => scenario.name === 'lesson-case')!;
    const result = entry.run({ seed: undefined, args: ['6', 'kindnet', 'nftables', 'proxy'] });
    if ('usage' in result) throw new Error(result.usage);
    expect(result.scenario).toBe('lesson-case 6 proxy');
    expect(entry.run({ seed: undefined, args: ['5', 'kindnet', 'iptables', 'local'] })).toHaveProperty(
      'usage',
    );
    expect(entry.run({ seed: undefined, args: ['6', 'kindnet', 'iptables', 'dsr'] })).toHaveProperty('usage');
  });
});
