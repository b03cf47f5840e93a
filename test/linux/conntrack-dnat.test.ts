// `conntrack -L` after UDP exchanges through a Service DNAT, on the kernel and on packetlab: two pods of w1 call a
// ClusterIP whose endpoint is the pod on w2, a moment passes, and both nodes' tables are listed (w2 has no rule
// that loads conntrack in its namespace). Line order is normalised (hash-table order) and the remaining timeouts
// compared within ±3 s (compare.ts).

import { describe, expect, it } from 'vitest';
import { kubeProxyNatRules, type ServiceSpec } from '../../scenarios/kube-proxy-iptables.ts';
import { differential, outputOf } from './harness.ts';
import { lesson } from './topologies.ts';

const SERVICE: ServiceSpec = {
  servicePort: 'kube-system/dns:udp',
  protocol: 'udp',
  clusterIp: '10.96.0.10',
  port: 53,
  nodePort: undefined,
  endpoints: ['10.244.2.7:5353'],
  clusterCidr: '10.244.0.0/16',
};

describe('differential: conntrack -L after UDP through DNAT', () => {
  it('two flows to a ClusterIP, listed a second later', async (ctx) => {
    const scenario = lesson('conntrack-dnat', { pods: 'bridge', nodes: 'direct' })
      .iptablesRestore('w1', kubeProxyNatRules([SERVICE]))
      .udp({
        client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 5353 },
        dst: '10.96.0.10',
        dstPort: 53,
        count: 3,
        payload: 'query',
      })
      .udp({
        client: { ns: 'local', bind: '0.0.0.0', port: 41235 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 5353 },
        dst: '10.96.0.10',
        dstPort: 53,
        count: 1,
        payload: 'query',
      })
      .wait(1000)
      .observe('w1', 'conntrack', '-L')
      .observe('w1', 'conntrack', '-L', '-p', 'udp', '--orig-src', '10.244.1.9')
      .observe('w2', 'conntrack', '-L')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'w1: conntrack -L')).toContain('2 flow entries have been shown');
    expect(outputOf(result.linux, 'w1: conntrack -L -p udp')).toContain('1 flow entries have been shown');
    expect(outputOf(result.linux, 'w2: conntrack -L')).toContain('0 flow entries have been shown');
  });
});
