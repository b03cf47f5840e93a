// The lesson's cases 1 and 2 (pods on one node, pods on two nodes), each way the lesson describes them.

import { describe, expect, it } from 'vitest';
import { type Lesson, lessonTopology, type NodeWiring, type PodWiring } from '../../src/k8s/lesson.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { exec, spawn } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { requireTool } from '../support/tools.ts';
import { tsharkCheck } from '../support/tshark.ts';

function capture(ns: Namespace, line: string): () => string {
  const running = spawn(ns, line);
  if (!('stop' in running)) throw new Error(running.stderr);
  return () => running.stop().stdout;
}

/** A UDP echo on 10.244.2.7:8000 and one datagram from diag:41234; returns what diag got back and what the server saw. */
function udpExchange(lesson: Lesson, target: Namespace, targetAddr: string) {
  const seenByServer: string[] = [];
  const replies: string[] = [];
  target.udp.bind(0, 8000, (d) => {
    seenByServer.push(`${d.srcAddr}:${d.srcPort}`);
    target.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: 8000, payload: d.payload });
  });
  lesson.diag.udp.bind(0, 41234, (d) => replies.push(new TextDecoder().decode(d.payload)));
  const sent = lesson.diag.udp.send({
    dst: parseIpv4(targetAddr)!,
    dstPort: 8000,
    srcPort: 41234,
    payload: new TextEncoder().encode('GET /sante'),
  });
  expect(sent.ok).toBe(true);
  lesson.sim.run(1e9);
  return { seenByServer, replies };
}

const diagAddr = parseIpv4('10.244.1.5')!;

describe.each<[PodWiring, NodeWiring]>([
  ['bridge', 'direct'],
  ['routed', 'direct'],
  ['bridge', 'vxlan'],
  ['routed', 'vxlan'],
])('lesson case 1 and 2 with pods by %s and nodes by %s', (pods, nodes) => {
  it('case 1: diag pings 10.244.1.9 on the same node', () => {
    const lesson = lessonTopology({ pods, nodes });
    const result = exec(lesson.diag, 'ping -c 2 10.244.1.9');
    expect(result.exitCode).toBe(0);
    // Through a bridge the pods share a segment (no IP hop); routed, the node forwards once.
    const ttl = pods === 'bridge' ? 64 : 63;
    expect(result.stdout).toContain(`64 bytes from 10.244.1.9: icmp_seq=1 ttl=${ttl} time=0.000 ms`);
    expect(result.stdout).toContain('2 packets transmitted, 2 received, 0% packet loss');
  });

  it('case 2: diag reaches 10.244.2.7 on W2 by ping and UDP, its source address unchanged', () => {
    const lesson = lessonTopology({ pods, nodes });
    const seenOnRemote = capture(lesson.remote, 'tcpdump -ni eth0 icmp');
    const result = exec(lesson.diag, 'ping -c 1 10.244.2.7');
    expect(result.exitCode).toBe(0);
    // Two routers on the way (W1 and W2), whatever the transport between them.
    expect(result.stdout).toContain('64 bytes from 10.244.2.7: icmp_seq=1 ttl=62');
    expect(seenOnRemote()).toMatch(/IP 10\.244\.1\.5 > 10\.244\.2\.7: ICMP echo request/);

    const { seenByServer, replies } = udpExchange(lesson, lesson.remote, '10.244.2.7');
    expect(seenByServer).toEqual([`${diagAddr}:41234`]);
    expect(replies).toEqual(['GET /sante']);
  });
});

describe('what the nodes show', () => {
  it('direct routing: W1 routes 10.244.2.0/24 via W2', () => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'direct' });
    expect(exec(lesson.w1, 'ip route').stdout).toBe(
      [
        '10.244.1.0/24 dev cni0 proto kernel scope link src 10.244.1.1 ',
        '10.244.2.0/24 via 172.18.0.3 dev eth0 ',
        '172.18.0.0/16 dev eth0 proto kernel scope link src 172.18.0.2 ',
        '',
      ].join('\n'),
    );
  });

  it('VXLAN: W1 routes 10.244.2.0/24 through flannel.1, and the tunnel is VNI 1 on port 8472', () => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan' });
    expect(exec(lesson.w1, 'ip route').stdout).toBe(
      [
        '10.244.1.0/24 dev cni0 proto kernel scope link src 10.244.1.1 ',
        '10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink ',
        '172.18.0.0/16 dev eth0 proto kernel scope link src 172.18.0.2 ',
        '',
      ].join('\n'),
    );
    const details = exec(lesson.w1, 'ip -d link show flannel.1').stdout;
    expect(details).toContain('mtu 1450');
    expect(details).toMatch(
      /vxlan id 1 local 172\.18\.0\.2 dev eth0 srcport 0 0 dstport 8472 nolearning ttl auto ageing 300/,
    );
  });

  it('tcpdump -i any on W1 sees the packet on the pod veth, the tunnel and eth0 (encapsulated)', () => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan' });
    const stop = capture(lesson.w1, 'tcpdump -ni any -c 20 host 10.244.1.5 or udp port 8472');
    exec(lesson.diag, 'ping -c 1 10.244.2.7');
    // One record per frame: a VXLAN frame's inner packet prints on a continuation line.
    const records = stop()
      .trimEnd()
      .split(/\n(?=\d{2}:\d{2}:\d{2}\.\d{6} )/)
      .filter((record) => record.includes('ICMP echo request'));
    const devices = records.map((record) => record.split(/\s+/)[1]);
    expect(devices).toEqual([expect.stringMatching(/^veth/), 'cni0', 'flannel.1', 'eth0']);
    expect(records[3]).toMatch(
      /^\S+ eth0 {2}Out IP 172\.18\.0\.2\.\d+ > 172\.18\.0\.3\.8472: OTV, flags \[I\] \(0x08\), overlay 0, instance 1\nIP 10\.244\.1\.5 > 10\.244\.2\.7: ICMP echo request, id \d+, seq 1, length 64$/,
    );
  });

  it('the same traffic written with tcpdump -w on W1 reads cleanly in tshark, VXLAN decoded', (ctx) => {
    if (!requireTool('tshark', ctx)) return;
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan' });
    const stop = capture(lesson.w1, 'tcpdump -ni any -w /w1.pcap');
    exec(lesson.diag, 'ping -c 2 10.244.2.7');
    udpExchange(lesson, lesson.remote, '10.244.2.7');
    stop();
    const pcap = lesson.sim.files.get('/w1.pcap');
    if (pcap === undefined) throw new Error('tcpdump -w wrote nothing');
    const report = tsharkCheck(pcap, ['vxlan.vni', 'ip.src', 'udp.dstport']);
    expect(report.problems).toEqual([]);
    const tunnelled = report.rows.filter(([vni]) => vni === '1');
    // Two echo requests, two replies and the UDP datagram and its answer crossed the tunnel.
    expect(tunnelled).toHaveLength(6);
    expect(
      tunnelled.every(([, sources]) => sources!.endsWith('10.244.1.5') || sources!.endsWith('10.244.2.7')),
    ).toBe(true);
  });
});
