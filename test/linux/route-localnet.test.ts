// route_localnet on the kernel and on packetlab, as kube-proxy's localhost NodePorts need it: a process on the node
// sends to 127.0.0.1:NODEPORT, nat OUTPUT DNATs it to a pod on the other node, so its 127.0.0.1 source must leave
// through eth0 (__mkroute_output) before MASQUERADE rewrites it, and the reply, un-NATed in PREROUTING back to
// 127.0.0.1, must not be a martian on eth0 (ip_route_input_slow). Without the sysctl both fail; `ip route get`
// shows both checks directly.

import { describe, expect, it } from 'vitest';
import { IptablesProxier } from '../../src/k8s/kube-proxy/iptables/proxier.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import { endpoint, makeEndpointSlice, makeService, servicePort } from '../support/k8s-objects.ts';
import { differential } from './harness.ts';
import { lesson } from './topologies.ts';

const VIEW: ProxierView = {
  nodeName: 'formation-worker',
  nodeIps: ['172.18.0.2'],
  clusterCidr: '10.244.0.0/16',
  masqueradeBit: 14,
  services: [
    makeService('default', 'signalements', (svc) => {
      svc.type = 'NodePort';
      svc.clusterIP = '10.96.40.12';
      svc.ports = [
        servicePort({ name: 'udp', port: 80, protocol: 'UDP', targetPort: 8000, nodePort: 30080 }),
      ];
    }),
  ],
  endpointSlices: [
    makeEndpointSlice(
      'default',
      'signalements',
      1,
      [endpoint('10.244.2.7', { nodeName: 'formation-worker2' })],
      [{ name: 'udp', port: 8000, protocol: 'UDP' }],
    ),
  ],
};

function localhostNodePort(name: string, routeLocalnet: 0 | 1) {
  let builder = lesson(name, { pods: 'bridge', nodes: 'direct' }).sysctl(
    'w1',
    'net.ipv4.conf.all.route_localnet',
    routeLocalnet,
  );
  for (const command of new IptablesProxier().sync('w1', VIEW, true))
    builder = builder.actCommand(command.ns, command.argv, command.stdin);
  return builder
    .udp({
      client: { ns: 'w1', bind: '0.0.0.0', port: 41240 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '127.0.0.1',
      dstPort: 30080,
      count: 1,
      payload: 'localhost',
    })
    .observe('w1', 'ip', 'route', 'get', '10.244.2.7', 'from', '127.0.0.1')
    .observe('w1', 'ip', 'route', 'get', '127.0.0.1', 'from', '172.18.0.3', 'iif', 'eth0')
    .observe('w1', 'iptables-save', '-c', '-t', 'nat')
    .observe('w1', 'conntrack', '-L')
    .build();
}

const all = (observed: { traffic: readonly { label: string; stdout: string }[] }, label: string): string =>
  observed.traffic
    .filter((t) => t.label.startsWith(label))
    .map((t) => t.stdout)
    .join('');

describe('differential: route_localnet and localhost NodePorts', () => {
  it('with route_localnet=1 a localhost NodePort reaches a pod on the other node, masqueraded, and answers', async (ctx) => {
    // MASQUERADE --random-fully picks the source port at random on both sides.
    const result = await differential(ctx, localhostNodePort('localnet-on', 1), {
      natPorts: [41240, 8000, 30080],
    });
    if (result === undefined) return;
    expect(all(result.linux, 'remote: udp echo')).toMatch(/from 172\.18\.0\.2:\d+ "localhost 1"/);
    expect(all(result.linux, 'w1: udp send')).toContain('reply from 127.0.0.1:30080 "localhost 1"');
  });

  it('with route_localnet=0 the 127.0.0.1 source cannot leave and 127.0.0.1 arriving on eth0 is a martian', async (ctx) => {
    const result = await differential(ctx, localhostNodePort('localnet-off', 0), {
      natPorts: [41240, 8000, 30080],
    });
    if (result === undefined) return;
    expect(all(result.linux, 'w1: udp send')).not.toContain('reply');
  });
});
