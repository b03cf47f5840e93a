// The stateful and computed nft expressions on packets, on the kernel and on packetlab: quota and limit (a token
// bucket on time), numgen inc, jhash with a given seed (its value must be the kernel's), and the meta keys a ping
// shows (skuid on output, iiftype and iifkind on input). Five pings, 0.2 s apart; every counter must match.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const RULESET = `table ip stateful {
  chain output {
    type filter hook output priority filter; policy accept;
    icmp type echo-request quota 200 bytes counter
    icmp type echo-request quota over 200 bytes counter
    icmp type echo-request limit rate 1/second burst 2 packets counter
    icmp type echo-request limit rate over 1/second burst 2 packets counter
    icmp type echo-request numgen inc mod 2 0 counter
    icmp type echo-request meta skuid 0 counter
    jhash ip saddr . ip daddr mod 8 seed 0x1 == 0 counter
    jhash ip saddr . ip daddr mod 8 seed 0x1 == 1 counter
    jhash ip saddr . ip daddr mod 8 seed 0x1 == 2 counter
    jhash ip saddr . ip daddr mod 8 seed 0x1 == 3 counter
    jhash ip saddr . ip daddr mod 8 seed 0x1 == 4 counter
    jhash ip saddr . ip daddr mod 8 seed 0x1 == 5 counter
    jhash ip saddr . ip daddr mod 8 seed 0x1 == 6 counter
    jhash ip saddr . ip daddr mod 8 seed 0x1 == 7 counter
  }
  chain input {
    type filter hook input priority filter; policy accept;
    icmp type echo-reply meta iiftype ether meta iifkind "veth" counter
    icmp type echo-reply meta iiftype loopback counter
  }
}
`;

describe('differential: quota, limit, numgen, jhash and meta keys on packets', () => {
  it('counts five pings the same on both sides', async (ctx) => {
    const scenario = twoHosts('nft-stateful')
      .nft('a', RULESET)
      .ping('a', '10.0.0.2', { count: 5, interval: 0.2 })
      .observe('a', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const listing = outputOf(result.linux, 'a: nft list ruleset');
    // Two echo requests of 84 bytes fit in 200 bytes; what it used lists capped at the quota.
    expect(listing).toContain(
      'icmp type echo-request quota 200 bytes used 200 bytes counter packets 2 bytes 168',
    );
    // A burst of two, then one packet a second: the three after 0.2 s, 0.4 s... are over.
    expect(listing).toContain('limit rate 1/second burst 2 packets counter packets 2 bytes 168');
    expect(listing).toContain('numgen inc mod 2 0 counter packets 3 bytes 252');
    expect(listing).toContain('meta skuid 0 counter packets 5 bytes 420');
  });
});
