// A promiscuous capture on a bridge, on the kernel and on packetlab: tcpdump without -p on cni0 sees the unicast
// frames the bridge forwards between two pods (br_handle_frame_finish's local_rcv), and cni0 counts them received.

import { describe, expect, it } from 'vitest';
import { differential } from './harness.ts';
import { lesson } from './topologies.ts';

describe('differential: promiscuous mode', () => {
  it('tcpdump on cni0 without -p sees pod-to-pod frames; ip -s link counts them on cni0', async (ctx) => {
    const scenario = lesson('promiscuous-bridge', { pods: 'bridge', nodes: 'direct' })
      .capture('w1', 'cni0', { promiscuous: true })
      .ping('diag', '10.244.1.9')
      .observe('w1', 'ip', '-s', 'link', 'show', 'dev', 'cni0')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const frames = result.linux.captures[0]?.frames.length ?? 0;
    expect(frames, 'the kernel showed the forwarded echo request and reply').toBeGreaterThanOrEqual(3);
  });
});
