// `dnat to ip daddr map { ... }` and the wall-clock meta keys on packets, on the kernel and on packetlab: a ping to
// an address the map sends to the peer is answered, and time/day/hour matches that hold (or cannot hold) whatever
// the clock says count the same on both sides (the kernel's wall clock and packetlab's virtual one differ).

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const RULESET = `table ip natmap {
  chain output {
    type nat hook output priority -100; policy accept;
    dnat to ip daddr map { 10.0.0.99 : 10.0.0.2 }
  }
  chain input {
    type filter hook input priority filter; policy accept;
    icmp type echo-reply ip saddr 10.0.0.2 counter
    icmp type echo-reply meta time > "2020-01-01" counter
    icmp type echo-reply meta time < "2020-01-01" counter
    icmp type echo-reply meta hour "00:00"-"23:59:59" counter
    icmp type echo-reply meta day { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday" } counter
    icmp type echo-reply meta day != "Monday" meta day "Monday" counter
  }
}
`;

describe('differential: dnat to a map, meta time/day/hour', () => {
  it('answers pings to the mapped address and counts the clock matches alike', async (ctx) => {
    const scenario = twoHosts('nft-time-natmap')
      .nft('a', RULESET)
      .ping('a', '10.0.0.99', { count: 3, interval: 0.2 })
      .observe('a', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const listing = outputOf(result.linux, 'a: nft list ruleset');
    expect(listing).toContain('dnat to ip daddr map { 10.0.0.99 : 10.0.0.2 }');
    expect(listing).toContain('ip saddr 10.0.0.2 counter packets 3 bytes 252');
    expect(listing).toContain('meta time > "2020-01-01 00:00:00" counter packets 3 bytes 252');
    expect(listing).toContain('meta time < "2020-01-01 00:00:00" counter packets 0 bytes 0');
    expect(listing).toContain('meta hour "00:00"-"23:59:59" counter packets 3 bytes 252');
    expect(listing).toContain('meta day != "Monday" meta day "Monday" counter packets 0 bytes 0');
  });
});
