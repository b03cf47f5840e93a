// The external load balancer where cluster() puts it: in the Docker host ("outside"), the nodes' gateway, whose own
// rule masquerades the network's traffic leaving by another interface (`-s 172.18.0.0/16 ! -o eth0 -j MASQUERADE`),
// with the load-balancer address on eth0 (the network side). The client's connection is DNATed without SNAT; the
// node's reply (from 172.18.0.3, leaving by the Internet side) matches Docker's rule by address, but it belongs to the
// LB's conntrack entry, so NAT is not consulted again: the client gets the reply from 172.18.255.200 and the pod sees
// 203.0.113.10. A pod's own connection to the Internet, by contrast, is masqueraded to 203.0.113.1.

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

const DOCKER_RULES = [
  '*nat',
  ':PREROUTING ACCEPT [0:0]',
  ':INPUT ACCEPT [0:0]',
  ':OUTPUT ACCEPT [0:0]',
  ':POSTROUTING ACCEPT [0:0]',
  '-A POSTROUTING -s 172.18.0.0/16 ! -o eth0 -j MASQUERADE',
  'COMMIT',
  '',
].join('\n');

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

describe('differential: the passthrough load balancer in the Docker host', () => {
  it('the reply is un-DNATed by the LB entry, not masqueraded by Docker’s rule; the pod sees the client', async (ctx) => {
    const scenario = new ScenarioBuilder('lb-outside')
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
      .addr('outside', '172.18.255.200/32', 'eth0')
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
      .sysctl('w1', 'net.ipv4.ip_forward', 1)
      .iptablesRestore('outside', DOCKER_RULES)
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
      .observe('outside', 'iptables-save', '-c', '-t', 'nat')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'pod: tcp echo'), side.side).toContain('accept 203.0.113.10:41234');
      expect(outputOf(side, 'outside: conntrack -L'), side.side).toContain(
        'src=203.0.113.10 dst=172.18.255.200 sport=41234 dport=80 src=172.18.0.3 dst=203.0.113.10 sport=30080 dport=41234',
      );
      expect(outputOf(side, 'outside: iptables-save -c -t nat'), side.side).toContain(
        '[0:0] -A POSTROUTING -s 172.18.0.0/16 ! -o eth0 -j MASQUERADE',
      );
    }
  }, 30_000);
});
