// The lesson's cases 1 and 2 on the real kernel and on packetlab, each way the lesson wires them: pods by a bridge
// (cni0) or by routes to each veth, nodes by direct routes or by a VXLAN tunnel (flannel.1, UDP 8472).

import { describe, expect, it } from 'vitest';
import { lessonPlan } from '../../scenarios/kernel-plans.ts';
import { differential, outputOf } from './harness.ts';
import type { NodeWiring, PodWiring } from './topologies.ts';

describe.each<[PodWiring, NodeWiring]>([
  ['bridge', 'direct'],
  ['routed', 'direct'],
  ['bridge', 'vxlan'],
  ['routed', 'vxlan'],
])('differential: lesson cases 1 and 2, pods by %s, nodes by %s', (pods, nodes) => {
  it('case 1 (same node) and case 2 (other node): ping and a UDP exchange, frames on every hop', async (ctx) => {
    // The plan `packetlab verify lesson PODS NODES` runs (scenarios/kernel-plans.ts).
    const { scenario } = lessonPlan(pods, nodes);
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'diag: ping -n -c 2 -i 0.2 10.244.2.7')).toContain('icmp_seq=1 ttl=62');
    expect(outputOf(result.linux, 'remote: udp echo')).toContain('from 10.244.1.5:41234 "GET /sante 1"');
  });
});
