// Calico and Tailscale on one node, on the kernel and on packetlab (test/shapes/calico-tailscale.ts): felix's
// default mark mask overlapping tailscaled's byte (the masquerade is lost), then felix's mask moved to 0xff000000
// (disjoint, masqueraded); the same trace lines, counters and conntrack table.

import { describe, expect, it } from 'vitest';
import {
  CALICO_DISJOINT_FIXTURE,
  CALICO_TAILSCALE_FIXED_PORTS,
  calicoTailscaleScenario,
} from '../shapes/calico-tailscale.ts';
import { differential, outputOf } from './harness.ts';

describe('differential: Calico and Tailscale sharing the mark', () => {
  it('overlapping masks: the workload sees the tailnet peer', async (ctx) => {
    const scenario = calicoTailscaleScenario('shapes-calico-tailscale', 'calico.iptables-save');
    const result = await differential(ctx, scenario, { natPorts: CALICO_TAILSCALE_FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'pod: tcp echo'), side.side).toContain('accept 100.101.0.2:41234');
  }, 60_000);

  it('disjoint masks: the workload sees the node', async (ctx) => {
    const scenario = calicoTailscaleScenario('shapes-calico-tailscale-disjoint', CALICO_DISJOINT_FIXTURE);
    const result = await differential(ctx, scenario, { natPorts: CALICO_TAILSCALE_FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'pod: tcp echo'), side.side).toContain('accept 172.18.0.2:41234');
  }, 60_000);
});
