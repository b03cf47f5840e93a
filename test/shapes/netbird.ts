// Netbird's rule shape on w1 (the agent v0.30+ with its nftables firewall, interface wt0, peers in 100.92.0.0/16,
// routing the service network 10.96.0.0/12 with masquerade): the fixture is the `table ip netbird` its ACL manager
// and router write (client/firewall/nftables: acl_linux.go, router_linux.go; marks from client/net: redirected
// 0x1bd01, masquerade 0x1bd11, masquerade-return 0x1bd12), loaded before kube-proxy. Netbird sets the whole mark
// (`meta mark set 0x0001bd01`, no mask) and tests it whole (`meta mark 0x0001bd01`); kube-proxy ors its 0x4000 bit
// into the same 32 bits between the two. Calls from a Netbird peer (100.92.0.2 behind wt0) to two NodePorts of w1:
// 30081, externalTrafficPolicy Local with its endpoint on w1 (kube-proxy does not mark it: the mark stays
// 0x1bd01, the forward filter sends it through the peer ACL, it is accepted), and 30080, policy Cluster (kube-proxy
// marks it: 0x1fd01 is not 0x1bd01, the redirected-traffic rule misses and `iifname "wt0" drop` drops it). The
// seeds' lesson: two healthy components, one shared mark.

import type { Scenario } from '../../src/harness/scenario.ts';
import {
  cluster,
  fixture,
  KUBE_MASQ_MARK,
  markProbe,
  nodeView,
  SIGNALEMENTS,
  traceRuleset,
  vpnPeer,
  withKubeProxy,
} from './shapes.ts';

export const NETBIRD_FIXTURE = 'netbird.nft';

/** client/net: the mark of traffic from wt0 to a local address (DNAT may turn it into forwarded traffic). */
export const NB_REDIRECTED = 0x1bd01;

export const NETBIRD_FIXED_PORTS = [41234, 41235, 30080, 30081, 8000];

export function netbirdScenario(name = 'shapes-netbird'): Scenario {
  const b = vpnPeer(cluster(name), {
    device: 'wt0',
    nodeAddr: '100.92.0.1/16',
    peerAddr: '100.92.0.2/16',
    gateway: '100.92.0.1',
  })
    .nft('w1', fixture(NETBIRD_FIXTURE), 'netbird.nft')
    .nft('w1', traceRuleset([30080, 30081]), 'trace.nft')
    .nft('w1', markProbe([{ mask: KUBE_MASQ_MARK }, { mask: 0xffffffff, value: NB_REDIRECTED }]), 'probe.nft')
    .monitor('w1', 'nft', 'monitor', 'trace');
  const view = nodeView([
    SIGNALEMENTS,
    {
      name: 'locale',
      clusterIP: '10.96.50.9',
      nodePort: 30081,
      endpoint: '10.244.1.9',
      node: 'formation-worker',
      local: true,
    },
  ]);
  withKubeProxy(b, 'w1', view);
  return b
    .tcp({
      client: { ns: 'peer', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'local', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.0.2',
      dstPort: 30081,
      payload: 'local',
    })
    .tcp({
      client: { ns: 'peer', bind: '0.0.0.0', port: 41235 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.0.2',
      dstPort: 30080,
      timeoutMs: 800,
    })
    .observe('w1', 'nft', 'list', 'table', 'ip', 'netbird')
    .observe('w1', 'nft', 'list', 'table', 'inet', 'probe')
    .observe('w1', 'iptables-save', '-c')
    .observe('w1', 'conntrack', '-L')
    .build();
}
