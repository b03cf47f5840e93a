// `nft monitor trace` on the kernel and on packetlab, the incident's way (scenarios/incident.ts) but for a UDP NodePort:
// a trace chain at priority -301 sets nftrace for the NodePort, an outside client sends to w1's NodePort, and the
// trace shows the packet through kube-proxy's iptables-nft rules (printed in nft syntax) to the pod on w2.
// Trace ids are renamed by order of appearance and IP ids not compared (compare.ts, normaliseTrace); the
// masquerade's --random-fully port reads as NAT (natPorts).

import { describe, expect, it } from 'vitest';
import { kubeProxyNatRules, type ServiceSpec } from '../../scenarios/kube-proxy-iptables.ts';
import { differential, outputOf } from './harness.ts';
import { lesson } from './topologies.ts';

const SERVICE: ServiceSpec = {
  servicePort: 'default/signalements:udp',
  protocol: 'udp',
  clusterIp: '10.96.40.12',
  port: 80,
  nodePort: 30080,
  endpoints: ['10.244.2.7:8000'],
  clusterCidr: '10.244.0.0/16',
};

const TRACE_RULESET = `table inet debug {
  chain trace {
    type filter hook prerouting priority -301;
    udp dport 30080 meta nftrace set 1
  }
}
`;

describe('differential: nft monitor trace', () => {
  it('a UDP NodePort call traced through the kube-proxy rules', async (ctx) => {
    const scenario = lesson('nft-trace', { pods: 'bridge', nodes: 'direct', client: true })
      .iptablesRestore('w1', kubeProxyNatRules([SERVICE]))
      .nft('w1', TRACE_RULESET, 'trace.nft')
      .monitor('w1', 'nft', 'monitor', 'trace')
      .udp({
        client: { ns: 'client', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '172.18.0.2',
        dstPort: 30080,
        count: 1,
        payload: 'trace',
      })
      .build();
    const result = await differential(ctx, scenario, { natPorts: [41234, 30080, 8000] });
    if (result === undefined) return;
    expect(outputOf(result.linux, 'w1: nft monitor trace')).toContain('dnat to 10.244.2.7:8000');
    for (const side of [result.linux, result.packetlab]) {
      const trace = outputOf(side, 'w1: nft monitor trace');
      expect(trace, side.side).toContain('meta mark set mark or 0x4000 (verdict continue)');
      expect(trace, side.side).toContain('masquerade fully-random (verdict accept)');
      expect(outputOf(side, 'client: udp send'), side.side).toContain(
        'reply from 172.18.0.2:30080 "trace 1"',
      );
    }
  });
});
