// The incident itself (shared/seeds), on the kernel and on packetlab: a TCP NodePort with its endpoint on the other
// node, reached from outside the cluster. With the offending rule overwriting the mark, kube-proxy's 0x4000 is
// gone by POSTROUTING, MASQUERADE is skipped, and the pod answers the client directly: the client sees a SYN-ACK
// from an address it never called and never connects. With the workaround (or-ing its own bit), it works.

import { describe, expect, it } from 'vitest';
import { INCIDENT_SERVICE, OFFENDING_RULESET } from '../../scenarios/incident.ts';
import { kubeProxyNatRules } from '../../scenarios/kube-proxy-iptables.ts';
import { differential, outputOf } from './harness.ts';
import { lesson } from './topologies.ts';

const TRACE_RULESET = `table inet debug {
  chain trace {
    type filter hook prerouting priority -301;
    tcp dport 30080 meta nftrace set 1
  }
}
`;

/** The offending table with the workaround applied: the rule keeps the other bits of the mark. */
const FIXED_RULESET = OFFENDING_RULESET.replace(
  'meta mark set 0x00010000',
  'meta mark set meta mark or 0x00010000',
);

/** The cluster with kube-proxy's rules and the netbird table on w1; the outside client calls w1's NodePort once. */
function incident(name: string, netbird: string, call: { timeoutMs?: number; payload?: string }) {
  return lesson(name, { pods: 'bridge', nodes: 'direct', client: true })
    .iptablesRestore('w1', kubeProxyNatRules([INCIDENT_SERVICE]))
    .nft('w1', netbird, 'netbird.nft')
    .nft('w1', TRACE_RULESET, 'trace.nft')
    .monitor('w1', 'nft', 'monitor', 'trace')
    .capture('client', 'eth0')
    .capture('remote', 'eth0')
    .tcp({
      client: { ns: 'client', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '172.18.0.2',
      dstPort: 30080,
      ...call,
    })
    .observe('w1', 'conntrack', '-L');
}

describe('differential: the incident', () => {
  it('the shared mark: MASQUERADE skipped, the pod answers the client directly, no connection', async (ctx) => {
    // Shorter than the first SYN retransmission (1 s): one SYN, then the client gives up.
    const scenario = incident('incident-broken', OFFENDING_RULESET, { timeoutMs: 800 }).build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'client: tcp send'), side.side).toContain('timeout connect');
      expect(outputOf(side, 'w1: nft monitor trace'), side.side).toContain('meta mark set 0x00010000');
    }
  }, 30_000);

  it('the workaround: the mark keeps 0x4000, MASQUERADE applies, the echo comes back', async (ctx) => {
    const scenario = incident('incident-fixed', FIXED_RULESET, { payload: 'signalement' }).build();
    const result = await differential(ctx, scenario, { natPorts: [41234, 30080, 8000] });
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab])
      expect(outputOf(side, 'client: tcp send'), side.side).toContain('reply "signalement 1"');
  }, 30_000);
});
