// Tailscale's rule shape on w1 acting as a subnet router for the pod network: the fixture is what tailscaled's
// iptables runner (util/linuxfw/iptables_runner.go: AddChains, AddHooks, AddBase, AddSNATRule, AddLoopbackRule)
// leaves, with its default marks (subnet-route mark 0x40000 in the mask 0xff0000), loaded before kube-proxy. The
// tailnet peer is a namespace behind `tailscale0` (100.101.0.2; w1 is 100.101.0.1). Calls: the peer to a pod on w2
// through the subnet route (ts-forward marks 0x40000, ts-postrouting masquerades), and the peer to a NodePort
// (kube-proxy's 0x4000, KUBE-FORWARD accepts before ts-forward, KUBE-POSTROUTING masquerades). The two layouts are
// disjoint (0x4000 is outside 0xff0000): neither component ever reads or clears the other's bit.

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

export const TAILSCALE_FIXTURE = 'tailscale.iptables-save';

/** tailscaled's default marks (linuxfw PacketMarks): the subnet-route mark and the mask of its byte. */
export const TS_SUBNET_ROUTE_MARK = 0x40000;
export const TS_FWMARK_MASK = 0xff0000;

export const TAILSCALE_FIXED_PORTS = [41234, 41235, 30080, 8000];

export function tailscaleScenario(name = 'shapes-tailscale'): Scenario {
  const b = vpnPeer(cluster(name), {
    device: 'tailscale0',
    nodeAddr: '100.101.0.1/24',
    peerAddr: '100.101.0.2/24',
    gateway: '100.101.0.1',
  })
    .iptablesRestore('w1', fixture(TAILSCALE_FIXTURE))
    .nft('w1', traceRuleset([30080, 8000]), 'trace.nft')
    .nft(
      'w1',
      markProbe([{ mask: KUBE_MASQ_MARK }, { mask: TS_FWMARK_MASK, value: TS_SUBNET_ROUTE_MARK }]),
      'probe.nft',
    )
    .monitor('w1', 'nft', 'monitor', 'trace');
  withKubeProxy(b, 'w1', nodeView([SIGNALEMENTS]));
  return b
    .tcp({
      client: { ns: 'peer', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '10.244.2.7',
      dstPort: 8000,
      payload: 'subnet-route',
    })
    .tcp({
      client: { ns: 'peer', bind: '0.0.0.0', port: 41235 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.0.2',
      dstPort: 30080,
      payload: 'nodeport',
    })
    .observe('w1', 'iptables-save', '-c')
    .observe('w1', 'nft', 'list', 'table', 'inet', 'probe')
    .observe('w1', 'conntrack', '-L')
    .build();
}
