// The external load balancer's passthrough mode on the kernel and on packetlab: the LB's own nft table (what
// src/k8s/lb renders, one node in rotation so no random draw can differ) DNATs the load-balancer address to the
// node's NodePort without SNAT, the node's NodePort rule (by hand) DNATs to its pod, and the pod sees the client's
// own address; the LB's conntrack entry and ruleset are compared.

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

const NODEPORT_RULES = [
  '*nat',
  ':PREROUTING ACCEPT [0:0]',
  ':INPUT ACCEPT [0:0]',
  ':OUTPUT ACCEPT [0:0]',
  ':POSTROUTING ACCEPT [0:0]',
  '-A PREROUTING -p tcp -m tcp --dport 30080 -j DNAT --to-destination 10.244.1.9:8000',
  'COMMIT',
  '',
].join('\n');

describe('differential: the load balancer in passthrough mode', () => {
  it('DNAT to the NodePort without SNAT: the pod accepts the client’s own address', async (ctx) => {
    const scenario = new ScenarioBuilder('lb-passthrough')
      .namespace('client')
      .namespace('lb')
      .namespace('w1')
      .namespace('pod')
      .veth('client', 'eth0', 'lb', 'ext')
      .veth('lb', 'eth0', 'w1', 'eth0')
      .veth('w1', 'veth0', 'pod', 'eth0')
      .addr('client', '203.0.113.10/24', 'eth0')
      .addr('lb', '203.0.113.1/24', 'ext')
      .addr('lb', '172.18.255.200/32', 'ext')
      .addr('lb', '172.18.0.1/16', 'eth0')
      .addr('w1', '172.18.0.3/16', 'eth0')
      .addr('w1', '10.244.1.1/24', 'veth0')
      .addr('pod', '10.244.1.9/24', 'eth0')
      .up('client', 'eth0')
      .up('lb', 'ext', 'eth0')
      .up('w1', 'eth0', 'veth0')
      .up('pod', 'eth0')
      .route('client', 'add', 'default', 'via', '203.0.113.1')
      .route('w1', 'add', 'default', 'via', '172.18.0.1')
      .route('pod', 'add', 'default', 'via', '10.244.1.1')
      .sysctl('lb', 'net.ipv4.ip_forward', 1)
      .sysctl('w1', 'net.ipv4.ip_forward', 1)
      .nft('lb', LB_RULESET, 'lb.nft')
      .iptablesRestore('w1', NODEPORT_RULES)
      .capture('client', 'eth0')
      .capture('pod', 'eth0')
      .tcp({
        client: { ns: 'client', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'pod', bind: '0.0.0.0', port: 8000 },
        dst: '172.18.255.200',
        dstPort: 80,
        payload: 'GET /sante',
      })
      .observe('lb', 'conntrack', '-L')
      .observe('lb', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'pod: tcp echo'), side.side).toContain('accept 203.0.113.10:41234');
      expect(outputOf(side, 'lb: conntrack -L'), side.side).toContain(
        'src=203.0.113.10 dst=172.18.255.200 sport=41234 dport=80 src=172.18.0.3 dst=203.0.113.10 sport=30080 dport=41234',
      );
    }
  }, 30_000);
});
