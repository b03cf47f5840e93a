// Tailscale's rules with kube-proxy's on one node, on packetlab (test/shapes/tailscale.ts): a tailnet peer through
// the subnet route and to a NodePort. The two mark layouts are disjoint (0x4000 outside 0xff0000), so each
// component's bit reaches its own rules untouched. The same scenario runs on the kernel in
// test/linux/shapes-tailscale.test.ts.

import { describe, expect, it } from 'vitest';
import { runPacketlab } from '../../src/harness/packetlab-driver.ts';
import { countersOf, failedSetup, marksIn, output, tracePath } from './shapes.ts';
import { TS_FWMARK_MASK, TS_SUBNET_ROUTE_MARK, tailscaleScenario } from './tailscale.ts';

describe('Tailscale (ts-input, ts-forward, ts-postrouting, 0x40000/0xff0000) with kube-proxy', () => {
  const run = runPacketlab(tailscaleScenario());
  const save = output(run, 'w1: iptables-save -c');
  const trace = output(run, 'w1: nft monitor trace');

  it('loads unchanged beside kube-proxy', () => {
    expect(failedSetup(run)).toEqual([]);
    expect(TS_SUBNET_ROUTE_MARK & TS_FWMARK_MASK).toBe(TS_SUBNET_ROUTE_MARK);
    expect(0x4000 & TS_FWMARK_MASK).toBe(0);
  });

  it('subnet route to a pod: ts-forward sets 0x40000 in its byte, ts-postrouting masquerades by it', () => {
    expect(output(run, 'peer: tcp send 0.0.0.0:41234')).toContain('reply "subnet-route 1"');
    expect(output(run, 'remote: tcp echo')).toContain('accept 172.18.0.2:41234');
    const path = tracePath(trace, 41234);
    expect(path).toContain(
      'ip filter ts-forward rule iifname "tailscale0" counter packets 0 bytes 0 meta mark set mark and 0xff00ffff xor 0x40000 (verdict continue)',
    );
    expect(path.at(-1)).toBe(
      'ip nat ts-postrouting rule meta mark & 0x00ff0000 == 0x00040000 counter packets 0 bytes 0 masquerade (verdict accept)',
    );
    expect(marksIn(path.join('\n'))).toEqual([TS_SUBNET_ROUTE_MARK, TS_SUBNET_ROUTE_MARK]);
    expect(countersOf(save, '-A ts-postrouting -m mark --mark 0x40000/0xff0000 -j MASQUERADE')).toBe(
      '[1:60]',
    );
    // kube-proxy's KUBE-POSTROUTING looked at it first and returned: not its bit.
    expect(countersOf(save, '-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN')).toBe('[1:60]');
  });

  it('a NodePort from the tailnet: 0x4000 alone, KUBE-FORWARD accepts before ts-forward, KUBE-POSTROUTING masquerades', () => {
    expect(output(run, 'peer: tcp send 0.0.0.0:41235')).toContain('reply "nodeport 1"');
    const path = tracePath(trace, 41235);
    expect(marksIn(path.join('\n'))).toEqual([0x4000, 0x4000, 0x4000]);
    expect(path.at(-1)).toBe('ip nat KUBE-POSTROUTING unknown rule handle 21 (verdict accept)');
    expect(path.some((line) => line.includes('ts-'))).toBe(false);
    expect(countersOf(save, '-A FORWARD -j ts-forward')).toBe('[1:60]');
  });
});
