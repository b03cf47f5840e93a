// Calico's rule shape on a node (felix's iptables dataplane, IPv4, VXLAN pool, one workload endpoint
// cali1a2b3c4d5e6 for the pod 10.244.1.5 in namespace default): the fixture is what felix renders (felix/rules:
// static.go, dispatch.go, endpoints.go, nat.go, policy.go) with its default mark layout in IptablesMarkMask
// 0xffff0000 (accept 0x10000, pass 0x20000, scratch0 0x40000, scratch1 0x80000), and its ipsets (cali40*, `ipset
// save` of felix's IP sets). The node is its own small topology, wired as Calico's CNI plugin does it: a routed
// veth per pod, the pod's default route via 169.254.1.1 (a permanent neighbour here instead of proxy ARP). Order as
// on a node: felix's rules, kube-proxy's first sync (its jumps land above felix's), then felix's refresh putting its
// jumps back on top (ChainInsertMode insert). Calls: a NodePort from outside to the pod on this node, the pod to the
// outside (cali-nat-outgoing's MASQUERADE, by the ipsets). Both layouts' bits travel together on the NodePort
// packet (0x4000 + 0x10000): disjoint, so felix's clears (0x0/0xf0000, 0x0/0xe0000) never touch kube-proxy's bit.

import type { Scenario } from '../../src/harness/scenario.ts';
import {
  fixture,
  KUBE_MASQ_MARK,
  markProbe,
  nodeView,
  ScenarioBuilder,
  traceRuleset,
  withKubeProxy,
} from './shapes.ts';

export const CALICO_FIXTURE = 'calico.iptables-save';
export const CALICO_IPSETS = 'calico.ipset';
export const WORKLOAD_IFACE = 'cali1a2b3c4d5e6';

/** felix's default marks (config IptablesMarkMask 0xffff0000, allocated from the lowest bit). */
export const CALI_ACCEPT = 0x10000;
export const CALI_SCRATCH0 = 0x40000;

export const CALICO_FIXED_PORTS = [41234, 41235, 30080, 8000, 9000];

/** felix's refresh in insert mode: each of its hooks deleted and inserted again at the top of its chain. */
export const FELIX_REINSERT = `*filter
-D INPUT -m comment --comment "cali:Cz_u1IQiXIMmKD4c" -j cali-INPUT
-I INPUT 1 -m comment --comment "cali:Cz_u1IQiXIMmKD4c" -j cali-INPUT
-D FORWARD -m comment --comment "cali:wUHhoiAYhphO9Mso" -j cali-FORWARD
-I FORWARD 1 -m comment --comment "cali:wUHhoiAYhphO9Mso" -j cali-FORWARD
-D OUTPUT -m comment --comment "cali:tVnHkvAo15HuiPy0" -j cali-OUTPUT
-I OUTPUT 1 -m comment --comment "cali:tVnHkvAo15HuiPy0" -j cali-OUTPUT
COMMIT
*nat
-D PREROUTING -m comment --comment "cali:6gwbT8clXdHdC1b1" -j cali-PREROUTING
-I PREROUTING 1 -m comment --comment "cali:6gwbT8clXdHdC1b1" -j cali-PREROUTING
-D OUTPUT -m comment --comment "cali:tVnHkvAo15HuiPy0" -j cali-OUTPUT
-I OUTPUT 1 -m comment --comment "cali:tVnHkvAo15HuiPy0" -j cali-OUTPUT
-D POSTROUTING -m comment --comment "cali:O3lYWMrLQYEMJtB5" -j cali-POSTROUTING
-I POSTROUTING 1 -m comment --comment "cali:O3lYWMrLQYEMJtB5" -j cali-POSTROUTING
COMMIT
`;

/** The node w1 (172.18.0.2) with one Calico workload, the pod 10.244.1.5, and the outside client 172.18.0.100. */
export function calicoNode(name: string): ScenarioBuilder {
  const b = new ScenarioBuilder(name)
    .namespace('w1')
    .namespace('pod')
    .namespace('client')
    .segment('kind')
    .attach('kind', 'w1', 'eth0')
    .attach('kind', 'client', 'eth0')
    .addr('w1', '172.18.0.2/16', 'eth0')
    .addr('client', '172.18.0.100/16', 'eth0')
    .sysctl('w1', 'net.ipv4.ip_forward', 1)
    .veth('pod', 'eth0', 'w1', WORKLOAD_IFACE)
    .up('pod', 'eth0')
    .up('w1', WORKLOAD_IFACE)
    .addr('pod', '10.244.1.5/32', 'eth0')
    .route('pod', 'add', '169.254.1.1', 'dev', 'eth0', 'scope', 'link')
    .route('pod', 'add', 'default', 'via', '169.254.1.1', 'dev', 'eth0')
    .route('w1', 'add', '10.244.1.5', 'dev', WORKLOAD_IFACE, 'scope', 'link');
  return b
    .neigh(
      'pod',
      'add',
      '169.254.1.1',
      'lladdr',
      b.macOf('w1', WORKLOAD_IFACE),
      'dev',
      'eth0',
      'nud',
      'permanent',
    )
    .neigh(
      'w1',
      'add',
      '10.244.1.5',
      'lladdr',
      b.macOf('pod', 'eth0'),
      'dev',
      WORKLOAD_IFACE,
      'nud',
      'permanent',
    );
}

export function calicoScenario(name = 'shapes-calico'): Scenario {
  const b = calicoNode(name)
    .command('w1', ['ipset', 'restore'], fixture(CALICO_IPSETS))
    .iptablesRestore('w1', fixture(CALICO_FIXTURE))
    .nft('w1', traceRuleset([30080, 8000, 9000]), 'trace.nft')
    .nft(
      'w1',
      markProbe([{ mask: KUBE_MASQ_MARK }, { mask: CALI_ACCEPT }, { mask: CALI_SCRATCH0 }]),
      'probe.nft',
    )
    .monitor('w1', 'nft', 'monitor', 'trace');
  const view = nodeView([
    {
      name: 'signalements',
      clusterIP: '10.96.40.12',
      nodePort: 30080,
      endpoint: '10.244.1.5',
      node: 'formation-worker',
    },
  ]);
  withKubeProxy(b, 'w1', view);
  return b
    .actCommand('w1', ['iptables-restore', '--noflush'], FELIX_REINSERT)
    .tcp({
      client: { ns: 'client', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'pod', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.0.2',
      dstPort: 30080,
      payload: 'nodeport',
    })
    .tcp({
      client: { ns: 'pod', bind: '0.0.0.0', port: 41235 },
      server: { ns: 'client', bind: '0.0.0.0', port: 9000 },
      dst: '172.18.0.100',
      dstPort: 9000,
      payload: 'dehors',
    })
    .observe('w1', 'iptables-save', '-c')
    .observe('w1', 'nft', 'list', 'table', 'inet', 'probe')
    .observe('w1', 'ipset', 'list', 'cali40masq-ipam-pools')
    .observe('w1', 'conntrack', '-L')
    .build();
}
