// The issue-12 iptables extensions on real packets, on the kernel and on packetlab: a ruleset restored with
// `:INPUT - [0:0]` (kube-proxy's form), limit's burst, NFQUEUE with no listener (dropped; accepted with
// --queue-bypass), NFLOG going on, u32, connlimit, policy, ecn and tos matches, rpfilter in raw PREROUTING, and
// the DSCP target rewriting the replies (the capture compares the TOS byte and the header checksum).

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const RULES = `*raw
:PREROUTING - [0:0]
:OUTPUT ACCEPT [0:0]
-A PREROUTING -m rpfilter --invert -j DROP
-A PREROUTING -m rpfilter
COMMIT
*mangle
:PREROUTING ACCEPT [0:0]
:OUTPUT - [0:0]
-A PREROUTING -m tos --tos 0x00/0xff
-A PREROUTING -p udp -m ecn --ecn-ip-ect 0
-A OUTPUT -p udp -j DSCP --set-dscp-class AF41
COMMIT
*filter
:INPUT - [0:0]
:FORWARD - [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p icmp -m limit --limit 1/min --limit-burst 2 -j ACCEPT
-A INPUT -p icmp -j NFQUEUE --queue-num 3
-A INPUT -p udp -m policy --dir in --pol none -j NFLOG --nflog-group 5
-A INPUT -p udp -m connlimit --connlimit-upto 0 -j DROP
-A INPUT -p udp -m u32 --u32 "0>>22&0x3C@0&0xFFFF=8001" -j NFQUEUE --queue-num 1
-A INPUT -p udp -m u32 --u32 "0>>22&0x3C@0&0xFFFF=8000" -j NFQUEUE --queue-num 2 --queue-bypass
COMMIT
`;

describe('differential: iptables extensions on packets', () => {
  it('limit, NFQUEUE, NFLOG, u32, connlimit, policy, ecn, tos, rpfilter and DSCP: counters and frames', async (ctx) => {
    const scenario = twoHosts('iptables-extensions')
      .iptablesRestore('b', RULES)
      .capture('a', 'veth-a', { filter: 'udp' })
      .ping('a', '10.0.0.2', { count: 3, interval: 0.2 })
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8000 },
        dst: '10.0.0.2',
        count: 2,
      })
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41235 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8001 },
        dst: '10.0.0.2',
        count: 1,
        timeoutMs: 300,
      })
      .observe('b', 'iptables-save', '-c')
      .observe('b', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const saved = outputOf(result.linux, 'b: iptables-save');
    // Two echo requests within the burst, the third queued to nobody and dropped.
    expect(saved).toContain('[2:168] -A INPUT -p icmp -m limit --limit 1/min --limit-burst 2 -j ACCEPT');
    expect(saved).toContain('[1:84] -A INPUT -p icmp -j NFQUEUE --queue-num 3');
    // Datagrams to 8000 pass by the bypass and are answered with DSCP AF41; the one to 8001 is dropped.
    expect(saved).toContain('[2:78] -A INPUT -p udp -m u32 --u32 "0x0>>0x16&0x3c@0x0&0xffff=0x1f40"');
    expect(saved).toContain('[1:39] -A INPUT -p udp -m u32 --u32 "0x0>>0x16&0x3c@0x0&0xffff=0x1f41"');
  });
});
