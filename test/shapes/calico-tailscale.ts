// Two healthy agents on one node whose mark masks overlap: felix (Calico) with its default IptablesMarkMask
// 0xffff0000 (its bits 0xf0000) and tailscaled as a subnet router (0x40000 set in, and tested in, the byte 0xff0000).
// A tailnet peer calls the Calico workload through the subnet route: felix's to-workload policy sets its accept bit
// 0x10000, ts-forward's `--set-xmark 0x40000/0xff0000` rewrites the whole byte (felix's accept bit gone), felix's
// mangle POSTROUTING, no longer seeing its accept bit, clears 0xf0000 (tailscale's 0x40000 gone), and ts-postrouting
// finds nothing to masquerade: the workload sees the peer's address, not the node's. With felix configured for
// IptablesMarkMask 0xff000000 (the fixture felix renders then: the same rules, its bits 0xf000000), the layouts are
// disjoint and tailscale masquerades. Order as the agents keep it: felix's rules, kube-proxy's first sync,
// tailscaled's rules (`iptables-restore --noflush` of its fixture) and its hooks put first (AddHooks inserts at 1),
// then felix's refresh putting its own hooks back above.

import type { Scenario } from '../../src/harness/scenario.ts';
import { CALI_ACCEPT, CALICO_IPSETS, calicoNode, FELIX_REINSERT } from './calico.ts';
import { fixture, markProbe, nodeView, traceRuleset, vpnPeer, withKubeProxy } from './shapes.ts';
import { TAILSCALE_FIXTURE, TS_FWMARK_MASK, TS_SUBNET_ROUTE_MARK } from './tailscale.ts';

/** felix's fixture for IptablesMarkMask 0xff000000: accept 0x1000000, pass 0x2000000, scratch0 0x4000000, ... */
export const CALICO_DISJOINT_FIXTURE = 'calico-markmask-ff000000.iptables-save';

/** tailscaled's AddHooks: each jump deleted and inserted again at position 1. */
const TAILSCALE_REINSERT = `*filter
-D INPUT -j ts-input
-I INPUT 1 -j ts-input
-D FORWARD -j ts-forward
-I FORWARD 1 -j ts-forward
COMMIT
*nat
-D POSTROUTING -j ts-postrouting
-I POSTROUTING 1 -j ts-postrouting
COMMIT
`;

export const CALICO_TAILSCALE_FIXED_PORTS = [41234, 8000];

/** `calicoFixture`: calico.iptables-save (felix's default mask) or CALICO_DISJOINT_FIXTURE. */
export function calicoTailscaleScenario(name: string, calicoFixture: string): Scenario {
  const felixAccept = calicoFixture === CALICO_DISJOINT_FIXTURE ? 0x1000000 : CALI_ACCEPT;
  const b = vpnPeer(calicoNode(name), {
    device: 'tailscale0',
    nodeAddr: '100.101.0.1/24',
    peerAddr: '100.101.0.2/24',
    gateway: '100.101.0.1',
  })
    .command('w1', ['ipset', 'restore'], fixture(CALICO_IPSETS))
    .iptablesRestore('w1', fixture(calicoFixture))
    .nft('w1', traceRuleset([8000]), 'trace.nft')
    .nft(
      'w1',
      markProbe([{ mask: felixAccept }, { mask: TS_FWMARK_MASK, value: TS_SUBNET_ROUTE_MARK }]),
      'probe.nft',
    )
    .monitor('w1', 'nft', 'monitor', 'trace');
  withKubeProxy(b, 'w1', nodeView([]));
  return b
    .actCommand('w1', ['iptables-restore', '--noflush'], fixture(TAILSCALE_FIXTURE))
    .actCommand('w1', ['iptables-restore', '--noflush'], TAILSCALE_REINSERT)
    .actCommand('w1', ['iptables-restore', '--noflush'], FELIX_REINSERT)
    .tcp({
      client: { ns: 'peer', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'pod', bind: '0.0.0.0', port: 8000 },
      dst: '10.244.1.5',
      dstPort: 8000,
      payload: 'subnet-route',
    })
    .observe('w1', 'iptables-save', '-c')
    .observe('w1', 'nft', 'list', 'table', 'inet', 'probe')
    .observe('w1', 'conntrack', '-L')
    .build();
}
