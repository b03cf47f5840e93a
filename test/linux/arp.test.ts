// ARP on the real kernel and on packetlab: a neighbour resolved by the first ping, and an absent one that fails
// after three broadcast probes with "Destination Host Unreachable" and a FAILED entry.

import { describe, it } from 'vitest';
import { differential } from './harness.ts';
import { twoHosts } from './topologies.ts';

describe('differential: ARP', () => {
  it('resolution: the first ping resolves the neighbour, both sides learn each other', async (ctx) => {
    const scenario = twoHosts('arp-resolve')
      .capture('a', 'veth-a')
      .ping('a', '10.0.0.2', { count: 2, interval: 0.2 })
      .observe('a', 'ip', 'neigh')
      .observe('b', 'ip', 'neigh')
      .build();
    await differential(ctx, scenario);
  });

  it('failure: an absent address gets three probes, then Destination Host Unreachable and a FAILED entry', async (ctx) => {
    const scenario = twoHosts('arp-fail')
      .capture('a', 'veth-a')
      .ping('a', '10.0.0.9', { count: 1 })
      .observe('a', 'ip', 'neigh')
      .build();
    await differential(ctx, scenario);
  });
});
