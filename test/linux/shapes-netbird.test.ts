// Netbird's rule shape (test/fixtures/shapes/netbird.nft) with kube-proxy on the kernel and on packetlab: a Netbird
// peer to a NodePort kube-proxy does not mark (accepted by the peer ACL) and to one it marks (0x4000 or'ed into
// netbird's 0x1bd01: its exact mark test misses and the packet is dropped); the same trace lines, nft and iptables
// counters, conntrack table (test/shapes/netbird.ts).

import { describe, expect, it } from 'vitest';
import { NETBIRD_FIXED_PORTS, netbirdScenario } from '../shapes/netbird.ts';
import { differential, outputOf } from './harness.ts';

describe('differential: Netbird nftables rules with kube-proxy', () => {
  it('the shared mark: the unmarked NodePort passes, the one kube-proxy marks is dropped', async (ctx) => {
    const result = await differential(ctx, netbirdScenario(), { natPorts: NETBIRD_FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'peer: tcp send 0.0.0.0:41234'), side.side).toContain('reply "local 1"');
      expect(outputOf(side, 'peer: tcp send 0.0.0.0:41235'), side.side).toContain('timeout connect');
      expect(outputOf(side, 'w1: nft monitor trace'), side.side).toContain('meta mark 0x0001fd01');
    }
  }, 60_000);
});
