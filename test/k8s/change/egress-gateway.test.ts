// The egress gateway under a connection storm: api-client on formation-worker opens 800 connections in a second to
// the Internet API (203.0.113.10:443). With one address's NAT ports (narrowed to 512 here: 20000-20511), the node's
// own masquerade or a gateway with one egress address runs out and the rest time out; with two egress addresses on
// formation-worker2 every connection goes through, half from each. Also: the rules on the nodes, and a pod
// selected later or deleted while the gateway runs. Both kube-proxy modes (flannel VXLAN, kindnet).

import { describe, expect, it } from 'vitest';
import { loadGenerator } from '../../../src/app/load/generator.ts';
import { type Cluster, type CniName, cluster } from '../../../src/k8s/cluster.ts';
import {
  clusterEgressGateway,
  type EgressGatewayPolicy,
  gatewayRules,
  nodeRules,
} from '../../../src/k8s/egress-gateway.ts';
import { exec } from '../../../src/tools/exec.ts';
import { formatIpv4 } from '../../../src/wire/address.ts';
import { must } from './fixture.ts';

const PORTS = '20000-20511';

function policy(egressIps: readonly string[]): EgressGatewayPolicy {
  return {
    name: 'api',
    podSelector: { app: 'api-client' },
    destinationCidrs: ['203.0.113.0/24'],
    gatewayNode: 'formation-worker2',
    egressIps,
    ports: PORTS,
  };
}

interface Lab {
  readonly c: Cluster;
  /** Connections the API accepted, by the source address it saw. */
  readonly peers: Map<string, number>;
}

/** The cluster, api-client on formation-worker, the API listening, the egress addresses routed unchanged by the host. */
function lab(kubeProxy: 'iptables' | 'nftables', cni: CniName): Lab {
  const c = cluster({ name: 'formation', workers: 2, cni, kubeProxy, seed: 'egress' });
  must(c.createPod({ name: 'api-client', node: 'formation-worker', labels: { app: 'api-client' } }));
  must(c.createPod({ name: 'diag', node: 'formation-worker', ip: '10.244.1.5' }));
  c.settle();
  // Like a cloud's public egress addresses: the Docker host forwards them without its own masquerade.
  expect(exec(c.outside, 'iptables -t nat -I POSTROUTING 1 -s 172.18.0.100/31 -j RETURN').exitCode).toBe(0);
  const peers = new Map<string, number>();
  c.internet.tcp.listen(0, 443, (socket) => {
    const from = formatIpv4(socket.remoteAddr);
    peers.set(from, (peers.get(from) ?? 0) + 1);
  });
  return { c, peers };
}

/** 800 connects in one second from api-client, each closed at once; a connect not done in 3 s is curl's 28. */
function storm(c: Cluster) {
  const ns = c.podNamespace('default', 'api-client')!;
  const load = loadGenerator(ns, {
    target: '203.0.113.10:443',
    connect: true,
    rate: 800,
    durationMs: 1000,
    arrivals: 'uniform',
    timeoutMs: 3000,
  });
  c.sim.run(5e9);
  return load.report();
}

function insertFailed(c: Cluster, node: string): number {
  const stats = c.exec(`docker exec ${node} conntrack -S`).stdout;
  return Number(/insert_failed=(\d+)/.exec(stats)![1]);
}

describe('egress gateway rules', () => {
  it('marks on the pods’ nodes and spreads new connections over the addresses on the gateway', () => {
    expect(nodeRules(policy(['172.18.0.100']), ['10.244.1.2'])).toBe(
      [
        '*mangle',
        ':EGRESS-GW-MARK - [0:0]',
        '-A EGRESS-GW-MARK -s 10.244.1.2/32 -d 203.0.113.0/24 -m comment --comment "default/api" -j MARK --set-xmark 0x2000/0x2000',
        'COMMIT',
        '*nat',
        ':EGRESS-GW-SNAT - [0:0]',
        '-A EGRESS-GW-SNAT -m mark --mark 0x2000/0x2000 -m comment --comment "default/api" -j ACCEPT',
        'COMMIT',
        '',
      ].join('\n'),
    );
    expect(
      gatewayRules({ ...policy(['172.18.0.100', '172.18.0.101', '172.18.0.102']) }, ['10.244.1.2']),
    ).toBe(
      [
        '*nat',
        ':EGRESS-GW-SNAT - [0:0]',
        ':EGRESS-GW-POOL - [0:0]',
        '-A EGRESS-GW-SNAT -s 10.244.1.2/32 -d 203.0.113.0/24 -m comment --comment "default/api" -j EGRESS-GW-POOL',
        '-A EGRESS-GW-POOL -p tcp -m statistic --mode nth --every 3 --packet 0 -j SNAT --to-source 172.18.0.100:20000-20511',
        '-A EGRESS-GW-POOL -p tcp -m statistic --mode nth --every 2 --packet 0 -j SNAT --to-source 172.18.0.101:20000-20511',
        '-A EGRESS-GW-POOL -p tcp -j SNAT --to-source 172.18.0.102:20000-20511',
        '-A EGRESS-GW-POOL -p udp -m statistic --mode nth --every 3 --packet 0 -j SNAT --to-source 172.18.0.100:20000-20511',
        '-A EGRESS-GW-POOL -p udp -m statistic --mode nth --every 2 --packet 0 -j SNAT --to-source 172.18.0.101:20000-20511',
        '-A EGRESS-GW-POOL -p udp -j SNAT --to-source 172.18.0.102:20000-20511',
        '-A EGRESS-GW-POOL -j SNAT --to-source 172.18.0.100',
        'COMMIT',
        '',
      ].join('\n'),
    );
    const { ports: _none, ...fullRange } = policy(['172.18.0.100']);
    expect(gatewayRules(fullRange, [])).toBe(
      '*nat\n:EGRESS-GW-SNAT - [0:0]\n:EGRESS-GW-POOL - [0:0]\n-A EGRESS-GW-POOL -j SNAT --to-source 172.18.0.100\nCOMMIT\n',
    );
  });
});

describe.each([
  ['iptables', 'flannel-vxlan'],
  ['nftables', 'kindnet'],
] as const)('kube-proxy %s on %s: an egress gateway', (mode, cni) => {
  it('without it, the storm exhausts the node address’s ports (narrowed): connections time out, insert_failed', () => {
    const { c, peers } = lab(mode, cni);
    // The node's masquerade squeezed into the same 512 ports, ahead of the CNI's own.
    const squeeze = `docker exec formation-worker iptables -t nat -I POSTROUTING 1 -s 10.244.0.0/16 -d 203.0.113.0/24 -p tcp -j MASQUERADE --to-ports ${PORTS}`;
    expect(c.exec(squeeze).exitCode).toBe(0);
    const report = storm(c);
    expect(report.succeeded).toBe(512);
    expect(report.failures).toEqual({ 'curl 28': 288 });
    expect(insertFailed(c, 'formation-worker')).toBeGreaterThan(288);
    // The Docker host masquerades the node address in turn: the API sees the host.
    expect([...peers]).toEqual([['203.0.113.1', 512]]);
  });

  it('one egress address: the same exhaustion, now on the gateway', () => {
    const { c, peers } = lab(mode, cni);
    clusterEgressGateway(c, policy(['172.18.0.100']));
    c.settle();
    const report = storm(c);
    expect(report.succeeded).toBe(512);
    expect(report.failures).toEqual({ 'curl 28': 288 });
    expect(insertFailed(c, 'formation-worker2')).toBeGreaterThan(288);
    expect(insertFailed(c, 'formation-worker')).toBe(0);
    expect([...peers]).toEqual([['172.18.0.100', 512]]);
  });

  it('two egress addresses: every connection of the storm succeeds, half from each address', () => {
    const { c, peers } = lab(mode, cni);
    const gateway = clusterEgressGateway(c, policy(['172.18.0.100', '172.18.0.101']));
    c.settle();
    expect(gateway.syncs.every((s) => s.errors.length === 0)).toBe(true);
    const report = storm(c);
    expect(report.succeeded).toBe(800);
    expect(report.failures).toEqual({});
    expect(insertFailed(c, 'formation-worker2')).toBe(0);
    expect([...peers].sort()).toEqual([
      ['172.18.0.100', 400],
      ['172.18.0.101', 400],
    ]);
    // The gateway's conntrack: replies come back to the egress addresses, on ports of the range.
    const entries = c
      .exec('docker exec formation-worker2 conntrack -L -p tcp --dport 443')
      .stdout.split('\n')
      .filter((line) => line !== '');
    expect(entries).toHaveLength(800);
    for (const entry of entries) {
      const reply = /src=203\.0\.113\.10 dst=(172\.18\.0\.10[01]) sport=443 dport=(\d+)/.exec(entry);
      expect(reply, entry).not.toBeNull();
      expect(Number(reply![2])).toBeGreaterThanOrEqual(20000);
      expect(Number(reply![2])).toBeLessThanOrEqual(20511);
    }
  });

  it('the nodes’ rules and routes, a pod selected later, a deleted pod, and a pod left to its node’s masquerade', () => {
    const { c, peers } = lab(mode, cni);
    const gateway = clusterEgressGateway(c, policy(['172.18.0.100', '172.18.0.101']));
    c.settle();
    expect(c.exec('docker exec formation-worker ip rule').stdout).toContain(
      '100:\tfrom all fwmark 0x2000/0x2000 lookup 2000\n',
    );
    expect(c.exec('docker exec formation-worker ip route show table 2000').stdout).toBe(
      cni === 'flannel-vxlan'
        ? 'default via 10.244.2.0 dev flannel.1 onlink \nthrow 172.18.0.0/16 \n'
        : 'default via 172.18.0.4 dev eth0 \nthrow 172.18.0.0/16 \n',
    );
    expect(c.exec('docker exec formation-worker2 ip -br addr show dev eth0').stdout).toMatch(
      /172\.18\.0\.4\/16 172\.18\.0\.100\/16 172\.18\.0\.101\/16/,
    );
    const client = c.store.get('Pod', 'default', 'api-client')!;
    const marks = () =>
      c
        .exec('docker exec formation-control-plane iptables-save -t mangle')
        .stdout.split('\n')
        .filter((line) => line.startsWith('-A EGRESS-GW-MARK'))
        .map((line) => line.split(' ')[3]);
    expect(marks()).toEqual([`${client.status.podIP}/32`]);

    // A second client scheduled while the gateway runs: every node marks it at the next turn.
    must(
      c.createPod({ name: 'api-client-2', node: 'formation-control-plane', labels: { app: 'api-client' } }),
    );
    c.settle();
    const second = c.store.get('Pod', 'default', 'api-client-2')!;
    expect(marks()).toEqual([`${client.status.podIP}/32`, `${second.status.podIP}/32`].sort());
    const fromSecond = exec(c.podNamespace('default', 'api-client-2')!, 'nc -z -w 2 203.0.113.10 443');
    expect(fromSecond.exitCode).toBe(0);
    // The pool's first new connection: the first address.
    expect([...peers]).toEqual([['172.18.0.100', 1]]);

    // diag is not selected: its node masquerades it as before (the host then hides the node address).
    expect(exec(c.podNamespace('default', 'diag')!, 'nc -z -w 2 203.0.113.10 443').exitCode).toBe(0);
    expect(peers.get('203.0.113.1')).toBe(1);
    expect(c.exec('docker exec formation-worker conntrack -L -s 10.244.1.5 -p tcp').stdout).toContain(
      'dst=172.18.0.3 sport=443',
    );

    // A node joins and a selected pod starts there: the node gets its rule, table and marks; the API still sees
    // only the egress addresses. The gateway's chain was rewritten for the new source, so its nth rules are new
    // ones whose counters start again (iptables-restore replaces the matches): the first address again.
    c.addNode();
    must(c.createPod({ name: 'api-client-3', node: 'formation-worker3', labels: { app: 'api-client' } }));
    c.settle();
    expect(c.exec('docker exec formation-worker3 ip rule').stdout).toContain(
      'fwmark 0x2000/0x2000 lookup 2000',
    );
    expect(exec(c.podNamespace('default', 'api-client-3')!, 'nc -z -w 2 203.0.113.10 443').exitCode).toBe(0);
    expect(peers.get('172.18.0.100')).toBe(2);

    // Deleted: its rules go on the next turn.
    must(c.controlPlane!.deletePod('default', 'api-client-2', 0));
    c.settle();
    const third = c.store.get('Pod', 'default', 'api-client-3')!;
    expect(marks()).toEqual([`${client.status.podIP}/32`, `${third.status.podIP}/32`].sort());
    expect(gateway.syncs.every((s) => s.errors.length === 0)).toBe(true);
  });
});
