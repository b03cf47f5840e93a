// Policy routing on the kernel and on packetlab: a fwmark rule sends marked traffic (ping -m) through a second
// table and a second link; unmarked traffic keeps the main table. `ip rule` and `ip route get ... mark` too.

import { describe, it } from 'vitest';
import { differential } from './harness.ts';
import { twoHosts } from './topologies.ts';

describe('differential: policy routing', () => {
  it('fwmark 0x10 looks up table 100, which leaves by the second link', async (ctx) => {
    const scenario = twoHosts('fwmark-rule')
      .veth('a', 'veth-c', 'b', 'veth-d')
      .addr('a', '10.0.1.1/24', 'veth-c')
      .addr('b', '10.0.1.2/24', 'veth-d')
      .up('a', 'veth-c')
      .up('b', 'veth-d')
      .addr('b', '10.9.9.9/32', 'lo')
      .route('a', 'add', '10.9.9.9', 'via', '10.0.0.2')
      .route('a', 'add', '10.9.9.9', 'via', '10.0.1.2', 'table', '100')
      .rule('a', 'add', 'fwmark', '0x10', 'lookup', '100')
      .capture('a', 'veth-a')
      .capture('a', 'veth-c')
      .ping('a', '10.9.9.9')
      .act('a', 'ping', '-n', '-c', '1', '-m', '16', '10.9.9.9')
      .observe('a', 'ip', 'rule')
      .observe('a', 'ip', 'route', 'show', 'table', '100')
      .observe('a', 'ip', 'route', 'get', '10.9.9.9', 'mark', '0x10')
      .observe('a', 'ip', 'route', 'get', '10.9.9.9')
      .build();
    await differential(ctx, scenario);
  });

  it("two components, one table (scenarios/collisions.ts): a flush of table 100 erases the other's route", async (ctx) => {
    const scenario = twoHosts('shared-table')
      .rule('a', 'add', 'fwmark', '0x200/0x200', 'lookup', '100', 'priority', '100')
      // The first component's flush before the table exists (its error text), then its routes; the second's.
      .act('a', 'ip', 'route', 'flush', 'table', '100')
      .act('a', 'ip', 'route', 'show', 'table', '100')
      .act('a', 'ip', 'route', 'replace', 'default', 'via', '10.0.0.2', 'dev', 'veth-a', 'table', '100')
      .act('a', 'ip', 'route', 'get', '192.0.2.1', 'mark', '0x200')
      .act('a', 'ip', 'rule', 'add', 'to', '192.168.100.0/24', 'lookup', '100', 'priority', '110')
      .act('a', 'ip', 'route', 'flush', 'table', '100')
      .act('a', 'ip', 'route', 'add', '192.168.100.0/24', 'via', '10.0.0.2', 'dev', 'veth-a', 'table', '100')
      .act('a', 'ip', 'route', 'get', '192.0.2.1', 'mark', '0x200')
      .observe('a', 'ip', 'rule')
      .observe('a', 'ip', 'route', 'show', 'table', '100')
      .build();
    await differential(ctx, scenario);
  });
});
