// Cilium's iptables-mode chains (test/fixtures/shapes/cilium.iptables-save) with kube-proxy's nat rules on one node,
// on the kernel and on packetlab (test/shapes/cilium.ts): a pod to the outside (CILIUM_FORWARD, CILIUM_POST_nat's
// masquerade), the host to a ClusterIP (kube-proxy's 0x4000 and Cilium's 0xc00/0xf00 "from host" side by side);
// the same `nft monitor trace` lines (with the mark at each chain), counters in every CILIUM_* chain, mark probe
// counters and conntrack entries.

import { describe, expect, it } from 'vitest';
import { CILIUM_FIXED_PORTS, ciliumScenario } from '../shapes/cilium.ts';
import { differential, outputOf } from './harness.ts';

describe('differential: Cilium iptables mode with kube-proxy', () => {
  it('pod to the outside, host to a ClusterIP: counters, mark bits, conntrack', async (ctx) => {
    const result = await differential(ctx, ciliumScenario(), { natPorts: CILIUM_FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'ext: tcp echo'), side.side).toMatch(/^accept 172\.18\.0\.2:41234$/m);
      expect(outputOf(side, 'w1: nft list table inet probe'), side.side).toContain(
        'meta mark & 0x00004000 == 0x00004000 counter packets 1 bytes 60',
      );
      // The trace: the ClusterIP call's SYN leaves the filter table with both components' bits.
      expect(outputOf(side, 'w1: nft monitor trace'), side.side).toContain(
        'ip filter OUTPUT policy accept meta mark 0x00004c00',
      );
    }
  }, 60_000);
});
