// `ip -s link` on the kernel and on packetlab where a driver drops what it was given: a veth whose peer's MTU refuses
// a frame (counted at both ends, never as sent), and a VXLAN device with no remote for the destination.

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
});
