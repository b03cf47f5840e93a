// kube-proxy's nftables mode on the kernel and on packetlab: the ruleset its proxier (pkg/proxy/nftables) installs
// for one TCP Service with one endpoint on the other node, loaded as the `nft -f` transaction knftables writes, then
// a pod calling the ClusterIP (frames, `nft list ruleset` with counters, `conntrack -L`), the same call under
// `nft monitor trace`, and an outside client calling the NodePort, which kube-proxy masquerades (fully random).

import { describe, expect, it } from 'vitest';
import { kubeProxyNftRuleset, type NftService } from '../../scenarios/kube-proxy-nftables.ts';
import { differential, outputOf } from './harness.ts';
import { lesson } from './topologies.ts';

/** A Service with one endpoint, so the kernel's `numgen random` choice cannot differ. */
const SERVICE: NftService = {
  namespace: 'default',
  name: 'signalements',
  portName: 'http',
  protocol: 'tcp',
  clusterIp: '10.96.40.12',
  port: 80,
  nodePort: 30080,
  endpoint: { ip: '10.244.2.7', port: 8000 },
  clusterCidr: '10.244.0.0/16',
  serviceCidr: '10.96.0.0/16',
};

const TRACE_RULESET = `table ip debug {
  chain trace {
    type filter hook prerouting priority -301;
    ip daddr ${SERVICE.clusterIp} meta nftrace set 1
  }
}
`;

/** The NodePort's packets from outside, traced from before kube-proxy's chains. */
const NODEPORT_TRACE_RULESET = `table ip debug {
  chain trace {
    type filter hook prerouting priority -301;
    ip daddr 172.18.0.2 tcp dport ${SERVICE.nodePort} meta nftrace set 1
  }
}
`;

const CALL = {
  client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
  server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
  dst: SERVICE.clusterIp,
  dstPort: SERVICE.port,
  count: 2,
  payload: 'GET /sante',
} as const;

describe('differential: kube-proxy nftables mode', () => {
  it('a pod calls a TCP ClusterIP: DNAT to the other node, rule counters, conntrack -L', async (ctx) => {
    const scenario = lesson('kp-nft-clusterip', { pods: 'bridge', nodes: 'vxlan' })
      .nft('w1', kubeProxyNftRuleset(SERVICE, { counters: true }), 'kube-proxy.nft')
      // kube-proxy restarted: its first sync again, over its own table (base chains with rules deleted and made
      // again, every other chain flushed, the maps refilled).
      .nft('w1', kubeProxyNftRuleset(SERVICE, { counters: true }), 'kube-proxy.nft')
      .capture('diag', 'eth0')
      .capture('w1', 'eth0')
      .tcp(CALL)
      .observe('w1', 'nft', 'list', 'ruleset')
      .observe('w1', 'conntrack', '-L')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'remote: tcp echo')).toContain('accept 10.244.1.5:41234');
    // Not just equal, but what the call says: nat chains see only the SYN (60 bytes), the filter chains' `ct state
    // new` rules too, and the pod's source is in the cluster CIDR, so nothing is marked for masquerade.
    const ruleset = outputOf(result.linux, 'w1: nft list ruleset');
    expect(ruleset).toContain('counter packets 1 bytes 60 dnat to 10.244.2.7:8000');
    expect(ruleset).toContain('meta mark set meta mark | 0x00004000');
    expect(ruleset).toMatch(/mark-for-masquerade \{\n\t\tcounter packets 0 bytes 0 /);
  });

  it('the same call under nft monitor trace', async (ctx) => {
    const scenario = lesson('kp-nft-trace', { pods: 'bridge', nodes: 'vxlan' })
      .nft('w1', kubeProxyNftRuleset(SERVICE, { counters: false }), 'kube-proxy.nft')
      .nft('w1', TRACE_RULESET, 'trace.nft')
      .monitor('w1', 'nft', 'monitor', 'trace')
      .tcp(CALL)
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'w1: nft monitor trace')).toContain('dnat to 10.244.2.7:8000');
  });

  it('an outside client calls the NodePort: masquerade fully-random to the pod on the other node', async (ctx) => {
    const scenario = lesson('kp-nft-nodeport', { pods: 'bridge', nodes: 'vxlan', client: true })
      .nft('w1', kubeProxyNftRuleset(SERVICE, { counters: true }), 'kube-proxy.nft')
      .nft('w1', NODEPORT_TRACE_RULESET, 'trace.nft')
      .monitor('w1', 'nft', 'monitor', 'trace')
      // On w1's eth0 the client's frames and the tunnel's interleave, and the order of the pod's ACK and its echo
      // there depends on the echo server's reaction time (microseconds on Linux, none in virtual time), not on the
      // stack: each side of the NodePort is captured apart, the outside one on eth0, the tunnel on flannel.1.
      .capture('client', 'eth0')
      .capture('w1', 'eth0', { filter: 'tcp port 30080' })
      .capture('w1', 'flannel.1')
      .tcp({
        client: { ns: 'client', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
        dst: '172.18.0.2',
        dstPort: SERVICE.nodePort!,
        count: 2,
        payload: 'GET /sante',
      })
      .observe('w1', 'nft', 'list', 'ruleset')
      .observe('w1', 'conntrack', '-L')
      .build();
    const result = await differential(ctx, scenario, { natPorts: [41234, SERVICE.nodePort!, 8000] });
    if (result === undefined) return;
    // The pod sees the call from w1's flannel.1 address, on a port masquerade fully-random drew.
    for (const side of [result.linux, result.packetlab]) {
      const accepted = /^accept 10\.244\.1\.0:(\d+)$/m.exec(outputOf(side, 'remote: tcp echo'));
      const port = Number(accepted?.[1]);
      expect(port, side.side).toBeGreaterThanOrEqual(1024);
      expect(port, side.side).toBeLessThanOrEqual(65535);
      expect(port, side.side).not.toBe(41234);
      expect(outputOf(side, 'client: tcp send'), side.side).toContain('reply "GET /sante 2"');
    }
  });
});
