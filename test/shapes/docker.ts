// Docker's bridge network on w1 (docker0 172.17.0.1/16, one container publishing 8080 → 80) with kube-proxy: the
// fixture is what dockerd (moby libnetwork, Docker ≤ 27) leaves in iptables-save, loaded before kube-proxy's first
// sync as on a node where dockerd starts first. Three calls: the published port from outside (nat DOCKER's DNAT,
// filter DOCKER's ACCEPT), a NodePort from outside whose endpoint is on w2 (kube-proxy's 0x4000 bit is what lets
// KUBE-FORWARD accept it past Docker's FORWARD policy DROP), and pod to pod across nodes, which nothing accepts
// and Docker's DROP policy drops.

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

export const DOCKER_FIXTURE = 'docker.iptables-save';

/** Ports no NAT chooses in this scenario (the NodePort's MASQUERADE --random-fully chooses the rest). */
export const DOCKER_FIXED_PORTS = [41234, 41235, 41236, 8080, 80, 30080, 8000];

export function dockerScenario(name = 'shapes-docker'): Scenario {
  const b = cluster(name)
    .namespace('ctr')
    .bridge('w1', 'docker0')
    .addr('w1', '172.17.0.1/16', 'docker0')
    .up('w1', 'docker0')
    .veth('ctr', 'eth0', 'w1', 'veth-ctr')
    .master('w1', 'veth-ctr', 'docker0')
    .up('w1', 'veth-ctr')
    .up('ctr', 'eth0')
    .addr('ctr', '172.17.0.2/16', 'eth0')
    .route('ctr', 'add', 'default', 'via', '172.17.0.1')
    .iptablesRestore('w1', fixture(DOCKER_FIXTURE))
    .nft('w1', traceRuleset([8080, 30080, 8000]), 'trace.nft')
    .nft('w1', markProbe([{ mask: KUBE_MASQ_MARK }]), 'probe.nft')
    .monitor('w1', 'nft', 'monitor', 'trace');
  withKubeProxy(b, 'w1', nodeView([SIGNALEMENTS]));
  return b
    .tcp({
      client: { ns: 'client', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'ctr', bind: '0.0.0.0', port: 80 },
      dst: '172.18.0.2',
      dstPort: 8080,
      payload: 'conteneur',
    })
    .tcp({
      client: { ns: 'client', bind: '0.0.0.0', port: 41235 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.0.2',
      dstPort: 30080,
      payload: 'nodeport',
    })
    .tcp({
      client: { ns: 'diag', bind: '0.0.0.0', port: 41236 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '10.244.2.7',
      dstPort: 8000,
      timeoutMs: 800,
    })
    .observe('w1', 'iptables-save', '-c')
    .observe('w1', 'nft', 'list', 'table', 'inet', 'probe')
    .observe('w1', 'conntrack', '-L')
    .build();
}
