// The cluster plan of src/k8s (cluster-plan.ts) for each CNI, on real namespaces and on packetlab: a node's routes,
// links, the tunnel's details, FDB, neighbours, NAT rules, a pod's routes, a pod→pod ping across
// nodes and a ping to the Internet host through the masquerades, compared line by line.

import { describe, it } from 'vitest';
import type { Cni } from '../../src/k8s/cni/cni.ts';
import { FlannelHostGw, FlannelVxlan } from '../../src/k8s/cni/flannel.ts';
import { Kindnet } from '../../src/k8s/cni/kindnet.ts';
import { differential } from './harness.ts';
import type { Scenario } from './scenario.ts';
import { kindCluster } from './topologies.ts';

/**
 * `ip -d link show` is compared for the tunnel device only: the kernel gives a veth one TX/RX queue per possible CPU
 * (numtxqueues 2 on this machine, 1 on packetlab) and prints a bridge's running gc and forward-delay timers, which
 * packetlab prints as 0.00 (docs/deviations.md). Every device's `ip link show` line is compared.
 */
function cniScenario(name: string, cni: Cni): Scenario {
  const cluster = kindCluster(name, {
    cni,
    pods: [
      { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
      { name: 'remote', node: 'formation-worker2', address: '10.244.2.7' },
    ],
  });
  const b = cluster.builder;
  b.ping('diag', '10.244.2.7', { count: 2, interval: 0.2 });
  // Out through the node's masquerade (flanneld's or kindnetd's) and the Docker host's.
  b.ping('diag', '203.0.113.10', { count: 1 });
  for (const argv of [
    ['ip', 'route'],
    ['ip', '-br', 'link'],
    ['ip', 'link', 'show'],
    ['ip', '-d', 'link', 'show', 'type', 'vxlan'],
    ['bridge', 'fdb', 'show'],
    ['ip', 'neigh'],
    ['iptables-save', '-t', 'nat'],
  ])
    b.observe('w1', ...argv);
  b.observe('diag', 'ip', 'route');
  b.observe('diag', 'ip', 'link', 'show', 'eth0');
  b.observe('diag', 'ip', 'neigh');
  return cluster.build();
}

describe('differential: the cluster plan of each CNI', () => {
  for (const [label, make] of [
    ['flannel-vxlan', () => new FlannelVxlan()],
    ['flannel-host-gw', () => new FlannelHostGw()],
    ['kindnet', () => new Kindnet()],
  ] as const) {
    it(`${label}: a worker's routes, links, FDB and neighbours, a pod's routes, a ping across nodes`, async (ctx) => {
      await differential(ctx, cniScenario(`k8s-${label}`, make()));
    });
  }
});
