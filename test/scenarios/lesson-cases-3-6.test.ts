// The lesson's cases 3 to 5 on hand-built nodes with hand-loaded kube-proxy and ip-masq-agent rules:
// Service DNAT, the return path through conntrack, hairpin, and pod egress MASQUERADE.

import { describe, expect, it } from 'vitest';
import { kubeProxyNatRules, type ServiceSpec, SIGNALEMENTS } from '../../scenarios/kube-proxy-iptables.ts';
import { lessonServices, type ServicesLesson } from '../../src/k8s/lesson.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { spawn } from '../../src/tools/exec.ts';
import { formatIpv4, parseIpv4 } from '../../src/wire/address.ts';

/** A UDP exchange: the server answers from its port; returns what each side saw. */
function exchange(
  from: Namespace,
  fromPort: number,
  to: string,
  toPort: number,
  server: Namespace,
  serverPort: number,
  lesson: ServicesLesson,
) {
  const atServer: string[] = [];
  const atClient: string[] = [];
  server.udp.bind(0, serverPort, (d) => {
    atServer.push(`${formatIpv4(d.srcAddr)}:${d.srcPort} > ${formatIpv4(d.dstAddr)}:${d.dstPort}`);
    server.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: serverPort, payload: d.payload });
  });
  from.udp.bind(0, fromPort, (d) =>
    atClient.push(`${formatIpv4(d.srcAddr)}:${d.srcPort} > ${formatIpv4(d.dstAddr)}:${d.dstPort}`),
  );
  expect(
    from.udp.send({ dst: parseIpv4(to)!, dstPort: toPort, srcPort: fromPort, payload: new Uint8Array([1]) })
      .ok,
  ).toBe(true);
  lesson.sim.run(1e9);
  server.udp.unbind(0, serverPort);
  from.udp.unbind(0, fromPort);
  return { atServer, atClient };
}

const UDP_SERVICE = (endpoints: string[]): ServiceSpec => ({
  servicePort: 'default/signalements:udp',
  protocol: 'udp',
  clusterIp: '10.96.40.12',
  port: 80,
  nodePort: 30080,
  endpoints,
  clusterCidr: '10.244.0.0/16',
});

describe('case 3 and 4: a Service, and the way back', () => {
  it('diag reaches 10.96.40.12:80, DNATed to the pod on W2; the answer comes back from the Service address', () => {
    const lesson = lessonServices({ kubeProxyRules: kubeProxyNatRules([UDP_SERVICE(['10.244.2.7:8000'])]) });
    const { atServer, atClient } = exchange(
      lesson.diag,
      41234,
      '10.96.40.12',
      80,
      lesson.remote,
      8000,
      lesson,
    );
    // The pod sees diag's own address (no SNAT inside the cluster)...
    expect(atServer).toEqual(['10.244.1.5:41234 > 10.244.2.7:8000']);
    // ...and diag sees the Service, not the pod: conntrack undid the DNAT on the way back.
    expect(atClient).toEqual(['10.96.40.12:80 > 10.244.1.5:41234']);
  });

  it('the same with the endpoint on the same node: the bridged answer is un-NATed too (br_netfilter)', () => {
    const lesson = lessonServices({ kubeProxyRules: kubeProxyNatRules([UDP_SERVICE(['10.244.1.9:8000'])]) });
    const { atServer, atClient } = exchange(
      lesson.diag,
      41234,
      '10.96.40.12',
      80,
      lesson.local,
      8000,
      lesson,
    );
    expect(atServer).toEqual(['10.244.1.5:41234 > 10.244.1.9:8000']);
    expect(atClient).toEqual(['10.96.40.12:80 > 10.244.1.5:41234']);
  });

  it("a TCP SYN to the ClusterIP: tcpdump on W1 shows the Service address on the pod's veth and the pod address out", () => {
    const lesson = lessonServices({ kubeProxyRules: kubeProxyNatRules([SIGNALEMENTS]) });
    const capture = spawn(lesson.w1, 'tcpdump -ni any tcp');
    lesson.diag.tcp.sendSyn(parseIpv4('10.96.40.12')!, 80, 41234);
    lesson.sim.run(1e9);
    if (!('stop' in capture)) throw new Error(capture.stderr);
    const lines = capture.stop().stdout;
    // The lesson: "sur la veth, le paquet a encore l'adresse du Service". The frame is addressed to cni0's MAC,
    // not the veth's (P: PACKET_OTHERHOST); br_netfilter DNATs it at bridge level, before cni0 sees it.
    expect(lines).toMatch(/veth[0-9a-f]{8} P {3}IP 10\.244\.1\.5\.41234 > 10\.96\.40\.12\.80: Flags \[S\]/);
    expect(lines).toMatch(/IP 10\.244\.1\.5\.41234 > 10\.244\.(1\.9|2\.7)\.8000: Flags \[S\]/);
    // No listener: the pod resets, and diag gets the reset from the Service address.
    expect(lines).toMatch(/Out IP 10\.96\.40\.12\.80 > 10\.244\.1\.5\.41234: Flags \[R\.\]/);
  });

  it('hairpin: a pod calling the Service it backs sees the call come from the node (10.244.1.1)', () => {
    const lesson = lessonServices({ kubeProxyRules: kubeProxyNatRules([UDP_SERVICE(['10.244.1.9:8000'])]) });
    const { atServer, atClient } = exchange(
      lesson.local,
      41234,
      '10.96.40.12',
      80,
      lesson.local,
      8000,
      lesson,
    );
    // KUBE-SEP's `-s 10.244.1.9/32 -j KUBE-MARK-MASQ`, then MASQUERADE --random-fully: a new address and port.
    expect(atServer).toHaveLength(1);
    expect(atServer[0]).toMatch(/^10\.244\.1\.1:\d+ > 10\.244\.1\.9:8000$/);
    expect(atClient).toEqual(['10.96.40.12:80 > 10.244.1.9:41234']);
  });
});

describe('case 5: a pod calls outside the cluster', () => {
  it('leaves with the node address, keeping its source port when free', () => {
    const lesson = lessonServices({ kubeProxyRules: kubeProxyNatRules([SIGNALEMENTS]) });
    const { atServer, atClient } = exchange(
      lesson.diag,
      40000,
      '172.18.0.100',
      443,
      lesson.client,
      443,
      lesson,
    );
    expect(atServer).toEqual(['172.18.0.2:40000 > 172.18.0.100:443']);
    expect(atClient).toEqual(['172.18.0.100:443 > 10.244.1.5:40000']);
  });

  it('a second pod with the same source port is given another port, the same for a seed', () => {
    const run = (seed: string) => {
      const lesson = lessonServices({ seed, kubeProxyRules: kubeProxyNatRules([SIGNALEMENTS]) });
      const seen: string[] = [];
      lesson.client.udp.bind(0, 443, (d) => seen.push(`${formatIpv4(d.srcAddr)}:${d.srcPort}`));
      for (const pod of [lesson.diag, lesson.local])
        pod.udp.send({
          dst: parseIpv4('172.18.0.100')!,
          dstPort: 443,
          srcPort: 40000,
          payload: new Uint8Array([1]),
        });
      lesson.sim.run(1e9);
      return seen;
    };
    const first = run('lesson');
    expect(first[0]).toBe('172.18.0.2:40000');
    const remapped = Number(first[1]!.split(':')[1]);
    expect(remapped).not.toBe(40000);
    expect(remapped).toBeGreaterThanOrEqual(1024);
    expect(run('lesson')).toEqual(first);
  });
});
