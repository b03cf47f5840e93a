// The lesson's "policies apply before or after the Service translation" (scenarios/security.ts, point 4) on the kind
// cluster plan with kube-proxy's iptables rules, on the kernel and on packetlab: in formation-worker's FORWARD chain a
// DROP rule on the ClusterIP never matches diag's call to 10.96.40.12:80 (PREROUTING's DNAT came first: counters 0,
// the echo answered), one on the pod address 10.244.2.7:8000 drops its SYN, and one on conntrack's original
// destination (`-m conntrack --ctorigdst 10.96.40.12 --ctorigdstport 80`) drops it too.

import { describe, expect, it } from 'vitest';
import { Kindnet } from '../../src/k8s/cni/kindnet.ts';
import { IptablesProxier } from '../../src/k8s/kube-proxy/iptables/proxier.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import { endpoint, makeEndpointSlice, makeService, servicePort } from '../support/k8s-objects.ts';
import { differential } from './harness.ts';
import { kindCluster } from './topologies.ts';

const VIEW: ProxierView = {
  nodeName: 'formation-worker',
  nodeIps: ['172.18.0.3'],
  clusterCidr: '10.244.0.0/16',
  masqueradeBit: 14,
  services: [
    makeService('default', 'signalements', (svc) => {
      svc.clusterIP = '10.96.40.12';
      svc.ports = [servicePort({ name: 'http', port: 80, targetPort: 8000 })];
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

/** The three rules, each inserted first in FORWARD on w1, tried with one call, listed, then deleted. */
const RULES = [
  ['-s', '10.244.1.5', '-d', '10.96.40.12', '-p', 'tcp', '--dport', '80', '-j', 'DROP'],
  ['-s', '10.244.1.5', '-d', '10.244.2.7', '-p', 'tcp', '--dport', '8000', '-j', 'DROP'],
  [
    '-s',
    '10.244.1.5',
    '-p',
    'tcp',
    '-m',
    'conntrack',
    '--ctorigdst',
    '10.96.40.12',
    '--ctorigdstport',
    '80',
    '-j',
    'DROP',
  ],
] as const;

describe('differential: a FORWARD rule before or after the Service translation', () => {
  it('the ClusterIP rule counts 0 and lets the call through; the pod-address and ctorigdst rules drop its SYN', async (ctx) => {
    const cluster = kindCluster('policy-dnat', {
      cni: new Kindnet(),
      pods: [
        { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
        { name: 'remote', node: 'formation-worker2', address: '10.244.2.7' },
      ],
    });
    let builder = cluster.builder;
    for (const command of new IptablesProxier().sync('w1', VIEW, true))
      builder = builder.actCommand(command.ns, command.argv, command.stdin);
    RULES.forEach((rule, i) => {
      builder = builder
        .act('w1', 'iptables', '-I', 'FORWARD', '1', ...rule)
        .tcp({
          client: { ns: 'diag', bind: '0.0.0.0', port: 41234 + i },
          server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
          dst: '10.96.40.12',
          dstPort: 80,
          payload: `call ${i + 1}`,
          // Shorter than the first SYN retransmission (1 s): one SYN when it is dropped.
          timeoutMs: 800,
        })
        .act('w1', 'iptables', '-L', 'FORWARD', '1', '-v', '-n', '-x')
        .act('w1', 'iptables', '-D', 'FORWARD', '1');
    });
    const result = await differential(ctx, cluster.build(), { natPorts: [41234, 41235, 41236, 8000, 80] });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const calls = side.traffic.filter((step) => step.label.startsWith('diag: tcp send'));
      expect(
        calls.map((step) =>
          step.stdout.includes('reply "call 1 1"')
            ? 'answered'
            : step.stdout.includes('timeout connect')
              ? 'dropped'
              : step.stdout,
        ),
        side.side,
      ).toEqual(['answered', 'dropped', 'dropped']);
      const listings = side.traffic.filter((step) => step.label.startsWith('w1: iptables -L FORWARD'));
      expect(
        listings.map((step) => step.stdout.trim().split(/\s+/).slice(0, 3).join(' ')),
        side.side,
      ).toEqual(['0 0 DROP', '1 60 DROP', '1 60 DROP']);
    }
  }, 60_000);
});
