// TTL expiry on the kernel and on packetlab: each router on the way from diag to remote answers a ping whose TTL
// runs out there with ICMP time exceeded, from the address it would use to reach diag.

import { describe, it } from 'vitest';
import { differential } from './harness.ts';
import { lesson, type NodeWiring } from './topologies.ts';

describe.each<[NodeWiring]>([['direct'], ['vxlan']])('differential: TTL expiry, nodes by %s', (nodes) => {
  it('-t 1 expires on w1, -t 2 on w2, -t 3 arrives', async (ctx) => {
    const scenario = lesson(`ttl-${nodes}`, { pods: 'bridge', nodes })
      .capture('diag', 'eth0')
      .capture('w1', 'eth0')
      .ping('diag', '10.244.2.7', { ttl: 1 })
      .ping('diag', '10.244.2.7', { ttl: 2 })
      .ping('diag', '10.244.2.7', { ttl: 3 })
      .build();
    await differential(ctx, scenario);
  });
});
