// The cluster plan of src/k8s (cluster-plan.ts) for each CNI, on real namespaces and on packetlab: a node's routes,
// links, the tunnel's details, FDB, neighbours, NAT rules, a pod's routes, a pod→pod ping across
// nodes and a ping to the Internet host through the masquerades, compared line by line.

import { describe, it } from 'vitest';
import { cniPlan } from '../../scenarios/kernel-plans.ts';
import type { Cni } from '../../src/k8s/cni/cni.ts';
import { FlannelHostGw, FlannelVxlan } from '../../src/k8s/cni/flannel.ts';
import { Kindnet } from '../../src/k8s/cni/kindnet.ts';
import { differential } from './harness.ts';
import type { Scenario } from './scenario.ts';

/** The cluster plan with diag and remote: a ping across nodes, then one out through the masquerades (flanneld's or
 * kindnetd's, and the Docker host's); `packetlab verify lesson-case` runs the same plan (scenarios/kernel-plans.ts). */
function cniScenario(name: string, cni: Cni): Scenario {
  return cniPlan(name, cni, {
    pods: [
      { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
      { name: 'remote', node: 'formation-worker2', address: '10.244.2.7' },
    ],
    pings: [
      { from: 'diag', to: '10.244.2.7', options: { count: 2, interval: 0.2 } },
      { from: 'diag', to: '203.0.113.10', options: { count: 1 } },
    ],
  });
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
