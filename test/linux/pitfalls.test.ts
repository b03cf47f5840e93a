// The lesson's pitfalls on the kernel and on packetlab: a ClusterIP does not answer ping (only its declared port is
// translated), and egress ports run out when every flow is masqueraded to one address and a narrow range.
//
// The exhaustion case uses UDP: with TCP, a new connection's SYN may evict a closed connection in TIME_WAIT that
// holds the last free port (nf_nat_used_tuple_harder), but only when its initial sequence number lies past the old
// one's, which on the kernel depends on a per-boot secret; packetlab implements the same rule with seeded numbers.

import { describe, expect, it } from 'vitest';
import { kubeProxyNatRules } from '../../scenarios/kube-proxy-iptables.ts';
import { differential, outputOf } from './harness.ts';
import type { Observed } from './observed.ts';
import { lesson, REMOTE_ENDPOINT_SERVICE } from './topologies.ts';

/** Egress masquerade squeezed into two ports, so three connections to one destination cannot all get one. */
const NARROW_MASQUERADE = `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A POSTROUTING -s 10.244.0.0/16 ! -d 10.244.0.0/16 -p udp -j MASQUERADE --to-ports 40000-40001
COMMIT
`;

/** The same squeeze for TCP: two ports toward one destination. */
const NARROW_TCP_MASQUERADE = NARROW_MASQUERADE.replace('-p udp', '-p tcp');

/** The source ports the outside server heard from, one per flow. */
function heardPorts(observed: Observed): number[] {
  const ports = observed.traffic
    .filter((o) => o.label.startsWith('client: udp echo'))
    .flatMap((o) => [...o.stdout.matchAll(/^from 172\.18\.0\.2:(\d+) /gm)].map((m) => Number(m[1])));
  return [...new Set(ports)];
}

describe('differential: the lesson pitfalls', () => {
  it('pinging a ClusterIP: kube-proxy translates only TCP port 80, the echo request goes nowhere', async (ctx) => {
    const scenario = lesson('ping-clusterip', { pods: 'bridge', nodes: 'direct' })
      .iptablesRestore('w1', kubeProxyNatRules([REMOTE_ENDPOINT_SERVICE]))
      .capture('w1', 'eth0')
      .ping('diag', '10.96.40.12', { count: 1, wait: 1 })
      .observe('w1', 'iptables-save', '-c', '-t', 'nat')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'diag: ping'), side.side).toMatch(/1 packets transmitted, 0 received/);
  });

  it('egress port exhaustion: two masquerade ports, three flows to one API, the third gets nothing through', async (ctx) => {
    const builder = lesson('port-exhaustion', { pods: 'bridge', nodes: 'direct', client: true })
      .iptablesRestore('w1', NARROW_MASQUERADE)
      .capture('client', 'eth0');
    // One after the other; each answered flow stays in conntrack (120 s) and keeps its port.
    for (const port of [41000, 41001, 41002])
      builder.udp({
        client: { ns: 'diag', bind: '0.0.0.0', port },
        server: { ns: 'client', bind: '0.0.0.0', port: 9000 },
        dst: '172.18.0.100',
        count: 2,
        timeoutMs: 500,
      });
    const scenario = builder
      .observe('w1', 'conntrack', '-L')
      .observe('w1', 'iptables-save', '-c', '-t', 'nat')
      .build();
    const result = await differential(ctx, scenario, { natPorts: [41000, 41001, 41002, 9000] });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(heardPorts(side).sort(), side.side).toEqual([40000, 40001]);
      expect(outputOf(side, 'diag: udp send 0.0.0.0:41002'), side.side).toBe('timeout 1\ntimeout 2\n');
    }
  }, 30_000);

  it('TCP egress exhaustion: two masquerade ports held by open connections, the third SYN dies at confirm (insert_failed, drop)', async (ctx) => {
    // Open connections (ESTABLISHED) cannot be evicted the way TIME_WAIT ones are (nf_nat_used_tuple_harder), so
    // the third connect finds no free tuple: nf_nat_l4proto_unique_tuple gives up, __nf_conntrack_confirm finds
    // the clash and nf_ct_resolve_clash drops the SYN, counting drop and insert_failed (TCP may not clash).
    const scenario = lesson('tcp-port-exhaustion', { pods: 'bridge', nodes: 'direct', client: true })
      .iptablesRestore('w1', NARROW_TCP_MASQUERADE)
      .ports({
        client: 'diag',
        server: { ns: 'client', ports: [9000] },
        // 1.5 s: the third SYN and its one retransmission (1 s later) both die; the next would be at 2 s.
        actions: [{ kind: 'connect', dst: '172.18.0.100', port: 9000, count: 3, timeoutMs: 1_500 }],
      })
      .observe('w1', 'conntrack', '-S')
      .observe('w1', 'conntrack', '-L', '-p', 'tcp')
      .build();
    // connect()'s source ports and the NAT's pick between 40000 and 40001 are each side's own draw.
    const result = await differential(ctx, scenario, { natPorts: [9000] });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const lines = outputOf(side, 'diag: ports');
      expect(lines.match(/^connect 9000 (even|odd)/gm), side.side).toHaveLength(2);
      expect(lines, side.side).toMatch(/^connect 9000 error/m);
      const stats = outputOf(side, 'w1: conntrack -S');
      expect(stats, side.side).toMatch(/insert_failed=[1-9]\d* drop=[1-9]\d* /);
      // The two that got through, closed at the step's end: their TIME_WAIT entries hold both ports.
      const table = outputOf(side, 'w1: conntrack -L');
      expect(table, side.side).toMatch(/TIME_WAIT .* dport=40000 \[ASSURED\]/);
      expect(table, side.side).toMatch(/TIME_WAIT .* dport=40001 \[ASSURED\]/);
    }
  }, 30_000);
});
