// Tailscale's rule shape (test/fixtures/shapes/tailscale.iptables-save) with kube-proxy on the kernel and on
// packetlab: a tailnet peer to a pod through the subnet route (0x40000 in 0xff0000) and to a NodePort (0x4000); the
// same trace lines, iptables and probe counters, conntrack table (test/shapes/tailscale.ts).

import { describe, expect, it } from 'vitest';
import { TAILSCALE_FIXED_PORTS, tailscaleScenario } from '../shapes/tailscale.ts';
import { differential, outputOf } from './harness.ts';

describe('differential: Tailscale rules with kube-proxy', () => {
  it('subnet route to a pod and a NodePort from a tailnet peer', async (ctx) => {
    const result = await differential(ctx, tailscaleScenario(), { natPorts: TAILSCALE_FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'peer: tcp send 0.0.0.0:41234'), side.side).toContain('reply "subnet-route 1"');
  }, 60_000);
});
