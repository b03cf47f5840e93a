// nft sets on the packet path, on the kernel and on packetlab: a dynamic set with a concatenated key filled by
// `update @set { ip saddr . udp dport counter }` (nft_dynset, per-element counters), lookups that count on a set
// with `counter`, a concatenated set lookup, `delete @set` from the packet path, and a verdict map deciding the
// datagrams. Counters, `nft list set` and `nft list ruleset` must be the same on both sides.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const RULESET = `table ip harness {
  set seen { type ipv4_addr . inet_service; flags dynamic; }
  set hits { type ipv4_addr; counter; elements = { 10.0.0.1, 10.0.0.9 } }
  set pairs { type ipv4_addr . inet_service; elements = { 10.0.0.1 . 8000, 10.0.0.1 . 9 } }
  set gone { type ipv4_addr; flags dynamic; elements = { 10.0.0.1, 10.0.0.7 } }
  map ports { type inet_service : verdict; elements = { 8000 : accept, 8001 : drop } }
  chain input {
    type filter hook input priority filter; policy accept;
    udp dport 8000-8001 update @seen { ip saddr . udp dport counter }
    udp dport 8000-8001 ip saddr @hits
    ip saddr . udp dport @pairs counter
    udp dport 8001 delete @gone { ip saddr }
    udp dport vmap @ports
  }
}
`;

describe('differential: nft sets on the packet path', () => {
  it('dynset with a concatenated key and counters, counted lookups, delete @set, a verdict map', async (ctx) => {
    const scenario = twoHosts('nft-sets')
      .nft('b', RULESET)
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41234 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8000 },
        dst: '10.0.0.2',
        count: 3,
      })
      .udp({
        client: { ns: 'a', bind: '0.0.0.0', port: 41235 },
        server: { ns: 'b', bind: '0.0.0.0', port: 8001 },
        dst: '10.0.0.2',
        count: 2,
        timeoutMs: 300,
      })
      .observe('b', 'nft', 'list', 'set', 'ip', 'harness', 'seen')
      .observe('b', 'nft', 'list', 'ruleset')
      .observe('b', 'nft', '-s', 'list', 'set', 'ip', 'harness', 'hits')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    // Not just equal, but what the traffic says: 3 datagrams of 39 bytes to 8000, 2 to 8001.
    const listing = outputOf(result.linux, 'b: nft list ruleset');
    expect(listing).toContain('10.0.0.1 . 8000 counter packets 3 bytes 117');
    expect(listing).toContain('10.0.0.1 . 8001 counter packets 2 bytes 78');
    expect(listing).toContain('10.0.0.1 counter packets 5 bytes 195, 10.0.0.9 counter packets 0 bytes 0');
    expect(listing).toContain('ip saddr . udp dport @pairs counter packets 3 bytes 117');
    expect(listing).toContain('elements = { 10.0.0.7 }');
    expect(outputOf(result.linux, 'b: nft -s list set')).toContain('10.0.0.1 counter, 10.0.0.9 counter');
  });
});
