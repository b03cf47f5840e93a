// Netbird's nftables table with kube-proxy's rules on one node, on packetlab (test/shapes/netbird.ts): the seeds'
// lesson in one node. Netbird writes and tests the whole 32-bit mark, kube-proxy ors 0x4000 into it in between: the
// NodePort kube-proxy does not mark passes Netbird's redirected-traffic rule, the one it marks (0x1bd01 | 0x4000 =
// 0x1fd01) misses it and is dropped. The same scenario runs on the kernel in test/linux/shapes-netbird.test.ts.

import { describe, expect, it } from 'vitest';
import { runPacketlab } from '../../src/harness/packetlab-driver.ts';
import { NB_REDIRECTED, netbirdScenario } from './netbird.ts';
import { countersOf, failedSetup, KUBE_MASQ_MARK, marksIn, output, tracePath } from './shapes.ts';

describe('Netbird (table ip netbird, marks 0x1bd01/0x1bd11/0x1bd12) with kube-proxy', () => {
  const run = runPacketlab(netbirdScenario());
  const trace = output(run, 'w1: nft monitor trace');
  const save = output(run, 'w1: iptables-save -c');

  it('loads unchanged beside kube-proxy', () => {
    expect(failedSetup(run)).toEqual([]);
    expect(NB_REDIRECTED & KUBE_MASQ_MARK).toBe(0);
  });

  it('no collision: externalTrafficPolicy Local is not marked, 0x1bd01 reaches the peer ACL, accepted', () => {
    expect(output(run, 'peer: tcp send 0.0.0.0:41234')).toContain('reply "local 1"');
    expect(output(run, 'local: tcp echo')).toContain('accept 100.92.0.2:41234');
    const path = tracePath(trace, 41234);
    expect(path).toContain(
      'ip netbird netbird-acl-prerouting-filter rule iifname "wt0" fib daddr type local meta mark set 0x0001bd01 (verdict continue)',
    );
    expect(path).toContain(
      'ip netbird netbird-acl-forward-filter rule meta mark 0x0001bd01 jump netbird-acl-input-rules (verdict jump netbird-acl-input-rules)',
    );
    expect(path).toContain(
      'ip netbird netbird-acl-input-rules rule ip saddr 100.92.0.0/16 accept (verdict accept)',
    );
    expect(new Set(marksIn(path.join('\n')))).toEqual(new Set([NB_REDIRECTED]));
  });

  it('the collision: kube-proxy ors 0x4000 into 0x1bd01, netbird\'s exact test misses, iifname "wt0" drop', () => {
    expect(output(run, 'peer: tcp send 0.0.0.0:41235')).toContain('timeout connect');
    const path = tracePath(trace, 41235);
    expect(marksIn(path.join('\n'))).toEqual([NB_REDIRECTED, NB_REDIRECTED | KUBE_MASQ_MARK]);
    expect(path).toContain('ip filter KUBE-FORWARD unknown rule handle 24 (verdict accept)');
    expect(path.at(-1)).toBe('ip netbird netbird-acl-forward-filter rule iifname "wt0" drop (verdict drop)');
    expect(path.some((line) => line.includes('jump netbird-acl-input-rules'))).toBe(false);
    // kube-proxy did its part: marked, DNATed, accepted in its own FORWARD; the verdict of netbird's chain wins.
    expect(countersOf(save, '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000')).toBe('[1:60]');
    const probe = output(run, 'w1: nft list table inet probe');
    const prefilter = probe.slice(probe.indexOf('chain prefilter'), probe.indexOf('chain forward'));
    expect(prefilter).toContain('meta mark & 0x00004000 == 0x00004000 counter packets 1 bytes 60');
  });
});
