// ARP on the real kernel and on packetlab: a neighbour resolved by the first ping, and an absent one that fails
// after three broadcast probes with "Destination Host Unreachable" and a FAILED entry.

import { describe, expect, it } from 'vitest';
import { differential, outputOf } from './harness.ts';
import { lesson, twoHosts } from './topologies.ts';

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

  it('failure on a router: the next hop never answers, the router reports host unreachable to the sender', async (ctx) => {
    // diag → w1 → w2, whose cni0 has no 10.244.2.77: w2's resolution fails after 3 s and ipv4_link_failure
    // sends ICMP host unreachable back to diag's address, from w2's address toward it (172.18.0.3).
    const scenario = lesson('arp-fwd-fail', { nodes: 'direct' })
      .capture('w2', 'cni0')
      .capture('w2', 'eth0')
      .ping('diag', '10.244.2.77', { count: 1, wait: 5 })
      .observe('w2', 'ip', 'neigh', 'show', 'dev', 'cni0')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    expect(outputOf(result.linux, 'diag: ping')).toContain(
      'From 172.18.0.3 icmp_seq=1 Destination Host Unreachable',
    );
  });
});
