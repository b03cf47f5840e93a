// Calico's rule shape (test/fixtures/shapes/calico.iptables-save and calico.ipset) with kube-proxy on the kernel and
// on packetlab: a NodePort from outside to the workload on the node and the workload to the outside (MASQUERADE by
// felix's ipsets); the same trace lines, iptables and probe counters, ipset and conntrack listings
// (test/shapes/calico.ts).

import { describe, expect, it } from 'vitest';
import { CALICO_FIXED_PORTS, calicoScenario } from '../shapes/calico.ts';
import { differential, outputOf } from './harness.ts';

describe('differential: Calico (felix) rules and ipsets with kube-proxy', () => {
  it('NodePort to a workload, workload to the outside through cali-nat-outgoing', async (ctx) => {
    const result = await differential(ctx, calicoScenario(), { natPorts: CALICO_FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'client: tcp echo'), side.side).toMatch(/^accept 172\.18\.0\.2:\d+$/m);
  }, 60_000);
});
