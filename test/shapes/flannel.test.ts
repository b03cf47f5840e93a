// Flannel's rules with kube-proxy's nftables mode on one node, on packetlab (test/shapes/flannel.ts): which
// component masquerades which call, and where kube-proxy's 0x4000 bit meets FLANNEL-POSTRTG. The same scenarios run
// on the kernel in test/linux/shapes-flannel.test.ts.

import { describe, expect, it } from 'vitest';
import { runPacketlab } from '../../src/harness/packetlab-driver.ts';
import { flannelScenario } from './flannel.ts';
import { countersOf, failedSetup, marksIn, output, tracePath } from './shapes.ts';

const RETURN_MARKED =
  '-A FLANNEL-POSTRTG -m mark --mark 0x4000/0x4000 -m comment --comment "flanneld masq" -j RETURN';
const JUMP = '-A POSTROUTING -m comment --comment "flanneld masq" -j FLANNEL-POSTRTG';

describe('Flannel (FLANNEL-FWD, FLANNEL-POSTRTG) with kube-proxy in nftables mode', () => {
  const run = runPacketlab(flannelScenario());
  const save = output(run, 'w1: iptables-save -c');
  const trace = output(run, 'w1: nft monitor trace');

  it('loads unchanged after kube-proxy: every command succeeds', () => {
    expect(failedSetup(run)).toEqual([]);
  });

  it('a NodePort: FLANNEL-POSTRTG sees the 0x4000 bit and returns, kube-proxy masquerades after it', () => {
    expect(output(run, 'client: tcp send 0.0.0.0:41234')).toContain('reply "nodeport 1"');
    expect(output(run, 'remote: tcp echo')).toMatch(/^accept 172\.18\.0\.2:\d+$/m);
    const path = tracePath(trace, 41234);
    const flannelReturn = path.indexOf('ip nat FLANNEL-POSTRTG unknown rule handle 7 (verdict return)');
    const kubeMasquerade = path.indexOf('ip kube-proxy masquerading unknown rule handle 38 (verdict accept)');
    expect(flannelReturn).toBeGreaterThan(0);
    expect(kubeMasquerade).toBeGreaterThan(flannelReturn);
    expect(path).toContain('ip filter FLANNEL-FWD unknown rule handle 7 (verdict accept)');
    expect(new Set(marksIn(path.join('\n')))).toEqual(new Set([0x4000]));
    expect(countersOf(save, RETURN_MARKED)).toBe('[1:60]');
  });

  it('a pod to a ClusterIP: pod to pod after the DNAT, flannel returns it unmasqueraded', () => {
    expect(output(run, 'remote: tcp echo 0.0.0.0:8000')).toContain('accept 172.18.0.2:');
    const echoes = run.traffic.filter((o) => o.label === 'remote: tcp echo 0.0.0.0:8000');
    expect(echoes[1]?.stdout).toContain('accept 10.244.1.5:41235');
    expect(
      countersOf(
        save,
        '-A FLANNEL-POSTRTG -s 10.244.1.0/24 -d 10.244.0.0/16 -m comment --comment "flanneld masq" -j RETURN',
      ),
    ).toBe('[1:60]');
  });

  it('a pod to the outside: flannel masquerades it with --random-fully', () => {
    expect(output(run, 'client: tcp echo')).toMatch(/^accept 172\.18\.0\.2:\d+$/m);
    expect(
      countersOf(
        save,
        '-A FLANNEL-POSTRTG -s 10.244.0.0/16 ! -d 224.0.0.0/4 -m comment --comment "flanneld masq" -j MASQUERADE --random-fully',
      ),
    ).toBe('[1:60]');
    expect(countersOf(save, JUMP)).toBe('[3:180]');
  });

  it('loaded before kube-proxy instead: kube-proxy masquerades first and FLANNEL-POSTRTG never sees the NodePort', () => {
    const first = runPacketlab(flannelScenario('shapes-flannel-first', true));
    const firstSave = output(first, 'w1: iptables-save -c');
    expect(output(first, 'client: tcp send 0.0.0.0:41234')).toContain('reply "nodeport 1"');
    expect(countersOf(firstSave, RETURN_MARKED)).toBe('[0:0]');
    expect(countersOf(firstSave, JUMP)).toBe('[2:120]');
    expect(tracePath(output(first, 'w1: nft monitor trace'), 41234).at(-1)).toBe(
      'ip kube-proxy masquerading unknown rule handle 38 (verdict accept)',
    );
  });
});
