// Istio's sidecar redirection (test/fixtures/shapes/istio.iptables-save: what istio-iptables leaves in a pod's
// network namespace in REDIRECT mode: ISTIO_INBOUND/ISTIO_IN_REDIRECT to 15006, ISTIO_OUTPUT/ISTIO_REDIRECT to
// 15001, the proxy's own traffic let through by `-m owner --uid-owner 1337`) in the pod `app`, with kube-proxy's
// nat rules on its node w1: the app's call to a ClusterIP is taken by the sidecar's outbound listener, a call from
// another pod by its inbound one. A harness scenario, run on packetlab (istio.test.ts) and on the kernel
// (test/linux/shapes-istio.test.ts); the kernel side runs every program as root, so the proxy's uid-1337 path is
// packetlab's alone (istio.test.ts).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kubeProxyNatRules } from '../../scenarios/kube-proxy-iptables.ts';
import { type Scenario, ScenarioBuilder } from '../../src/harness/scenario.ts';

/** A fixture of test/fixtures/shapes/, byte for byte. */
export function shapeFixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/shapes/${name}`, import.meta.url)), 'utf8');
}

/** `default/web:http`: ClusterIP 10.96.40.12:80, its one endpoint the pod web (10.244.1.9:8000) on w1. */
export const WEB_SERVICE = {
  servicePort: 'default/web:http',
  protocol: 'tcp',
  clusterIp: '10.96.40.12',
  port: 80,
  nodePort: undefined,
  endpoints: ['10.244.1.9:8000'],
  clusterCidr: '10.244.0.0/16',
} as const;

/** w1 with the pods app (10.244.1.5, the sidecar's rules) and web (10.244.1.9) on its bridge cni0 (10.244.1.1). */
export function istioNode(name: string): ScenarioBuilder {
  const b = new ScenarioBuilder(name).namespace('w1').namespace('app').namespace('web');
  b.bridge('w1', 'cni0').addr('w1', '10.244.1.1/24', 'cni0').up('w1', 'cni0');
  for (const [pod, port, addr] of [
    ['app', 'veth-app', '10.244.1.5/24'],
    ['web', 'veth-web', '10.244.1.9/24'],
  ] as const) {
    b.veth(pod, 'eth0', 'w1', port).master('w1', port, 'cni0').up('w1', port).up(pod, 'eth0');
    b.addr(pod, addr, 'eth0').route(pod, 'add', 'default', 'via', '10.244.1.1');
  }
  return b
    .sysctl('w1', 'net.ipv4.ip_forward', 1)
    .iptablesRestore('w1', kubeProxyNatRules([WEB_SERVICE]))
    .iptablesRestore('app', shapeFixture('istio.iptables-save'));
}

/** Trace chains before the raw table in the pod: the calls to the Service, the app and the health port. */
const TRACE = `table inet debug {
\tchain prerouting {
\t\ttype filter hook prerouting priority -301;
\t\ttcp dport { 8080, 15021 } meta nftrace set 1
\t}
\tchain output {
\t\ttype filter hook output priority -301;
\t\ttcp dport 80 meta nftrace set 1
\t}
}
`;

export function istioScenario(name = 'shapes-istio'): Scenario {
  return (
    istioNode(name)
      .nft('app', TRACE, 'trace.nft')
      .monitor('app', 'nft', 'monitor', 'trace')
      // The app calls the Service: ISTIO_OUTPUT → ISTIO_REDIRECT, REDIRECT to the sidecar's 15001.
      .tcp({
        client: { ns: 'app', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'app', bind: '0.0.0.0', port: 15001 },
        dst: '10.96.40.12',
        dstPort: 80,
        payload: 'sortant',
      })
      // Another pod calls the app: ISTIO_INBOUND → ISTIO_IN_REDIRECT, REDIRECT to 15006.
      .tcp({
        client: { ns: 'web', bind: '0.0.0.0', port: 41235 },
        server: { ns: 'app', bind: '0.0.0.0', port: 15006 },
        dst: '10.244.1.5',
        dstPort: 8080,
        payload: 'entrant',
      })
      // The sidecar's own ports are not redirected: 15021 (health) reaches its listener as addressed.
      .tcp({
        client: { ns: 'web', bind: '0.0.0.0', port: 41236 },
        server: { ns: 'app', bind: '0.0.0.0', port: 15021 },
        dst: '10.244.1.5',
        dstPort: 15021,
        payload: 'sante',
      })
      .observe('app', 'iptables-save', '-c', '-t', 'nat')
      .observe('w1', 'iptables-save', '-c', '-t', 'nat')
      .observe('app', 'conntrack', '-L')
      .build()
  );
}
