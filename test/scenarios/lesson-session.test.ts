import { describe, expect, it } from 'vitest';
import { lessonSession } from '../../scenarios/lesson-cases-1-2.ts';

describe('the lesson cases 1 and 2 session (packetlab lesson)', () => {
  it.each([
    ['bridge', 'vxlan'],
    ['bridge', 'direct'],
    ['routed', 'vxlan'],
    ['routed', 'direct'],
  ] as const)('runs with pods by %s and nodes by %s, both pings answered', (pods, nodes) => {
    const lines = lessonSession(pods, nodes);
    expect(
      lines.filter((line) => line.includes('1 packets transmitted, 1 received, 0% packet loss')),
    ).toHaveLength(2);
    const banner = lines.indexOf(
      'listening on any, link-type LINUX_SLL2 (Linux cooked v2), snapshot length 262144 bytes',
    );
    const stats = lines.findIndex((line) => line.endsWith('packets captured'));
    expect(banner).toBeGreaterThan(0);
    expect(stats).toBe(lines.length - 3);
    const hops = lines.slice(banner + 1, stats).filter((line) => line.includes('ICMP echo request'));
    // The request as W1 sees it: on the pod's veth, then cni0 (bridge only), then flannel.1 and eth0 (VXLAN) or eth0.
    expect(hops.length).toBe((pods === 'bridge' ? 2 : 1) + (nodes === 'vxlan' ? 2 : 1));
  });

  it('is the same transcript twice for one seed', () => {
    expect(lessonSession('bridge', 'vxlan', 7)).toEqual(lessonSession('bridge', 'vxlan', 7));
  });
});
