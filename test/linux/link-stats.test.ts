// `ip -s link` on the kernel and on packetlab where a driver drops what it was given: a veth whose peer's MTU refuses
// a frame (counted at both ends, never as sent), and a VXLAN device with no remote for the destination; `ip -s -s`'s
// error lines, whose transns column counts carrier changes (a veth's at creation, at both ends up, at its peer down).

import { describe, it } from 'vitest';
import { differential } from './harness.ts';
import { ScenarioBuilder } from './scenario.ts';
import { twoHosts } from './topologies.ts';

describe('differential: ip -s link after drops in a driver', () => {
  it("a veth peer with a smaller MTU: the sender's tx_dropped and the peer's rx_dropped", async (ctx) => {
    const scenario = new ScenarioBuilder('link-stats-veth-mtu')
      .namespace('a')
      .namespace('b')
      .veth('a', 'veth-a', 'b', 'veth-b')
      .run('b', 'ip', 'link', 'set', 'dev', 'veth-b', 'mtu', '1400')
      .addr('a', '10.0.0.1/24', 'veth-a')
      .addr('b', '10.0.0.2/24', 'veth-b')
      .up('a', 'veth-a')
      .up('b', 'veth-b')
      .capture('a', 'veth-a')
      .ping('a', '10.0.0.2', { count: 1, size: 1450, wait: 1 })
      .ping('a', '10.0.0.2', { count: 1, size: 100, wait: 1 })
      .observe('a', 'ip', '-s', 'link', 'show', 'dev', 'veth-a')
      .observe('b', 'ip', '-s', 'link', 'show', 'dev', 'veth-b')
      .build();
    await differential(ctx, scenario);
  });

  it('a VXLAN device without a remote for the destination MAC: tx_dropped, nothing sent', async (ctx) => {
    const scenario = twoHosts('link-stats-vxlan-noremote')
      .vxlan('a', 'vx0', { id: 42, local: '10.0.0.1', dev: 'veth-a', dstport: 4789, learning: false })
      .addr('a', '192.168.0.1/24', 'vx0')
      .up('a', 'vx0')
      .neigh('a', 'add', '192.168.0.2', 'lladdr', '02:70:6c:aa:aa:aa', 'dev', 'vx0', 'nud', 'permanent')
      .capture('a', 'veth-a')
      .ping('a', '192.168.0.2', { count: 1, wait: 1 })
      .observe('a', 'ip', '-s', 'link', 'show', 'dev', 'vx0')
      .observe('a', 'ip', '-s', 'link', 'show', 'dev', 'veth-a')
      .build();
    await differential(ctx, scenario);
  });

  it('ip -s -s: the error lines and carrier changes of a veth taken down and up, a bridge and lo', async (ctx) => {
    const scenario = new ScenarioBuilder('link-stats-errors')
      .namespace('a')
      .namespace('b')
      .veth('a', 'veth-a', 'b', 'veth-b')
      .bridge('b', 'br0')
      .veth('b', 'veth-c', 'b', 'veth-d')
      .master('b', 'veth-c', 'br0')
      .addr('a', '10.0.0.1/24', 'veth-a')
      .addr('b', '10.0.0.2/24', 'veth-b')
      .up('a', 'veth-a')
      .up('b', 'veth-b')
      .run('b', 'ip', 'link', 'set', 'dev', 'veth-b', 'down')
      .up('b', 'veth-b')
      .up('b', 'br0')
      .up('b', 'veth-c')
      .ping('a', '10.0.0.2', { count: 1, wait: 1 })
      .observe('a', 'ip', '-s', '-s', 'link', 'show', 'dev', 'veth-a')
      .observe('b', 'ip', '-s', '-s', 'link', 'show', 'dev', 'veth-b')
      .observe('b', 'ip', '-s', '-s', 'link', 'show', 'dev', 'br0')
      .observe('b', 'ip', '-s', '-s', 'link', 'show', 'dev', 'veth-d')
      .observe('a', 'ip', '-s', '-s', 'link', 'show', 'dev', 'lo')
      .observe('a', 'ip', '-s', '-s', '-s', 'link', 'show', 'dev', 'veth-a')
      .build();
    await differential(ctx, scenario);
  });
});
