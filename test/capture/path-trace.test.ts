import { describe, expect, it } from 'vitest';
import { attachPathTrace } from '../../src/capture/path-trace.ts';
import { lessonTopology } from '../../src/k8s/lesson.ts';
import { exec } from '../../src/tools/exec.ts';

describe('the pwru-style path trace', () => {
  it("follows diag's echo request hop by hop across the VXLAN tunnel", () => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan' });
    exec(lesson.diag, 'ping -c 1 10.244.2.7'); // resolve every neighbour first
    const lines: string[] = [];
    const stop = attachPathTrace(lesson.sim.bus, (line) => lines.push(line));
    exec(lesson.diag, 'ping -c 1 10.244.2.7');
    stop();
    const steps = lines.map((line) => line.split(/\s+/).slice(1, 4).join(' '));
    const request = steps.slice(0, steps.indexOf('remote eth0 ip_local_out') + 1);
    expect(request.map((step) => step.replace(/veth[0-9a-f]{8}/, 'vethX'))).toEqual([
      'diag eth0 ip_local_out',
      'diag eth0 dev_queue_xmit',
      'w1 vethX netif_receive_skb',
      'w1 cni0 br_handle_frame',
      'w1 cni0 netif_receive_skb',
      'w1 cni0 ip_rcv',
      'w1 cni0 ip_route_input',
      'w1 flannel.1 ip_forward',
      'w1 flannel.1 dev_queue_xmit',
      'w1 flannel.1 vxlan_xmit_one',
      'w1 eth0 ip_local_out',
      'w1 eth0 dev_queue_xmit',
      'segment:kind port1 netif_receive_skb',
      'segment:kind switch br_handle_frame',
      'segment:kind switch br_forward',
      'segment:kind port2 dev_queue_xmit',
      'w2 eth0 netif_receive_skb',
      'w2 eth0 ip_rcv',
      'w2 eth0 ip_route_input',
      'w2 eth0 ip_local_deliver',
      'w2 flannel.1 vxlan_rcv',
      'w2 flannel.1 netif_receive_skb',
      'w2 flannel.1 ip_rcv',
      'w2 flannel.1 ip_route_input',
      'w2 cni0 ip_forward',
      'w2 cni0 dev_queue_xmit',
      'w2 cni0 br_dev_xmit',
      'w2 vethX dev_queue_xmit',
      'remote eth0 netif_receive_skb',
      'remote eth0 ip_rcv',
      'remote eth0 ip_route_input',
      'remote eth0 ip_local_deliver',
      'remote eth0 ip_local_out',
    ]);
    // Addresses as they are at each step: inner on the pod side, outer on the underlay.
    const vxlanLine = lines.find((line) => line.includes('vxlan_xmit_one'))!;
    expect(vxlanLine).toMatch(/10\.244\.1\.5->10\.244\.2\.7\(icmp\) remote 172\.18\.0\.3 vni 1$/);
    expect(
      lines.find((line) => line.includes('w1 ') && line.includes('eth0') && line.includes('ip_local_out')),
    ).toMatch(/172\.18\.0\.2:\d+->172\.18\.0\.3:8472\(udp\)/);
  });

  it('costs nothing once detached: no listener remains on the bus', () => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'direct' });
    const stop = attachPathTrace(lesson.sim.bus, () => {});
    expect(lesson.sim.bus.enabled).toBe(true);
    stop();
    expect(lesson.sim.bus.enabled).toBe(false);
  });
});
