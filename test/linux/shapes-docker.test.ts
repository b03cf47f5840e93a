// Docker's rule shape (test/fixtures/shapes/docker.iptables-save) with kube-proxy on the kernel and on packetlab:
// the same three calls (the published port, a NodePort past Docker's FORWARD DROP policy, pod to pod dropped by
// it), the same `nft monitor trace` lines, `iptables-save -c` counters and conntrack table (test/shapes/docker.ts).

import { describe, expect, it } from 'vitest';
import { DOCKER_FIXED_PORTS, dockerScenario } from '../shapes/docker.ts';
import { differential, outputOf } from './harness.ts';

describe('differential: Docker rules with kube-proxy', () => {
  it('published port, NodePort through FORWARD DROP, pod to pod dropped', async (ctx) => {
    const result = await differential(ctx, dockerScenario(), { natPorts: DOCKER_FIXED_PORTS });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'client: tcp send 0.0.0.0:41234'), side.side).toContain('reply "conteneur 1"');
      expect(outputOf(side, 'diag: tcp send'), side.side).toContain('timeout connect');
    }
  }, 60_000);
});
