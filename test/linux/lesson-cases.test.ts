// The lesson's cases 1 and 2 on the real kernel and on packetlab, each way the lesson wires them: pods by a bridge
// (cni0) or by routes to each veth, nodes by direct routes or by a VXLAN tunnel (flannel.1, UDP 8472).

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { lesson, type NodeWiring, type PodWiring } from './topologies.ts';

describe.each<[PodWiring, NodeWiring]>([
  ['bridge', 'direct'],
  ['routed', 'direct'],
  ['bridge', 'vxlan'],
  ['routed', 'vxlan'],
])('differential: lesson cases 1 and 2, pods by %s, nodes by %s', (pods, nodes) => {
  it('case 1 (same node) and case 2 (other node): ping and a UDP exchange, frames on every hop', async (ctx) => {
    const b = lesson(`lesson-${pods}-${nodes}`, { pods, nodes })
      .capture('diag', 'eth0')
      .capture('w1', 'eth0')
      .capture('remote', 'eth0');
    if (pods === 'bridge') b.capture('w1', 'cni0');
    if (nodes === 'vxlan') b.capture('w1', 'flannel.1');
    if (pods === 'bridge') b.observe('w1', 'bridge', 'fdb', 'show', 'br', 'cni0');
    if (nodes === 'vxlan') b.observe('w1', 'bridge', 'fdb', 'show', 'dev', 'flannel.1');
    const nodeDevices = [
      'eth0',
      ...(pods === 'bridge' ? ['cni0'] : []),
      ...(nodes === 'vxlan' ? ['flannel.1'] : []),
    ];
    for (const dev of nodeDevices) b.observe('w1', 'ip', '-s', 'link', 'show', 'dev', dev);
    const scenario = b
      .ping('diag', '10.244.1.9', { count: 2, interval: 0.2 })
      .ping('diag', '10.244.2.7', { count: 2, interval: 0.2 })
      .udp({
        client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '10.244.2.7',
        count: 2,
        payload: 'GET /sante',
      })
      .observe('w1', 'ip', 'route')
      .observe('w1', 'ip', 'neigh')
      .observe('diag', 'ip', 'neigh')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'diag: ping -n -c 2 -i 0.2 10.244.2.7')).toContain('icmp_seq=1 ttl=62');
    expect(outputOf(result.linux, 'remote: udp echo')).toContain('from 10.244.1.5:41234 "GET /sante 1"');
  });
});
