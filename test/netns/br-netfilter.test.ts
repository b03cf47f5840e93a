// br_netfilter's PREROUTING at bridge level: a pod calling a ClusterIP it backs is DNATed back onto the same bridge
// and bridged, not routed: with hairpin mode it arrives with its TTL and the pod's own source MAC, masqueraded to
// cni0's address; without hairpin mode the bridge will not send it back out of the port it came in on.

import { describe, expect, it } from 'vitest';
import { kubeProxyNatRules } from '../../scenarios/kube-proxy-iptables.ts';
import { lessonServices } from '../../src/k8s/lesson.ts';
import { Veth } from '../../src/link/veth.ts';
import { exec } from '../../src/tools/exec.ts';
import { formatIpv4, parseIpv4, readMac } from '../../src/wire/address.ts';

const HAIRPIN_SERVICE = {
  servicePort: 'default/hairpin:udp',
  protocol: 'udp',
  clusterIp: '10.96.40.13',
  port: 80,
  nodePort: undefined,
  endpoints: ['10.244.1.9:8000'],
  clusterCidr: '10.244.0.0/16',
} as const;

/** `local` sends one datagram to its own Service; what arrived at its eth0 for port 8000, and who its server heard. */
function callOwnService(hairpin: boolean) {
  const lesson = lessonServices({ kubeProxyRules: kubeProxyNatRules([HAIRPIN_SERVICE]) });
  const eth0 = lesson.local.byName('eth0');
  if (!(eth0 instanceof Veth) || eth0.peer === null) throw new Error('local has no veth');
  if (!hairpin) exec(lesson.w1, `bridge link set dev ${eth0.peer.name} hairpin off`);
  const arrived: { ttl: number; srcMac: number }[] = [];
  eth0.taps.push((_dev, pkt, direction) => {
    const frame = pkt.frame();
    const udpDstPort = (frame[36]! << 8) | frame[37]!;
    if (direction === 'rx' && frame[23] === 17 && udpDstPort === 8000)
      arrived.push({ ttl: frame[22]!, srcMac: readMac(frame, 6) });
  });
  const heardFrom: string[] = [];
  lesson.local.udp.bind(0, 8000, (datagram) => heardFrom.push(formatIpv4(datagram.srcAddr)));
  lesson.local.udp.send({
    dst: parseIpv4('10.96.40.13')!,
    dstPort: 80,
    srcPort: 41234,
    payload: new Uint8Array(4),
  });
  lesson.sim.run(1e9);
  return { arrived, heardFrom, podMac: eth0.mac };
}

describe('br_netfilter: a DNAT back onto the same bridge', () => {
  it("with hairpin mode the call is bridged back: TTL 64, the pod's own MAC, heard from cni0's 10.244.1.1", () => {
    const { arrived, heardFrom, podMac } = callOwnService(true);
    expect(arrived).toEqual([{ ttl: 64, srcMac: podMac }]);
    expect(heardFrom).toEqual(['10.244.1.1']);
  });

  it('without hairpin mode the bridge drops it', () => {
    const { arrived, heardFrom } = callOwnService(false);
    expect(arrived).toEqual([]);
    expect(heardFrom).toEqual([]);
  });
});
