// Calico and Tailscale on one node, on packetlab (test/shapes/calico-tailscale.ts): with felix's default mask the two
// agents' masks overlap (0xf0000 inside 0xff0000) and each clears the other's bit: tailscale's masquerade is lost
// and the workload sees the tailnet peer's address. With felix's mask moved to 0xff000000 the bits are disjoint and
// both survive to POSTROUTING. The same scenarios run on the kernel in test/linux/shapes-calico-tailscale.test.ts.

import { describe, expect, it } from 'vitest';
import { runPacketlab } from '../../src/harness/packetlab-driver.ts';
import { CALICO_DISJOINT_FIXTURE, calicoTailscaleScenario } from './calico-tailscale.ts';
import { countersOf, failedSetup, marksIn, output, tracePath } from './shapes.ts';

const TS_MASQUERADE = '-A ts-postrouting -m mark --mark 0x40000/0xff0000 -j MASQUERADE';

describe('Calico and Tailscale: a shared mark byte', () => {
  it("felix default mask: ts-forward rewrites felix's accept bit, felix then clears 0x40000, no masquerade", () => {
    const run = runPacketlab(calicoTailscaleScenario('shapes-calico-tailscale', 'calico.iptables-save'));
    expect(failedSetup(run)).toEqual([]);
    expect(output(run, 'peer: tcp send')).toContain('reply "subnet-route 1"');
    expect(output(run, 'pod: tcp echo')).toContain('accept 100.101.0.2:41234');
    const path = tracePath(output(run, 'w1: nft monitor trace'), 41234);
    // felix sets 0x10000 (not printed: a continue), ts-forward leaves 0x40000 alone in its byte, felix's mangle clears it.
    expect(path).toContain(
      'ip filter cali-pri-kns.default rule   counter packets 0 bytes 0 meta mark set mark or 0x10000 (verdict continue)',
    );
    expect(marksIn(path.join('\n'))).toEqual([0x40000]);
    expect(path).toContain(
      'ip mangle cali-POSTROUTING rule  counter packets 0 bytes 0 meta mark set mark and 0xfff0ffff (verdict continue)',
    );
    expect(path.at(-1)).toBe('ip nat POSTROUTING policy accept');
    const save = output(run, 'w1: iptables-save -c');
    expect(countersOf(save, TS_MASQUERADE)).toBe('[0:0]');
  });

  it('felix with IptablesMarkMask 0xff000000: disjoint bits, both survive, tailscale masquerades', () => {
    const run = runPacketlab(
      calicoTailscaleScenario('shapes-calico-tailscale-disjoint', CALICO_DISJOINT_FIXTURE),
    );
    expect(failedSetup(run)).toEqual([]);
    expect(output(run, 'pod: tcp echo')).toContain('accept 172.18.0.2:41234');
    const path = tracePath(output(run, 'w1: nft monitor trace'), 41234);
    expect(marksIn(path.join('\n'))).toEqual([0x1040000, 0x1040000, 0x1040000]);
    expect(path.at(-1)).toBe('ip nat ts-postrouting unknown rule handle 34 (verdict accept)');
    expect(countersOf(output(run, 'w1: iptables-save -c'), TS_MASQUERADE)).toBe('[1:60]');
  });
});
