// Calico's felix rules and ipsets with kube-proxy's rules on one node, on packetlab (test/shapes/calico.ts): the
// NodePort to the workload goes through felix's to-workload policy and kube-proxy's KUBE-FORWARD with both marks
// set (0x4000 and felix's accept 0x10000, disjoint bits: felix's clears keep kube-proxy's bit and the masquerade
// happens); the workload's call to the outside is masqueraded by cali-nat-outgoing through the cali40 ipsets. The
// same scenario runs on the kernel in test/linux/shapes-calico.test.ts.

import { describe, expect, it } from 'vitest';
import { runPacketlab } from '../../src/harness/packetlab-driver.ts';
import { CALI_ACCEPT, CALI_SCRATCH0, calicoScenario } from './calico.ts';
import { countersOf, failedSetup, marksIn, output, tracePath } from './shapes.ts';

const C = (id: string) => `-m comment --comment "cali:${id}"`;

describe('Calico felix (cali-* chains in raw, mangle, filter, nat; cali40 ipsets) with kube-proxy', () => {
  const run = runPacketlab(calicoScenario());
  const save = output(run, 'w1: iptables-save -c');
  const trace = output(run, 'w1: nft monitor trace');

  it('loads unchanged beside kube-proxy, and felix puts its hooks back on top', () => {
    expect(failedSetup(run)).toEqual([]);
    const forward = save.split('\n').filter((line) => / -A FORWARD /.test(line));
    expect(forward[0]).toContain('-j cali-FORWARD');
    expect(forward[1]).toContain('-j KUBE-PROXY-FIREWALL');
  });

  it("a NodePort to the workload: to-workload policy marks 0x10000 beside kube-proxy's 0x4000; both survive", () => {
    expect(output(run, 'client: tcp send 0.0.0.0:41234')).toContain('reply "nodeport 1"');
    const path = tracePath(trace, 41234);
    expect(path).toContain(
      'ip filter cali-to-wl-dispatch rule oifname "cali1a2b3c4d5e6"  counter packets 0 bytes 0 goto cali-tw-cali1a2b3c4d5e6 (verdict goto cali-tw-cali1a2b3c4d5e6)',
    );
    expect(path).toContain('ip filter KUBE-FORWARD unknown rule handle 93 (verdict accept)');
    // Raw clears felix's 0xf0000 before DNAT: nothing; the forward hook sees 0x4000, then 0x4000 | 0x10000.
    expect(marksIn(path.join('\n'))).toEqual([0x4000, 0x4000, 0x14000, 0x14000, 0x14000]);
    expect(
      countersOf(
        save,
        `-A cali-pri-kns.default ${C('7Fnh7Pv3_98FtLW7')} -m comment --comment "profile kns.default ingress" -j MARK --set-xmark 0x10000/0x10000`,
      ),
    ).toBe('[1:60]');
    // Masqueraded by kube-proxy: felix's mangle POSTROUTING returned on its accept bit and cleared nothing.
    expect(output(run, 'pod: tcp echo')).toMatch(/^accept 172\.18\.0\.2:\d+$/m);
    expect(
      countersOf(
        save,
        `-A cali-POSTROUTING ${C('NX-7roTexQ3fGRfU')} -m mark --mark 0x10000/0x10000 -j RETURN`,
      ),
    ).toBe('[2:120]');
    expect(
      countersOf(
        save,
        '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
      ),
    ).toBe('[1:60]');
  });

  it('the workload to the outside: from-workload policy, scratch0 from raw, cali-nat-outgoing by the ipsets', () => {
    expect(output(run, 'pod: tcp send 0.0.0.0:41235')).toContain('reply "dehors 1"');
    expect(output(run, 'client: tcp echo')).toMatch(/^accept 172\.18\.0\.2:\d+$/m);
    const path = tracePath(trace, 41235);
    expect(marksIn(path.join('\n'))).toEqual([
      CALI_SCRATCH0,
      CALI_SCRATCH0,
      CALI_SCRATCH0,
      CALI_SCRATCH0,
      CALI_SCRATCH0,
      CALI_ACCEPT,
      CALI_ACCEPT,
      CALI_ACCEPT,
    ]);
    expect(path).toContain(
      'ip filter FORWARD rule   meta mark & 0x00010000 == 0x00010000 counter packets 0 bytes 0 accept (verdict accept)',
    );
    expect(path.at(-1)).toBe(
      'ip nat cali-nat-outgoing rule  xt match set xt match set counter packets 0 bytes 0 masquerade fully-random (verdict accept)',
    );
    expect(
      countersOf(
        save,
        `-A cali-nat-outgoing ${C('flqWnvo8yq4ULQLa')} -m set --match-set cali40masq-ipam-pools src -m set ! --match-set cali40all-ipam-pools dst -j MASQUERADE --random-fully`,
      ),
    ).toBe('[1:60]');
  });

  it('the probe counts where the bits stood: 0x4000 on the NodePort only, 0x10000 on both, scratch0 cleared by cali-FORWARD', () => {
    const probe = output(run, 'w1: nft list table inet probe');
    const forward = probe.slice(probe.indexOf('chain forward'), probe.indexOf('chain postrouting'));
    expect(forward).toContain('meta mark & 0x00004000 == 0x00004000 counter packets 1 bytes 60');
    expect(forward).toContain('meta mark & 0x00010000 == 0x00010000 counter packets 2 bytes 120');
    expect(forward).toContain('meta mark & 0x00040000 == 0x00040000 counter packets 0 bytes 0');
  });
});
