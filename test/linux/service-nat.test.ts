// NAT on the kernel and on packetlab: kube-proxy's iptables rules DNAT a ClusterIP to a pod on the other node and
// conntrack takes the reply back; ip-masq-agent's MASQUERADE sends pod egress out with the node's address,
// keeping the source port. Rule counters (`iptables-save -c`) and `conntrack -L` are compared too.

import { describe, expect, it } from 'vitest';
import { kubeProxyNatRules, type ServiceSpec } from '../../scenarios/kube-proxy-iptables.ts';
import { MASQ_AGENT_RULES } from '../../src/k8s/lesson.ts';
import { differential, outputOf } from './harness.ts';
import { lesson } from './topologies.ts';

/** A UDP Service with one endpoint, so the kernel's random endpoint choice cannot differ. */
const SERVICE: ServiceSpec = {
  servicePort: 'default/signalements:udp',
  protocol: 'udp',
  clusterIp: '10.96.40.12',
  port: 80,
  nodePort: undefined,
  endpoints: ['10.244.2.7:8000'],
  clusterCidr: '10.244.0.0/16',
};

describe('differential: Service NAT and egress masquerade', () => {
  it('ClusterIP DNAT to a pod on the other node, the reply un-NATed by conntrack', async (ctx) => {
    const scenario = lesson('service-dnat', { pods: 'bridge', nodes: 'vxlan' })
      .iptablesRestore('w1', kubeProxyNatRules([SERVICE]))
      .capture('diag', 'eth0')
      .capture('w1', 'eth0')
      .udp({
        client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '10.96.40.12',
        dstPort: 80,
        count: 2,
        payload: 'GET /sante',
      })
      .observe('w1', 'iptables-save', '-c', '-t', 'nat')
      .observe('w1', 'conntrack', '-L')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'diag: udp send')).toContain('reply from 10.96.40.12:80 "GET /sante 1"');
  });

  it('pod egress MASQUERADE: the outside client sees the node address and the same source port', async (ctx) => {
    const scenario = lesson('egress-masquerade', { pods: 'bridge', nodes: 'vxlan', client: true })
      .iptablesRestore('w1', MASQ_AGENT_RULES)
      .capture('client', 'eth0')
      .udp({
        client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'client', bind: '0.0.0.0', port: 9000 },
        dst: '172.18.0.100',
        count: 2,
      })
      .observe('w1', 'iptables-save', '-c', '-t', 'nat')
      .observe('w1', 'conntrack', '-L')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'client: udp echo')).toContain('from 172.18.0.2:41234');
  });
});
