// Istio's sidecar rules (test/fixtures/shapes/istio.iptables-save) in a pod, kube-proxy's nat rules on its node, on
// the kernel and on packetlab (test/shapes/istio.ts): the app's call to a ClusterIP taken by the sidecar's 15001,
// a call to the app by 15006, the health port left alone; the same listeners, trace lines, counters and conntrack
// entries.

import { describe, expect, it } from 'vitest';
import { istioScenario } from '../shapes/istio.ts';
import { differential, outputOf } from './harness.ts';

describe('differential: Istio sidecar redirection with kube-proxy', () => {
  it('outbound to 15001, inbound to 15006, 15021 as addressed', async (ctx) => {
    const result = await differential(ctx, istioScenario());
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'app: tcp echo 0.0.0.0:15001'), side.side).toMatch(
        /^accept 10\.244\.1\.5:41234$/m,
      );
      expect(outputOf(side, 'app: iptables-save'), side.side).toContain(
        '[1:60] -A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001',
      );
      expect(outputOf(side, 'app: nft monitor trace'), side.side).toContain(
        'ip nat ISTIO_REDIRECT rule meta l4proto tcp counter packets 0 bytes 0 redirect to :15001 (verdict accept)',
      );
    }
  }, 60_000);
});
