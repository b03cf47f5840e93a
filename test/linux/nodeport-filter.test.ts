// The lesson's "a NodePort is open on every node unless filtered to the load balancer's addresses" (scenarios/
// security.ts, point 2) on the kind cluster plan with kube-proxy's iptables rules, on the kernel and on packetlab: a
// raw PREROUTING rule (iptables) or an nft chain at priority raw drops NodePort-range SYNs from any source but the
// allowed one, before kube-proxy's DNAT. Allowing the caller (the Docker host, 172.18.0.1), the NodePort answers;
// allowing another address (172.18.0.9), the caller's SYN is dropped and counted.

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
 * The filter allowing `source` only, per tool: its commands and the listing that shows its counter. It drops SYNs
 * only (`--syn`, `tcp flags syn / fin,syn,rst,ack`): a raw PREROUTING rule runs before conntrack, so a rule on the
 * port alone also dropped the pod's SYN-ACK whenever the node's MASQUERADE (--random-fully, 1024-65535) had drawn a
 * source port inside 30000-32767 (2768 of 64512 ports: the allowed call timed out in about one kernel run in 23,
 * with `3 180` SYN-ACKs on the counter; packetlab's seeded draw lies outside the range).
 */
function filter(
  tool: 'iptables' | 'nft',
  source: string,
): { add: string[][]; list: string[]; remove: string[][] } {
  if (tool === 'iptables')
    return {
      add: [
        [
          'iptables',
          '-t',
          'raw',
          '-A',
          'PREROUTING',
          '-p',
          'tcp',
          '--syn',
          '--dport',
          '30000:32767',
          '!',
          '-s',
          source,
          '-j',
          'DROP',
        ],
      ],
      list: ['iptables', '-t', 'raw', '-L', 'PREROUTING', '-v', '-n', '-x'],
      remove: [['iptables', '-t', 'raw', '-F', 'PREROUTING']],
    };
  return {
    add: [
      ['nft', 'add', 'table', 'inet', 'nodeport-guard'],
      [
        'nft',
        'add',
        'chain',
        'inet',
        'nodeport-guard',
        'prerouting',
        '{ type filter hook prerouting priority raw; policy accept; }',
      ],
      [
        'nft',
        'add',
        'rule',
        'inet',
        'nodeport-guard',
        'prerouting',
        'tcp',
        'flags',
        'syn',
        '/',
        'fin,syn,rst,ack',
        'tcp',
        'dport',
        '30000-32767',
        'ip',
        'saddr',
        '!=',
        source,
        'counter',
        'drop',
      ],
    ],
    list: ['nft', 'list', 'chain', 'inet', 'nodeport-guard', 'prerouting'],
    remove: [['nft', 'delete', 'table', 'inet', 'nodeport-guard']],
  };
}

describe('differential: NodePorts filtered to the load balancer before the DNAT', () => {
  for (const tool of ['iptables', 'nft'] as const) {
    it(`${tool}: the allowed source is answered, any other is dropped and counted`, async (ctx) => {
      const cluster = kindCluster(`nodeport-filter-${tool}`, {
        cni: new Kindnet(),
        pods: [{ name: 'remote', node: 'formation-worker2', address: '10.244.2.7' }],
      });
      let builder = cluster.builder;
      for (const command of new IptablesProxier().sync('w1', VIEW, true))
        builder = builder.actCommand(command.ns, command.argv, command.stdin);
      ['172.18.0.1', '172.18.0.9'].forEach((source, i) => {
        const rules = filter(tool, source);
        for (const argv of rules.add) builder = builder.act('w1', ...argv);
        builder = builder
          .tcp({
            client: { ns: 'outside', bind: '0.0.0.0', port: 41234 + i },
            server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
            dst: '172.18.0.3',
            dstPort: 30080,
            payload: `call ${i + 1}`,
            // Shorter than the first SYN retransmission (1 s): one SYN when it is dropped.
            timeoutMs: 800,
          })
          .act('w1', ...rules.list);
        for (const argv of rules.remove) builder = builder.act('w1', ...argv);
      });
      const result = await differential(ctx, cluster.build(), { natPorts: [41234, 41235, 30080, 8000] });
      if (result === undefined) return;
      for (const side of [result.linux, result.packetlab]) {
        const calls = side.traffic.filter((step) => step.label.startsWith('outside: tcp send'));
        expect(
          calls.map((step) =>
            step.stdout.includes('reply "call 1 1"')
              ? 'answered'
              : step.stdout.includes('timeout connect')
                ? 'dropped'
                : step.stdout,
          ),
          side.side,
        ).toEqual(['answered', 'dropped']);
        const listings = side.traffic.filter((step) => step.label.startsWith(`w1: ${rules(tool)}`));
        const counted = listings.map((step) =>
          tool === 'iptables'
            ? (step.stdout
                .split('\n')
                .find((line) => line.includes('DROP'))
                ?.trim()
                .split(/\s+/)
                .slice(0, 2)
                .join(' ') ?? '')
            : (/counter packets (\d+) bytes (\d+)/.exec(step.stdout)?.slice(1).join(' ') ?? ''),
        );
        expect(counted, side.side).toEqual(['0 0', '1 60']);
      }
    }, 60_000);
  }
});

/** The label start of a filter's listing step. */
function rules(tool: 'iptables' | 'nft'): string {
  return tool === 'iptables' ? 'iptables -t raw -L' : 'nft list chain';
}
