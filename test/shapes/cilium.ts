// Cilium's iptables mode (test/fixtures/shapes/cilium.iptables-save: the CILIUM_* chains the agent installs with
// kube-proxy left in place: raw NOTRACK for proxy traffic, mangle's -m socket/TPROXY redirection to its proxies and
// their 0x200/0xf00 "to proxy" mark, CILIUM_FORWARD for lxc+ and cilium_host, CILIUM_OUTPUT's 0xc00/0xf00 "from
// host" mark, CILIUM_POST_nat's masquerade) on node w1, loaded with `iptables-restore --noflush` after kube-proxy's
// nat rules as the agent adds to what is there. Pods sit behind lxc* veths routed by /32 as Cilium routes them,
// cilium_host (10.244.1.1) their gateway. A harness scenario for packetlab (cilium.test.ts) and the kernel
// (test/linux/shapes-cilium.test.ts); the TPROXY path needs a transparent listener, which only packetlab's
// test drives (the kernel side's peers do not set IP_TRANSPARENT).

import { kubeProxyNatRules } from '../../scenarios/kube-proxy-iptables.ts';
import { type Scenario, ScenarioBuilder } from '../../src/harness/scenario.ts';
import { shapeFixture, WEB_SERVICE } from './istio.ts';

/** Cilium's mark nibble (MagicMarkHostMask) and kube-proxy's masquerade bit. */
export const CILIUM_MARK_MASK = 0xf00;
export const KUBE_MASQ_BIT = 0x4000;

/**
 * Counting rules where each component's bits stand: in OUTPUT after the filter table (priority 10) and in
 * POSTROUTING before source NAT (priority 90): Cilium's "from host" 0xc00 and "to proxy" 0x200 in 0xf00, kube-proxy's
 * 0x4000.
 */
export const MARK_PROBE = `table inet probe {
\tchain output {
\t\ttype filter hook output priority 10; policy accept;
\t\tmeta mark & 0x00000f00 == 0x00000c00 counter
\t\tmeta mark & 0x00000f00 == 0x00000200 counter
\t\tmeta mark & 0x00004000 == 0x00004000 counter
\t}
\tchain postrouting {
\t\ttype filter hook postrouting priority 90; policy accept;
\t\tmeta mark & 0x00000f00 == 0x00000c00 counter
\t\tmeta mark & 0x00000f00 == 0x00000200 counter
\t\tmeta mark & 0x00004000 == 0x00004000 counter
\t}
}
`;

/** The incident's trace chains, before the raw table: every packet to the two services' ports is traced. */
export const TRACE = `table inet debug {
\tchain prerouting {
\t\ttype filter hook prerouting priority -301;
\t\ttcp dport { 80, 8000 } meta nftrace set 1
\t}
\tchain output {
\t\ttype filter hook output priority -301;
\t\ttcp dport { 80, 8000 } meta nftrace set 1
\t}
}
`;

/** w1 (172.18.0.2 on the lan, cilium_host 10.244.1.1) with pods pod (10.244.1.5) and web (10.244.1.9), and ext. */
export function ciliumNode(name: string): ScenarioBuilder {
  const b = new ScenarioBuilder(name).namespace('w1').namespace('pod').namespace('web').namespace('ext');
  b.segment('lan').attach('lan', 'w1', 'eth0').attach('lan', 'ext', 'eth0');
  b.addr('w1', '172.18.0.2/24', 'eth0')
    .up('w1', 'eth0')
    .addr('ext', '172.18.0.100/24', 'eth0')
    .up('ext', 'eth0');
  b.veth('w1', 'cilium_host', 'w1', 'cilium_net').up('w1', 'cilium_host', 'cilium_net');
  b.addr('w1', '10.244.1.1/32', 'cilium_host');
  for (const [pod, lxc, addr] of [
    ['pod', 'lxc0a1b2c', '10.244.1.5'],
    ['web', 'lxc3d4e5f', '10.244.1.9'],
  ] as const) {
    b.veth(pod, 'eth0', 'w1', lxc).up('w1', lxc).up(pod, 'eth0');
    b.addr(pod, `${addr}/32`, 'eth0');
    b.route(pod, 'add', '10.244.1.1', 'dev', 'eth0', 'scope', 'link');
    b.route(pod, 'add', 'default', 'via', '10.244.1.1');
    b.route('w1', 'add', `${addr}/32`, 'dev', lxc, 'src', '10.244.1.1');
  }
  return b
    .route('w1', 'add', 'default', 'via', '172.18.0.100')
    .sysctl('w1', 'net.ipv4.ip_forward', 1)
    .iptablesRestore('w1', kubeProxyNatRules([WEB_SERVICE]))
    .command('w1', ['iptables-restore', '--noflush'], shapeFixture('cilium.iptables-save'))
    .nft('w1', MARK_PROBE, 'probe.nft');
}

/** Ports no NAT chooses here (kube-proxy's MASQUERADE --random-fully picks the host's source port). */
export const CILIUM_FIXED_PORTS = [41234, 41235, 8000];

export function ciliumScenario(name = 'shapes-cilium'): Scenario {
  return (
    ciliumNode(name)
      .nft('w1', TRACE, 'trace.nft')
      .monitor('w1', 'nft', 'monitor', 'trace')
      // A pod to the outside: CILIUM_FORWARD accepts from lxc+, CILIUM_POST_nat masquerades to 172.18.0.2.
      .tcp({
        client: { ns: 'pod', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'ext', bind: '0.0.0.0', port: 8000 },
        dst: '172.18.0.100',
        dstPort: 8000,
        payload: 'dehors',
      })
      // The host to the ClusterIP: kube-proxy's 0x4000 and Cilium's "from host" 0xc00 side by side in the mark.
      .tcp({
        client: { ns: 'w1', bind: '0.0.0.0', port: 41235 },
        server: { ns: 'web', bind: '0.0.0.0', port: 8000 },
        dst: '10.96.40.12',
        dstPort: 80,
        payload: 'service',
      })
      .observe('w1', 'iptables-save', '-c')
      .observe('w1', 'nft', 'list', 'table', 'inet', 'probe')
      .observe('w1', 'conntrack', '-L')
      .build()
  );
}
