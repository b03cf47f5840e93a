// The incident on the kind cluster plan (src/k8s cluster-plan, the CNI's own commands) with kube-proxy's iptables
// rules as IptablesProxier renders them, on the kernel and on packetlab: the Netbird-like table that sets the mark
// without a mask on formation-worker breaks its NodePort for a pod on formation-worker2 with kindnet (no masquerade:
// the pod answers the client directly), while with flannel-vxlan FLANNEL-POSTRTG's `! -s 10.244.0.0/16 -d
// 10.244.0.0/16 -j MASQUERADE` masquerades in kube-proxy's place and the NodePort keeps answering
// (scenarios/incident-cluster.ts tells both stories).

import { describe, expect, it } from 'vitest';
import { FlannelVxlan } from '../../src/k8s/cni/flannel.ts';
import { Kindnet } from '../../src/k8s/cni/kindnet.ts';
import { IptablesProxier } from '../../src/k8s/kube-proxy/iptables/proxier.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import { endpoint, makeEndpointSlice, makeService, servicePort } from '../support/k8s-objects.ts';
import { differential, outputOf } from './harness.ts';
import { kindCluster } from './topologies.ts';

const NETBIRD = `table inet netbird {
	chain forward-mark {
		type filter hook forward priority mangle; policy accept;
		meta mark set 0x00010000
	}
}
`;

/** formation-worker's view: NodePort 30080, its one endpoint on formation-worker2. */
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

/**
 * The incident's trace table (prerouting priority -301, nftrace for the NodePort) and an empty forward chain just
 * before Netbird's (priority -151 < mangle): its policy line shows the mark the packet carries into Netbird's chain.
 */
const DEBUG = `table inet debug {
	chain trace {
		type filter hook prerouting priority -301; policy accept;
		tcp dport 30080 meta nftrace set 1
	}
	chain before-netbird {
		type filter hook forward priority -151; policy accept;
	}
}
`;

function incident(
  name: string,
  cni: FlannelVxlan | Kindnet,
  call: { timeoutMs?: number; payload?: string },
  trace = false,
) {
  const cluster = kindCluster(name, {
    cni,
    pods: [{ name: 'remote', node: 'formation-worker2', address: '10.244.2.7' }],
  });
  let builder = cluster.builder.nft('w1', NETBIRD, 'netbird.nft');
  for (const command of new IptablesProxier().sync('w1', VIEW, true))
    builder = builder.actCommand(command.ns, command.argv, command.stdin);
  if (trace) builder = builder.nft('w1', DEBUG, 'debug.nft').monitor('w1', 'nft', 'monitor', 'trace');
  builder
    .capture('remote', 'eth0')
    .tcp({
      client: { ns: 'outside', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.0.3',
      dstPort: 30080,
      ...call,
    })
    .observe('w1', 'conntrack', '-L');
  return cluster.build();
}

describe('differential: the incident on the kind cluster plan', () => {
  it('kindnet: the mark wiped, no masquerade (the reply tuple keeps the client), the NodePort goes nowhere', async (ctx) => {
    // Shorter than the first SYN retransmission (1 s): one SYN, then the client gives up.
    const scenario = incident('incident-kindnet', new Kindnet(), { timeoutMs: 800 });
    const result = await differential(ctx, scenario, { natPorts: [41234, 30080, 8000] });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'outside: tcp send'), side.side).toContain('timeout connect');
      expect(outputOf(side, 'w1: conntrack -L'), side.side).toMatch(
        /src=172\.18\.0\.1 dst=172\.18\.0\.3 sport=41234 dport=30080 \[UNREPLIED\] src=10\.244\.2\.7 dst=172\.18\.0\.1 sport=8000 dport=41234 /,
      );
    }
  }, 60_000);

  it("flannel-vxlan: FLANNEL-POSTRTG masquerades in kube-proxy's place, the NodePort answers", async (ctx) => {
    const scenario = incident('incident-flannel', new FlannelVxlan(), { payload: 'signalement' });
    const result = await differential(ctx, scenario, { natPorts: [41234, 30080, 8000] });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'outside: tcp send'), side.side).toContain('reply "signalement 1"');
      expect(outputOf(side, 'w1: conntrack -L'), side.side).toMatch(
        /src=172\.18\.0\.1 dst=172\.18\.0\.3 sport=41234 dport=30080 src=10\.244\.2\.7 dst=10\.244\.1\.0 sport=8000/,
      );
    }
  }, 60_000);

  it("kindnet, traced: the packet enters the forward hook with 0x00004000 and leaves Netbird's chain with 0x00010000", async (ctx) => {
    const scenario = incident('incident-trace', new Kindnet(), { timeoutMs: 800 }, true);
    const result = await differential(ctx, scenario, { natPorts: [41234, 30080, 8000] });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const trace = outputOf(side, 'w1: nft monitor trace');
      expect(trace, side.side).toMatch(/inet debug before-netbird policy accept meta mark 0x00004000 \n/);
      expect(trace, side.side).toMatch(/inet netbird forward-mark policy accept meta mark 0x00010000 \n/);
    }
  }, 60_000);
});
