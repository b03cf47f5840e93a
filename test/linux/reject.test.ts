// REJECT on the kernel and on packetlab: a filter rule on the server answers UDP with ICMP port unreachable (the
// client's unconnected socket times out, the frames tell the story); the rule's counters are compared too.

import { describe, it } from 'vitest';
import { differential } from './harness.ts';
import { twoHosts } from './topologies.ts';

const RULES = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p udp -m udp --dport 8000 -j REJECT
-A INPUT -p udp -m udp --dport 8001 -j REJECT --reject-with icmp-host-prohibited
COMMIT
`;

describe('differential: REJECT', () => {
  it('icmp-port-unreachable (the default) and icmp-host-prohibited for UDP', async (ctx) => {
    const scenario = twoHosts('reject-udp')
      .iptablesRestore('b', RULES)
      .capture('a', 'veth-a')
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8000 },
        dst: '10.0.0.2',
        count: 1,
        timeoutMs: 300,
      })
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41235 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8001 },
        dst: '10.0.0.2',
        count: 1,
        timeoutMs: 300,
      })
      .observe('b', 'iptables-save', '-c', '-t', 'filter')
      .build();
    await differential(ctx, scenario);
  });
});
