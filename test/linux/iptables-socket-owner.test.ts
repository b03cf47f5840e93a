// The issue-12 extensions where packets show them, on the kernel and on packetlab: -m socket (a listener on 0.0.0.0
// ignored unless --nowildcard, established connections matched), -m owner on b's answers (its TCP socket's uid 0,
// the ICMP echo replies), TCPMSS lowering a's SYN's MSS (the captured SYN compared field by field, its
// checksum valid; b's echo replies come from the kernel's ICMP socket, which exists but has no file), CONNMARK --restore-mark/--save-mark with masks (conntrack's mark), and a physdev match on a
// bridge between them; the same counters, conntrack entries and frames on both sides.

import { describe, expect, it } from 'vitest';
import { ScenarioBuilder } from '../../src/harness/scenario.ts';
import { differential, outputOf } from './harness.ts';

const A_RULES = `*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A POSTROUTING -p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 1000
COMMIT
`;

const B_RULES = `*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -p tcp -j CONNMARK --restore-mark --nfmask 0xff00 --ctmask 0xff00
-A PREROUTING -p tcp -m mark --mark 0x0/0xff00 -j MARK --set-xmark 0x1200/0xff00
-A PREROUTING -p tcp -j CONNMARK --save-mark --nfmask 0xff00 --ctmask 0xff00
-A PREROUTING -p tcp -m connmark --mark 0x1200/0xff00 -m socket
-A PREROUTING -p tcp -m socket --nowildcard
COMMIT
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m socket
-A INPUT -p tcp -m socket --nowildcard
-A OUTPUT -p tcp -m owner --uid-owner 0 --gid-owner 0
-A OUTPUT -p tcp -m owner ! --uid-owner 0
-A OUTPUT -p icmp -m owner --socket-exists
-A OUTPUT -p icmp -m owner ! --socket-exists
-A OUTPUT -p icmp -m owner --uid-owner 0
COMMIT
`;

/** The bridge's namespace br between a and b, with br_netfilter's FORWARD counting the ports. */
const BR_RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A FORWARD -m physdev --physdev-in port-a --physdev-out port-b
-A FORWARD -m physdev --physdev-in port-b --physdev-is-bridged
-A FORWARD -m physdev ! --physdev-is-bridged
-A FORWARD -m physdev --physdev-out port-+
COMMIT
`;

function scenario() {
  return new ScenarioBuilder('iptables-socket-owner')
    .namespace('a')
    .namespace('b')
    .namespace('br')
    .bridge('br', 'br0')
    .up('br', 'br0')
    .veth('a', 'eth0', 'br', 'port-a')
    .veth('b', 'eth0', 'br', 'port-b')
    .master('br', 'port-a', 'br0')
    .master('br', 'port-b', 'br0')
    .up('br', 'port-a', 'port-b')
    .addr('a', '10.0.0.1/24', 'eth0')
    .addr('b', '10.0.0.2/24', 'eth0')
    .up('a', 'eth0')
    .up('b', 'eth0')
    .iptablesRestore('a', A_RULES)
    .iptablesRestore('b', B_RULES)
    .iptablesRestore('br', BR_RULES)
    .capture('b', 'eth0')
    .ping('a', '10.0.0.2', { count: 2, interval: 0.2 })
    .tcp({
      client: { ns: 'a', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'b', bind: '0.0.0.0', port: 8000 },
      dst: '10.0.0.2',
      count: 2,
    })
    .observe('b', 'iptables-save', '-c')
    .observe('a', 'iptables-save', '-c', '-t', 'mangle')
    .observe('br', 'iptables-save', '-c', '-t', 'filter')
    .observe('b', 'conntrack', '-L', '-p', 'tcp')
    .build();
}

describe('differential: socket, owner, TCPMSS, CONNMARK and physdev on packets', () => {
  it('counters, conntrack marks and the SYN with its lowered MSS', async (ctx) => {
    const result = await differential(ctx, scenario());
    if (result === undefined) return;
    for (const side of [result.linux, result.packetlab]) {
      expect(outputOf(side, 'b: conntrack -L'), side.side).toContain('mark=4608');
      const b = outputOf(side, 'b: iptables-save');
      expect(b, side.side).toContain('[2:168] -A OUTPUT -p icmp -m owner --socket-exists');
      expect(b, side.side).toContain('[0:0] -A OUTPUT -p icmp -m owner --uid-owner 0');
      expect(b, side.side).toContain('[0:0] -A OUTPUT -p tcp -m owner ! --uid-owner 0');
      expect(outputOf(side, 'br: iptables-save'), side.side).toContain(
        '[0:0] -A FORWARD -m physdev ! --physdev-is-bridged',
      );
    }
  }, 60_000);
});
