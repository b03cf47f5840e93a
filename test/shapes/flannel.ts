// Flannel's rule shape on w1 (host-gw backend: the lesson's direct routes; pod subnet 10.244.1.0/24 of the network
// 10.244.0.0/16): the fixture is what flanneld's iptables traffic manager (pkg/trafficmngr/iptables) leaves, loaded
// after kube-proxy's first sync (flanneld restarted), with kube-proxy in nftables mode (its own table,
// src/k8s/kube-proxy/nftables). iptables' nat POSTROUTING and kube-proxy's nat-postrouting both sit at srcnat, and
// at one priority the hook registered last runs first (the kernel and packetlab agree): iptables' nat table, created
// by flannel's restore, so FLANNEL-POSTRTG sees kube-proxy's 0x4000 bit and returns (its "no double NAT" rule)
// before kube-proxy's chain masquerades. Loaded the other way round, kube-proxy masquerades first and the NAT is
// set before FLANNEL-POSTRTG would run (test/shapes/flannel.test.ts shows both). Calls:
// a NodePort from outside, a pod to a ClusterIP (no masquerade: pod to pod), a pod to the outside (flannel's
// MASQUERADE --random-fully).

import type { Scenario } from '../../src/harness/scenario.ts';
import {
  cluster,
  fixture,
  KUBE_MASQ_MARK,
  markProbe,
  nodeView,
  SIGNALEMENTS,
  traceRuleset,
  withKubeProxy,
} from './shapes.ts';

export const FLANNEL_FIXTURE = 'flannel.iptables-save';

/** Ports no NAT chooses (the two MASQUERADE --random-fully choose the rest). */
export const FLANNEL_FIXED_PORTS = [41234, 41235, 41236, 30080, 80, 8000, 9000];

/** `flannelFirst`: flannel's rules loaded before kube-proxy's first sync rather than after. */
export function flannelScenario(name = 'shapes-flannel', flannelFirst = false): Scenario {
  const b = cluster(name)
    .nft('w1', traceRuleset([30080, 80, 8000, 9000]), 'trace.nft')
    .nft('w1', markProbe([{ mask: KUBE_MASQ_MARK }]), 'probe.nft')
    .monitor('w1', 'nft', 'monitor', 'trace');
  if (flannelFirst) b.iptablesRestore('w1', fixture(FLANNEL_FIXTURE));
  withKubeProxy(b, 'w1', nodeView([SIGNALEMENTS]), 'nftables');
  if (!flannelFirst) b.actCommand('w1', ['iptables-restore'], fixture(FLANNEL_FIXTURE));
  return b
    .tcp({
      client: { ns: 'client', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.0.2',
      dstPort: 30080,
      payload: 'nodeport',
    })
    .tcp({
      client: { ns: 'diag', bind: '0.0.0.0', port: 41235 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '10.96.40.12',
      dstPort: 80,
      payload: 'clusterip',
    })
    .tcp({
      client: { ns: 'diag', bind: '0.0.0.0', port: 41236 },
      server: { ns: 'client', bind: '0.0.0.0', port: 9000 },
      dst: '172.18.0.100',
      dstPort: 9000,
      payload: 'dehors',
    })
    .observe('w1', 'iptables-save', '-c')
    .observe('w1', 'nft', 'list', 'table', 'inet', 'probe')
    .observe('w1', 'conntrack', '-L')
    .build();
}
