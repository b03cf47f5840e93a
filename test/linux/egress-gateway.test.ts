// The egress gateway's datapath (src/k8s/egress-gateway.ts) on real namespaces and on packetlab: the cluster plan of
// each CNI with client (10.244.1.5 on formation-worker) selected, the gateway formation-worker2 with two egress
// addresses and a narrowed port range, and three UDP flows to the Internet host: the marks, the policy rule and table
// on w1, the SNAT pool's counters and conntrack on w2, and the addresses the server heard from, compared line by line.
// On VXLAN it also shows why the table throws the node network: the tunnel's outer packet carries the inner mark.

import { describe, expect, it } from 'vitest';
import type { Cni } from '../../src/k8s/cni/cni.ts';
import { FlannelVxlan } from '../../src/k8s/cni/flannel.ts';
import { Kindnet } from '../../src/k8s/cni/kindnet.ts';
import {
  type EgressGatewayPolicy,
  gatewayRules,
  gatewaySetup,
  nodeRules,
  nodeSetup,
} from '../../src/k8s/egress-gateway.ts';
import { differential, outputOf } from './harness.ts';
import type { Observed } from './observed.ts';
import { kindCluster } from './topologies.ts';

const POLICY: EgressGatewayPolicy = {
  name: 'api',
  podSelector: { app: 'api-client' },
  destinationCidrs: ['203.0.113.0/24'],
  gatewayNode: 'formation-worker2',
  egressIps: ['172.18.0.100', '172.18.0.101'],
  ports: '20000-20511',
};

/** The addresses the Internet host heard the flows from. */
function heardFrom(observed: Observed): string[] {
  return observed.traffic
    .filter((o) => o.label.startsWith('internet: udp echo'))
    .flatMap((o) => [...o.stdout.matchAll(/^from (172\.18\.0\.\d+):\d+ /gm)].map((m) => m[1]!));
}

function scenario(label: string, cni: Cni, withThrow = true) {
  const cluster = kindCluster(`egress-${label}${withThrow ? '' : '-loop'}`, {
    cni,
    pods: [{ name: 'client', node: 'formation-worker', address: '10.244.1.5' }],
  });
  const b = cluster.builder;
  const gateway = cluster.plan.nodes.find((node) => node.name === POLICY.gatewayNode)!;
  for (const node of cluster.plan.nodes) {
    const commands =
      node === gateway
        ? [
            ...gatewaySetup(node, POLICY),
            {
              ns: node.ns,
              argv: ['iptables-restore', '--noflush'],
              stdin: gatewayRules(POLICY, ['10.244.1.5']),
            },
          ]
        : [
            ...nodeSetup(node, gateway, cni.name),
            {
              ns: node.ns,
              argv: ['iptables-restore', '--noflush'],
              stdin: nodeRules(POLICY, ['10.244.1.5']),
            },
          ];
    for (const command of commands)
      if (withThrow || !command.argv.includes('throw')) b.command(command.ns, command.argv, command.stdin);
  }
  // Public egress addresses: the Docker host routes them without its masquerade.
  b.run(
    'outside',
    'iptables',
    '-t',
    'nat',
    '-I',
    'POSTROUTING',
    '1',
    '-s',
    '172.18.0.100/31',
    '-j',
    'RETURN',
  );
  for (const port of [41000, 41001, 41002])
    b.udp({
      client: { ns: 'client', bind: '0.0.0.0', port },
      server: { ns: 'internet', bind: '0.0.0.0', port: 9000 },
      dst: '203.0.113.10',
      count: 1,
      timeoutMs: 500,
    });
  b.observe('w1', 'ip', 'rule');
  b.observe('w1', 'ip', 'route', 'show', 'table', '2000');
  b.observe('w1', 'iptables-save', '-c', '-t', 'mangle');
  b.observe('w2', 'iptables-save', '-c', '-t', 'nat');
  b.observe('w2', 'ip', '-br', 'addr', 'show', 'dev', 'eth0');
  b.observe('w2', 'conntrack', '-L', '-p', 'udp', '--dport', '9000');
  return cluster.build();
}

describe('differential: the egress gateway', () => {
  for (const [label, make] of [
    ['flannel-vxlan', () => new FlannelVxlan()],
    ['kindnet', () => new Kindnet()],
  ] as const) {
    it(`${label}: marked on the pod's node, routed to the gateway, SNATed to the egress addresses in turn`, async (ctx) => {
      const result = await differential(ctx, scenario(label, make()), {
        natPorts: [41000, 41001, 41002, 9000],
      });
      if (result === undefined) return;
      for (const side of [result.linux, result.packetlab]) {
        expect(heardFrom(side), side.side).toEqual(['172.18.0.100', '172.18.0.101', '172.18.0.100']);
        expect(outputOf(side, 'w1: ip rule'), side.side).toContain(
          '100:\tfrom all fwmark 0x2000/0x2000 lookup 2000',
        );
      }
    }, 60_000);
  }

  it('flannel-vxlan without the throw route: the outer packet carries the mark, is routed into flannel.1 again and dropped as a circular route', async (ctx) => {
    const result = await differential(ctx, scenario('flannel-vxlan', new FlannelVxlan(), false), {
      natPorts: [41000, 41001, 41002, 9000],
    });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(heardFrom(side), side.side).toEqual([]);
      expect(outputOf(side, 'client: udp send 0.0.0.0:41000'), side.side).toBe('timeout 1\n');
    }
  }, 60_000);
});
