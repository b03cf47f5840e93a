import { describe, expect, it } from 'vitest';
import { clusterPlan } from '../../../src/k8s/cluster-plan.ts';
import type { Cni } from '../../../src/k8s/cni/cni.ts';
import { FlannelHostGw, FlannelVxlan } from '../../../src/k8s/cni/flannel.ts';
import { Kindnet } from '../../../src/k8s/cni/kindnet.ts';
import { runPlan } from '../../../src/k8s/run-plan.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';

const PODS = [
  { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
  { name: 'local', node: 'formation-worker', address: '10.244.1.9' },
  { name: 'remote', node: 'formation-worker2', address: '10.244.2.7' },
];

function build(makeCni: () => Cni, options: { configuredPodMtu?: number } = {}) {
  const cni = makeCni();
  const plan = clusterPlan({ name: 'formation', workers: 2, cni, seed: 'cni-test', pods: PODS, ...options });
  const { runner, results } = runPlan(new Simulation({ seed: 'cni-test' }), plan);
  const failed = results.flatMap((result, i) =>
    result.exitCode === 0 ? [] : [`${JSON.stringify(plan.commands[i])}: ${result.stderr}`],
  );
  const run = (ns: string, line: string): string => {
    const result = exec(runner.nsOf(ns), line);
    expect(result.stderr).toBe('');
    return result.stdout;
  };
  const [controlPlane, worker, worker2] = plan.nodes;
  const [diag, local, remote] = plan.sandboxes;
  return {
    plan,
    runner,
    failed,
    run,
    controlPlane: controlPlane!,
    worker: worker!,
    worker2: worker2!,
    diag: diag!,
    local: local!,
    remote: remote!,
  };
}

/** `ip -br link`'s line: the name padded to 16, the state to 14, the MAC, the flags. */
function brLink(name: string, state: string, mac: string, flags: string): string {
  return `${name.padEnd(16)} ${state.padEnd(14)} ${mac} <${flags}> `;
}

const UP = 'BROADCAST,MULTICAST,UP,LOWER_UP';

describe('kind nodes and pod CIDRs', () => {
  it('control plane, then workers: 172.18.0.2, .3, .4 with Docker MACs; 10.244.0.0/24, .1.0/24, .2.0/24', () => {
    const { plan, failed } = build(() => new Kindnet());
    expect(failed).toEqual([]);
    expect(plan.nodes.map((node) => [node.name, node.address, node.podCidr])).toEqual([
      ['formation-control-plane', '172.18.0.2', '10.244.0.0/24'],
      ['formation-worker', '172.18.0.3', '10.244.1.0/24'],
      ['formation-worker2', '172.18.0.4', '10.244.2.0/24'],
    ]);
    expect(plan.segments[0]!.ports.map((port) => port.mac)).toEqual([
      '02:42:ac:12:00:01',
      '02:42:ac:12:00:02',
      '02:42:ac:12:00:03',
      '02:42:ac:12:00:04',
    ]);
    expect(plan.sandboxes.map((sandbox) => sandbox.hostVeth)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^veth[0-9a-f]{8}$/)]),
    );
  });
});

describe('flannel-vxlan', () => {
  const cni = () => new FlannelVxlan();
  it('a worker routes its own CIDR to cni0 and each peer CIDR via its VTEP address onlink on flannel.1', () => {
    const { failed, run } = build(cni);
    expect(failed).toEqual([]);
    expect(run('formation-worker', 'ip route')).toBe(
      [
        'default via 172.18.0.1 dev eth0 ',
        '10.244.0.0/24 via 10.244.0.0 dev flannel.1 onlink ',
        '10.244.1.0/24 dev cni0 proto kernel scope link src 10.244.1.1 ',
        '10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink ',
        '172.18.0.0/16 dev eth0 proto kernel scope link src 172.18.0.3 ',
        '',
      ].join('\n'),
    );
  });

  it('devices: eth0, flannel.1 with the VtepMAC, cni0, one veth per pod (MTU 1450)', () => {
    const { run, worker, diag, local } = build(cni);
    expect(run('formation-worker', 'ip -br link')).toBe(
      [
        brLink('lo', 'UNKNOWN', '00:00:00:00:00:00', 'LOOPBACK,UP,LOWER_UP'),
        brLink('eth0@if5', 'UP', '02:42:ac:12:00:03', UP),
        brLink('flannel.1', 'UNKNOWN', worker.tunnelMac, UP),
        brLink('cni0', 'UP', worker.bridgeMac, UP),
        brLink(`${diag.hostVeth}@if2`, 'UP', diag.hostMac, UP),
        brLink(`${local.hostVeth}@if2`, 'UP', local.hostMac, UP),
        '',
      ].join('\n'),
    );
    const details = run('formation-worker', 'ip -d link show flannel.1');
    expect(details).toContain(`mtu 1450 qdisc noqueue state UNKNOWN`);
    expect(details).toContain(
      'vxlan id 1 local 172.18.0.3 dev eth0 srcport 0 0 dstport 8472 nolearning ttl auto ageing 300 udpcsum',
    );
    expect(run('formation-worker', `ip -d link show ${diag.hostVeth}`)).toContain('hairpin on');
    expect(run('formation-worker', 'ip -d link show cni0')).toMatch(
      /mtu 1450 .*\n.*\n\s+bridge forward_delay/,
    );
  });

  it('a hand-set "mtu" in the CNI configuration wins over FLANNEL_MTU: pods and cni0 at 1500, flannel.1 still 1450', () => {
    const { run, failed } = build(cni, { configuredPodMtu: 1500 });
    expect(failed).toEqual([]);
    expect(run('diag', 'ip link show eth0')).toContain(' mtu 1500 ');
    expect(run('formation-worker', 'ip link show cni0')).toContain(' mtu 1500 ');
    expect(run('formation-worker', 'ip link show flannel.1')).toContain(' mtu 1450 ');
  });

  it("flanneld's FDB entry and permanent neighbour per peer; the pod routes the pod network and default via .1", () => {
    const { run, controlPlane, worker2 } = build(cni);
    const fdb = run('formation-worker', 'bridge fdb show dev flannel.1');
    expect(fdb).toBe(
      `${worker2.tunnelMac} dst 172.18.0.4 self permanent\n${controlPlane.tunnelMac} dst 172.18.0.2 self permanent\n`,
    );
    expect(run('formation-worker', 'ip neigh show dev flannel.1')).toBe(
      `10.244.0.0 lladdr ${controlPlane.tunnelMac} PERMANENT \n10.244.2.0 lladdr ${worker2.tunnelMac} PERMANENT \n`,
    );
    expect(run('diag', 'ip route')).toBe(
      'default via 10.244.1.1 dev eth0 \n10.244.0.0/16 via 10.244.1.1 dev eth0 \n10.244.1.0/24 dev eth0 proto kernel scope link src 10.244.1.5 \n',
    );
  });

  it('pods reach each other across nodes and the Internet host through the masquerade', () => {
    const { run } = build(cni);
    expect(run('diag', 'ping -c 1 10.244.2.7')).toContain('1 received');
    expect(run('diag', 'ping -c 1 203.0.113.10')).toContain('1 received');
    expect(run('formation-worker', 'iptables-save -t nat')).toContain(
      '-A FLANNEL-POSTRTG -s 10.244.0.0/16 ! -d 224.0.0.0/4 -m comment --comment "flanneld masq" -j MASQUERADE --random-fully',
    );
  });

  it('a departed peer leaves no route, neighbour or FDB entry', () => {
    const sim = new Simulation({ seed: 'cni-test' });
    const plan = clusterPlan({ name: 'formation', workers: 2, cni: new FlannelVxlan(), seed: 'cni-test' });
    const { runner } = runPlan(sim, plan);
    const [, worker, worker2] = plan.nodes;
    runner.mustRun((new FlannelVxlan() as Cni).peerRemoved(worker!, worker2!, plan.network));
    const ns = runner.nsOf('formation-worker');
    expect(exec(ns, 'ip route').stdout).not.toContain('10.244.2.0/24');
    expect(exec(ns, 'ip neigh').stdout).not.toContain('10.244.2.0');
    expect(exec(ns, 'bridge fdb show dev flannel.1').stdout).not.toContain('172.18.0.4');
    expect(exec(ns, 'bridge fdb show dev flannel.1').stdout).toContain('172.18.0.2');
  });
});

describe('flannel-host-gw', () => {
  it('routes each peer CIDR via the peer node on eth0; no tunnel device; pods at MTU 1500', () => {
    const { failed, run, worker, diag, local } = build(() => new FlannelHostGw());
    expect(failed).toEqual([]);
    expect(run('formation-worker', 'ip route')).toBe(
      [
        'default via 172.18.0.1 dev eth0 ',
        '10.244.0.0/24 via 172.18.0.2 dev eth0 ',
        '10.244.1.0/24 dev cni0 proto kernel scope link src 10.244.1.1 ',
        '10.244.2.0/24 via 172.18.0.4 dev eth0 ',
        '172.18.0.0/16 dev eth0 proto kernel scope link src 172.18.0.3 ',
        '',
      ].join('\n'),
    );
    expect(run('formation-worker', 'ip -br link')).toBe(
      [
        brLink('lo', 'UNKNOWN', '00:00:00:00:00:00', 'LOOPBACK,UP,LOWER_UP'),
        brLink('eth0@if5', 'UP', '02:42:ac:12:00:03', UP),
        brLink('cni0', 'UP', worker.bridgeMac, UP),
        brLink(`${diag.hostVeth}@if2`, 'UP', diag.hostMac, UP),
        brLink(`${local.hostVeth}@if2`, 'UP', local.hostMac, UP),
        '',
      ].join('\n'),
    );
    expect(run('diag', 'ip link show eth0')).toContain('mtu 1500');
    expect(run('diag', 'ping -c 1 10.244.2.7')).toContain('1 received');
  });
});

describe('kindnet', () => {
  it('a /32 host route per local pod and a route via each other node; no bridge', () => {
    const { failed, run, diag, local } = build(() => new Kindnet());
    expect(failed).toEqual([]);
    expect(run('formation-worker', 'ip route')).toBe(
      [
        'default via 172.18.0.1 dev eth0 ',
        '10.244.0.0/24 via 172.18.0.2 dev eth0 ',
        `10.244.1.5 dev ${diag.hostVeth} scope host `,
        `10.244.1.9 dev ${local.hostVeth} scope host `,
        '10.244.2.0/24 via 172.18.0.4 dev eth0 ',
        '172.18.0.0/16 dev eth0 proto kernel scope link src 172.18.0.3 ',
        '',
      ].join('\n'),
    );
    expect(run('formation-worker', 'ip -br link')).toBe(
      [
        brLink('lo', 'UNKNOWN', '00:00:00:00:00:00', 'LOOPBACK,UP,LOWER_UP'),
        brLink('eth0@if5', 'UP', '02:42:ac:12:00:03', UP),
        brLink(`${diag.hostVeth}@if2`, 'UP', diag.hostMac, UP),
        brLink(`${local.hostVeth}@if2`, 'UP', local.hostMac, UP),
        '',
      ].join('\n'),
    );
    expect(run('formation-worker', `ip -br addr show ${diag.hostVeth}`)).toContain('10.244.1.1/32');
    expect(run('formation-worker', 'bridge fdb show')).not.toContain('master');
  });

  it("ptp's pod routes: default and the subnet via the gateway, the gateway on the link, all from the pod's address", () => {
    const { run } = build(() => new Kindnet());
    expect(run('diag', 'ip route')).toBe(
      'default via 10.244.1.1 dev eth0 \n10.244.1.0/24 via 10.244.1.1 dev eth0 src 10.244.1.5 \n10.244.1.1 dev eth0 scope link src 10.244.1.5 \n',
    );
    expect(run('diag', 'ping -c 1 10.244.1.9')).toContain('1 received');
    expect(run('diag', 'ping -c 1 10.244.2.7')).toContain('1 received');
  });

  it("kindnetd's masquerade: pod-network destinations return, the rest is masqueraded (the Internet host answers)", () => {
    const { run, runner } = build(() => new Kindnet());
    expect(run('formation-worker', 'iptables-save -t nat')).toContain(
      [
        ':KIND-MASQ-AGENT - [0:0]',
        '-A POSTROUTING -m comment --comment "kind-masq-agent: ensure nat POSTROUTING directs all non-LOCAL destination traffic to our custom KIND-MASQ-AGENT chain" -m addrtype ! --dst-type LOCAL -j KIND-MASQ-AGENT',
        '-A KIND-MASQ-AGENT -d 10.244.0.0/16 -m comment --comment "kind-masq-agent: local traffic is not subject to MASQUERADE" -j RETURN',
        '-A KIND-MASQ-AGENT -m comment --comment "ip-masq-agent: outbound traffic is subject to MASQUERADE (must be last in chain)" -j MASQUERADE',
      ].join('\n'),
    );
    expect(run('diag', 'ping -c 1 203.0.113.10')).toContain('1 received');
    const conntrack = exec(runner.nsOf('formation-worker'), 'conntrack -L -p icmp');
    expect(conntrack.stdout).toContain('src=203.0.113.10 dst=172.18.0.3');
  });

  it('CNI DEL takes the veth, its address and its host route', () => {
    const sim = new Simulation({ seed: 'cni-test' });
    const cni: Cni = new Kindnet();
    const plan = clusterPlan({ name: 'formation', workers: 2, cni, seed: 'cni-test', pods: PODS });
    const { runner } = runPlan(sim, plan);
    runner.mustRun(cni.podRemoved(plan.nodes[1]!, plan.sandboxes[0]!, plan.network));
    const route = exec(runner.nsOf('formation-worker'), 'ip route').stdout;
    expect(route).not.toContain('10.244.1.5');
    expect(route).toContain('10.244.1.9');
    expect(runner.nsOf('formation-worker').byName(plan.sandboxes[0]!.hostVeth)).toBeUndefined();
  });
});
