// Flannel's rule shape (test/fixtures/shapes/flannel.iptables-save) with kube-proxy's nftables mode on the kernel and
// on packetlab: a NodePort from outside, a pod to a ClusterIP, a pod to the outside; the same trace lines, iptables
// and probe counters, conntrack table (test/shapes/flannel.ts).

import { describe, expect, it } from 'vitest';
import { FLANNEL_FIXED_PORTS, flannelScenario } from '../shapes/flannel.ts';
import { differential, outputOf } from './harness.ts';

describe('differential: Flannel rules with kube-proxy (nftables mode)', () => {
  it('NodePort, pod to ClusterIP, pod to the outside', async (ctx) => {
    const result = await differential(ctx, flannelScenario(), { natPorts: FLANNEL_FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'client: tcp echo'), side.side).toMatch(/^accept 172\.18\.0\.2:\d+$/m);
  }, 60_000);

  it('flannel loaded before kube-proxy: kube-proxy masquerades the NodePort first', async (ctx) => {
    const result = await differential(ctx, flannelScenario('shapes-flannel-first', true), {
      natPorts: FLANNEL_FIXED_PORTS,
    });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'w1: iptables-save -c'), side.side).toContain(
        '[0:0] -A FLANNEL-POSTRTG -m mark --mark 0x4000/0x4000',
      );
  }, 60_000);
});
