// Rule counters on the kernel and on packetlab after a fixed set of packets: an nft ruleset with counters on one
// host (`nft list ruleset`), iptables rules on the other (`iptables-save -c`), then three pings, two UDP datagrams
// answered and one dropped. Every packet and byte count must be the same on both sides; iptables-nft's own tables
// are listed by `nft list ruleset` as well, in nft syntax.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const NFT_RULESET = `table ip harness {
  chain output {
    type filter hook output priority filter; policy accept;
    icmp type echo-request counter
    udp dport 8000 counter
    udp dport 8001 counter
    counter
  }
  chain input {
    type filter hook input priority filter; policy accept;
    icmp type echo-reply counter
    udp sport 8000 counter
    udp sport 8001 counter
  }
}
`;

const IPTABLES_RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT
-A INPUT -p udp -m udp --dport 8000 -j ACCEPT
-A INPUT -p udp -m udp --dport 8001 -j DROP
-A OUTPUT -p udp -m udp --sport 8000 -j ACCEPT
COMMIT
`;

describe('differential: rule counters', () => {
  it('nft list ruleset and iptables-save -c after 3 pings, 2 UDP datagrams answered and 1 dropped', async (ctx) => {
    const scenario = twoHosts('counters')
      .nft('a', NFT_RULESET)
      .iptablesRestore('b', IPTABLES_RULES)
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
      .observe('a', 'nft', 'list', 'ruleset')
      .observe('b', 'iptables-save', '-c', '-t', 'filter')
      .observe('b', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    // Not just equal, but what the traffic says: 3 echo requests of 84 bytes, UDP datagrams of 39.
    expect(outputOf(result.linux, 'a: nft list ruleset')).toContain(
      'icmp type echo-request counter packets 3 bytes 252',
    );
    expect(outputOf(result.linux, 'a: nft list ruleset')).toContain('counter packets 6 bytes 369');
    expect(outputOf(result.linux, 'b: iptables-save')).toContain(
      '[1:39] -A INPUT -p udp -m udp --dport 8001 -j DROP',
    );
  });
});
