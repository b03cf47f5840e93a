// The external load balancer's passthrough mode on the kernel and on packetlab: the LB's own nft table (what
// src/k8s/lb renders, one node in rotation so no random draw can differ) DNATs the load-balancer address to the
// node's NodePort without SNAT, the node's NodePort rule (by hand) DNATs to its pod, and the pod sees the client's
// own address; the LB's conntrack entry, its ruleset and its NAT counters are compared.
//
// Two placements: the LB as a router of its own with the address on its client side; and where cluster() puts it,
// in the Docker host ("outside"), the nodes' gateway, with the address on eth0 (the network side) and Docker's own
// rule masquerading the network's traffic leaving by another interface (`-s 172.18.0.0/16 ! -o eth0 -j MASQUERADE`).
// There the node's reply (from 172.18.0.3, leaving by the Internet side) matches Docker's rule by address, but it
// belongs to the LB's conntrack entry, so NAT is not consulted again: the client gets the reply from 172.18.255.200
// and Docker's rule counts nothing.

import { describe, expect, it } from 'vitest';
import { renderPassthrough } from '../../src/k8s/lb/passthrough-rules.ts';
import { differential, outputOf } from './harness.ts';
import { ScenarioBuilder } from './scenario.ts';

const LB_RULESET = renderPassthrough([
  {
    id: 'default-signalements-80',
    addr: '172.18.255.200',
    port: 80,
    protocol: 'TCP',
    backends: [{ node: 'formation-worker', addr: '172.18.0.3', nodePort: 30080 }],
  },
]);

function natRules(rule: string): string {
  return [
    '*nat',
    ':PREROUTING ACCEPT [0:0]',
    ':INPUT ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    ':POSTROUTING ACCEPT [0:0]',
  ]
    .concat(rule, 'COMMIT', '')
    .join('\n');
}

const DOCKER_RULES = natRules('-A POSTROUTING -s 172.18.0.0/16 ! -o eth0 -j MASQUERADE');
const NODEPORT_RULES = natRules(
  '-A PREROUTING -p tcp -m tcp --dport 30080 -j DNAT --to-destination 10.244.1.9:8000',
);

/** inet (203.0.113.10) — outside (the LB, 203.0.113.1 and 172.18.0.1) — w1 (172.18.0.3) — pod (10.244.1.9). */
function lbScenario(name: string, placement: 'own-router' | 'docker-host'): ScenarioBuilder {
  const builder = new ScenarioBuilder(name)
    .namespace('inet')
    .namespace('outside')
    .namespace('w1')
    .namespace('pod')
    .veth('inet', 'eth0', 'outside', 'eth1')
    .veth('outside', 'eth0', 'w1', 'eth0')
    .veth('w1', 'veth0', 'pod', 'eth0')
    .addr('inet', '203.0.113.10/24', 'eth0')
    .addr('outside', '203.0.113.1/24', 'eth1')
    .addr('outside', '172.18.0.1/16', 'eth0')
    .addr('outside', '172.18.255.200/32', placement === 'docker-host' ? 'eth0' : 'eth1')
    .addr('w1', '172.18.0.3/16', 'eth0')
    .addr('w1', '10.244.1.1/24', 'veth0')
    .addr('pod', '10.244.1.9/24', 'eth0')
    .up('inet', 'eth0')
    .up('outside', 'eth1', 'eth0')
    .up('w1', 'eth0', 'veth0')
    .up('pod', 'eth0')
    .route('inet', 'add', 'default', 'via', '203.0.113.1')
    .route('w1', 'add', 'default', 'via', '172.18.0.1')
    .route('pod', 'add', 'default', 'via', '10.244.1.1')
    .sysctl('outside', 'net.ipv4.ip_forward', 1)
    .sysctl('w1', 'net.ipv4.ip_forward', 1);
  if (placement === 'docker-host') builder.iptablesRestore('outside', DOCKER_RULES);
  return builder
    .nft('outside', LB_RULESET, 'lb.nft')
    .iptablesRestore('w1', NODEPORT_RULES)
    .capture('inet', 'eth0')
    .capture('pod', 'eth0')
    .tcp({
      client: { ns: 'inet', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'pod', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.255.200',
      dstPort: 80,
      payload: 'GET /sante',
    })
    .observe('outside', 'conntrack', '-L')
    .observe('outside', 'nft', 'list', 'ruleset')
    .observe('outside', 'iptables-save', '-c', '-t', 'nat');
}

describe('differential: the load balancer in passthrough mode', () => {
  for (const [placement, name] of [
    ['own-router', 'lb-passthrough'],
    ['docker-host', 'lb-outside'],
  ] as const) {
    it(`${placement}: DNAT to the NodePort without SNAT, the pod accepts the client’s own address`, async (ctx) => {
      const result = await differential(ctx, lbScenario(name, placement).build());
      if (result === undefined) return;
      for (const side of [result.linux, result.packetlab]) {
        expect(outputOf(side, 'pod: tcp echo'), side.side).toContain('accept 203.0.113.10:41234');
        expect(outputOf(side, 'outside: conntrack -L'), side.side).toContain(
          'src=203.0.113.10 dst=172.18.255.200 sport=41234 dport=80 src=172.18.0.3 dst=203.0.113.10 sport=30080 dport=41234',
        );
        if (placement === 'docker-host')
          expect(outputOf(side, 'outside: iptables-save -c -t nat'), side.side).toContain(
            '[0:0] -A POSTROUTING -s 172.18.0.0/16 ! -o eth0 -j MASQUERADE',
          );
      }
    }, 30_000);
  }
});
