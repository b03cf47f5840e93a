// The VXLAN MTU trio on the kernel and on packetlab: the largest DF ping that crosses a flannel-style tunnel
// (1422), one byte more failing locally ("message too long, mtu=1450"), and a pod whose MTU was left at 1500
// getting "Frag needed and DF set (mtu = 1450)" from its node, then failing locally once the path MTU is learned;
// and without DF, fragments cut again by the node to fit the tunnel (ip_fragment of a fragment).

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { lesson } from './topologies.ts';

/** A node that drops the "fragmentation needed" it emits (icmp_send goes out through LOCAL_OUT): a black hole. */
const DROP_FRAG_NEEDED = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A OUTPUT -p icmp -m icmp --icmp-type 3/4 -j DROP
COMMIT
`;

describe('differential: MTU across VXLAN', () => {
  it('-s 1422 crosses (a 1514-byte outer frame), -s 1423 fails with "message too long, mtu=1450"', async (ctx) => {
    const scenario = lesson('vxlan-mtu', { pods: 'bridge', nodes: 'vxlan' })
      .capture('diag', 'eth0')
      .capture('w1', 'eth0')
      .ping('diag', '10.244.2.7', { size: 1422, df: true })
      .ping('diag', '10.244.2.7', { size: 1423, df: true })
      .observe('diag', 'ip', 'route', 'get', '10.244.2.7')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'diag: ping -n -c 1 -s 1423')).toContain(
      'ping: local error: message too long, mtu=1450',
    );
    const outer = result.linux.captures.find((c) => c.label === 'w1/eth0')!;
    expect(outer.frames.map((frame) => frame.length)).toContain(1514);
  });

  it('pod MTU 1500: the node answers frag needed (mtu = 1450), and the pod then knows the path MTU', async (ctx) => {
    const scenario = lesson('pod-mtu-1500', { pods: 'bridge', nodes: 'vxlan', podMtu: 1500 })
      .capture('diag', 'eth0')
      .ping('diag', '10.244.2.7', { size: 1472, df: true })
      .ping('diag', '10.244.2.7', { size: 1472, df: true })
      .observe('diag', 'ip', 'route', 'get', '10.244.2.7')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'diag: ping')).toContain(
      'From 10.244.1.1 icmp_seq=1 Frag needed and DF set (mtu = 1450)',
    );
  });

  it('pod MTU 1500 without DF: the pod fragments at 1500, the node cuts the first fragment again for the tunnel', async (ctx) => {
    const scenario = lesson('refragment', { pods: 'bridge', nodes: 'vxlan', podMtu: 1500 })
      .capture('diag', 'eth0')
      .capture('w1', 'flannel.1')
      .capture('remote', 'eth0')
      .ping('diag', '10.244.2.7', { size: 2000, df: false })
      .observe('w1', 'ip', '-s', 'link', 'show', 'dev', 'flannel.1')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'diag: ping')).toContain('2008 bytes from 10.244.2.7');
    const tunnel = result.linux.captures.find((c) => c.label === 'w1/flannel.1')!;
    // diag's first fragment (1514 on the wire) does not fit flannel.1's 1450: the node cuts it in two.
    expect(tunnel.frames.length).toBeGreaterThanOrEqual(3);
  });

  it('pod MTU 1500 and the node dropping its frag-needed in OUTPUT: 1472 is lost without a word, 1422 passes', async (ctx) => {
    const scenario = lesson('frag-needed-dropped', { pods: 'bridge', nodes: 'vxlan', podMtu: 1500 })
      .iptablesRestore('w1', DROP_FRAG_NEEDED)
      .capture('diag', 'eth0')
      .ping('diag', '10.244.2.7', { size: 1472, df: true, wait: 1 })
      .ping('diag', '10.244.2.7', { size: 1422, df: true })
      .observe('w1', 'iptables-save', '-c', '-t', 'filter')
      .observe('diag', 'ip', 'route', 'get', '10.244.2.7')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      const lost = outputOf(side, 'diag: ping -n -c 1 -s 1472');
      expect(lost, side.side).toContain('1 packets transmitted, 0 received, 100% packet loss');
      expect(lost, side.side).not.toContain('From ');
      expect(outputOf(side, 'diag: ping -n -c 1 -s 1422'), side.side).toContain('1430 bytes from 10.244.2.7');
      // The node did make the error: the DROP rule counted it.
      expect(outputOf(side, 'w1: iptables-save'), side.side).toContain(
        '[1:576] -A OUTPUT -p icmp -m icmp --icmp-type 3/4 -j DROP',
      );
    }
  });
});
