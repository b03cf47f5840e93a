// The lesson's cases 3, 4 and 6 on the kind cluster plan of each CNI (src/k8s cluster-plan) with kube-proxy's iptables
// rules as IptablesProxier renders them, on the kernel and on packetlab, as scenarios/lesson-cluster.ts tells them:
// diag (10.244.1.5 on formation-worker) calls the Service 10.96.40.12:80 and is answered from it while the pod on
// formation-worker2 sees diag's own address; the Docker host calls NodePort 30080 on formation-worker and the pod sees
// the node (kindnet: 172.18.0.3, flannel: flannel.1's 10.244.1.0); conntrack on formation-worker shows both.

import { describe, expect, it } from 'vitest';
import { FlannelVxlan } from '../../src/k8s/cni/flannel.ts';
import { Kindnet } from '../../src/k8s/cni/kindnet.ts';
import { IptablesProxier } from '../../src/k8s/kube-proxy/iptables/proxier.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import { endpoint, makeEndpointSlice, makeService, servicePort } from '../support/k8s-objects.ts';
import { differential, outputOf } from './harness.ts';
import { kindCluster } from './topologies.ts';

const VIEW: ProxierView = {
  nodeName: 'formation-worker',
  nodeIps: ['172.18.0.3'],
  clusterCidr: '10.244.0.0/16',
  masqueradeBit: 14,
  services: [
    makeService('default', 'signalements', (svc) => {
      svc.type = 'NodePort';
      svc.clusterIP = '10.96.40.12';
      svc.ports = [servicePort({ name: 'http', port: 80, targetPort: 8000, nodePort: 30080 })];
    }),
  ],
  endpointSlices: [
    makeEndpointSlice(
      'default',
      'signalements',
      1,
      [endpoint('10.244.2.7', { nodeName: 'formation-worker2' })],
      [{ name: 'http', port: 8000, protocol: 'TCP' }],
    ),
  ],
};

describe('differential: a Service and its NodePort on the kind cluster plan', () => {
  for (const [label, make, snat] of [
    ['kindnet', () => new Kindnet(), '172.18.0.3'],
    ['flannel-vxlan', () => new FlannelVxlan(), '10.244.1.0'],
  ] as const) {
    it(`${label}: ClusterIP from diag un-NATed on the way back, NodePort from outside SNATed to ${snat}`, async (ctx) => {
      const cluster = kindCluster(`lesson-svc-${label}`, {
        cni: make(),
        pods: [
          { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
          { name: 'remote', node: 'formation-worker2', address: '10.244.2.7' },
        ],
      });
      let builder = cluster.builder;
      for (const command of new IptablesProxier().sync('w1', VIEW, true))
        builder = builder.actCommand(command.ns, command.argv, command.stdin);
      builder
        .tcp({
          client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
          server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
          dst: '10.96.40.12',
          dstPort: 80,
          payload: 'GET /sante',
        })
        .tcp({
          client: { ns: 'outside', bind: '0.0.0.0', port: 41235 },
          server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
          dst: '172.18.0.3',
          dstPort: 30080,
          payload: 'nodeport',
        })
        .observe('w1', 'conntrack', '-L', '-p', 'tcp');
      const result = await differential(ctx, cluster.build(), { natPorts: [41234, 41235, 30080, 8000, 80] });
      if (result === undefined) return;
      for (const side of [result.linux, result.packetlab]) {
        expect(outputOf(side, 'diag: tcp send'), side.side).toContain('reply "GET /sante 1"');
        expect(outputOf(side, 'outside: tcp send'), side.side).toContain('reply "nodeport 1"');
        const table = outputOf(side, 'w1: conntrack -L');
        expect(table, side.side).toMatch(
          /src=10\.244\.1\.5 dst=10\.96\.40\.12 sport=41234 dport=80 src=10\.244\.2\.7 dst=10\.244\.1\.5 sport=8000 dport=41234 /,
        );
        expect(table, side.side).toMatch(
          new RegExp(
            `src=172\\.18\\.0\\.1 dst=172\\.18\\.0\\.3 sport=41235 dport=30080 src=10\\.244\\.2\\.7 dst=${snat.replaceAll('.', '\\.')} sport=8000 `,
          ),
        );
      }
    }, 60_000);
  }
});
