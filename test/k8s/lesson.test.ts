// lessonTopology and lessonServices: the lesson's hand-wired cluster reads as the CNI and flanneld would leave it.

import { describe, expect, it } from 'vitest';
import { type Lesson, lessonServices, lessonTopology } from '../../src/k8s/lesson.ts';
import { execOrThrow } from '../../src/tools/exec.ts';
import { formatMac } from '../../src/wire/address.ts';

const bridgePorts = (lesson: Lesson): string[] =>
  execOrThrow(lesson.w1, 'bridge -d link show')
    .split('\n')
    .filter((line) => line !== '');

const hostVeths = (lesson: Lesson): string[] =>
  execOrThrow(lesson.w1, 'ip -br link')
    .split('\n')
    .map((line) => line.split(/[ @]/)[0]!)
    .filter((name) => name.startsWith('veth'));

describe('lessonTopology', () => {
  it('bridge + VXLAN: both pods of w1 on cni0 with the pod MTU and hairpin on; hairpin: false leaves it off', () => {
    const ports = bridgePorts(lessonTopology());
    expect(ports.filter((line) => line.includes('mtu 1450 master cni0'))).toHaveLength(2);
    expect(ports.filter((line) => line.trimStart().startsWith('hairpin on'))).toHaveLength(2);
    const off = bridgePorts(lessonTopology({ hairpin: false }));
    expect(off.filter((line) => line.trimStart().startsWith('hairpin off'))).toHaveLength(2);
  });

  it("what flanneld installs on w1 for w2: a route through flannel.1, and w2's VTEP MAC sent to 172.18.0.3", () => {
    const lesson = lessonTopology();
    const peerMac = formatMac(lesson.w2.byName('flannel.1')!.mac);
    expect(execOrThrow(lesson.w1, 'ip route')).toContain('10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink');
    expect(execOrThrow(lesson.w1, 'bridge fdb show dev flannel.1')).toBe(
      `${peerMac} dst 172.18.0.3 self permanent\n`,
    );
    expect(execOrThrow(lesson.w1, 'ip neigh show dev flannel.1')).toBe(
      `10.244.2.0 lladdr ${peerMac} PERMANENT \n`,
    );
  });

  it('routed + direct: a host route per pod to its veth and the other node reached over eth0', () => {
    const lesson = lessonTopology({ pods: 'routed', nodes: 'direct' });
    const [diagVeth, localVeth] = hostVeths(lesson);
    expect(execOrThrow(lesson.w1, 'ip route')).toBe(
      `10.244.1.5 dev ${diagVeth} scope host \n10.244.1.9 dev ${localVeth} scope host \n` +
        '10.244.2.0/24 via 172.18.0.3 dev eth0 \n172.18.0.0/16 dev eth0 proto kernel scope link src 172.18.0.2 \n',
    );
    expect(execOrThrow(lesson.diag, 'ping -c 1 10.244.2.7')).toContain('1 received');
  });

  it('host veth names come from the seed: the same seed gives the same names, another seed others', () => {
    const names = hostVeths(lessonTopology({ seed: 'a' }));
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^veth[0-9a-f]{8}$/);
    expect(hostVeths(lessonTopology({ seed: 'a' }))).toEqual(names);
    expect(hostVeths(lessonTopology({ seed: 'b' }))).not.toEqual(names);
  });
});

describe('lessonServices', () => {
  it("loads the given kube-proxy rules and ip-masq-agent's on both nodes and adds the outside client", () => {
    const rules = '*nat\n:KUBE-SERVICES - [0:0]\n-A PREROUTING -j KUBE-SERVICES\nCOMMIT\n';
    const lesson = lessonServices({ kubeProxyRules: rules });
    for (const node of [lesson.w1, lesson.w2]) {
      const saved = execOrThrow(node, 'iptables-save -t nat');
      expect(saved).toContain('-A PREROUTING -j KUBE-SERVICES');
      expect(saved).toContain('-A IP-MASQ-AGENT -d 10.244.0.0/16');
    }
    expect(execOrThrow(lesson.client, 'ip -br addr show dev eth0')).toContain('172.18.0.100/16');
    expect(execOrThrow(lesson.client, 'ping -c 1 172.18.0.3')).toContain('1 received');
  });

  it('a ruleset iptables-restore refuses is an Error naming the node, and nothing is half-built silently', () => {
    expect(() => lessonServices({ kubeProxyRules: '*nat\n-A NOPE -j ACCEPT\nCOMMIT\n' })).toThrow(
      /^w1: iptables-restore/,
    );
  });
});
