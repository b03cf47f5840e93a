// Bug replay moby/libnetwork#2661 ("Overlay network broken when outside network mtu is smaller than default") and
// flannel-io/flannel#463 (nodes whose networks have different MTUs): the nodes' NICs say 1500, so flannel gives pods
// 1450 and its VXLAN packets leave the nodes at up to 1500 bytes, but the network between the nodes (a cloud VPC, a
// VPN) carries 1450 and drops the rest without an ICMP error. Small requests pass, large responses stall; `ping -M
// do -s` finds the limit with silence rather than "Frag needed"; tcpdump shows the retransmissions and no ICMP. The
// fix: flannel.1's MTU from the real path (1450 - 50), after which the node itself answers "Frag needed" and path MTU
// discovery works. Not here: TCPMSS clamping (packetlab has no TCPMSS target), IPv6.

import { httpServer } from '../src/app/http/server.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import { exec } from '../src/tools/exec.ts';
import { formation, SIGNALEMENTS, shell } from './formation-cluster.ts';

/** What the network between the nodes really carries. */
const PATH_MTU = 1450;
const EXPORT_BYTES = 100_000;
const EXPORTER_IMAGE = 'registry.lyneko.fr/signalements:1.5';
const CURL = "curl -s -m 5 -o /dev/null -w '%{http_code} %{size_download} %{exitcode}\\n'";

const received = (ping: string) => /1 packets transmitted, 1 received/.test(ping);

export function mtuBlackholeStory(seed: string | number): StoryResult {
  const { c, images } = formation({ cni: 'flannel-vxlan', kubeProxy: 'iptables', seed, pods: ['diag'] });
  images.set(EXPORTER_IMAGE, (ns) => {
    const server = httpServer(ns, {
      port: 8000,
      routes: { '/sante': { body: 'ok\n' }, '/export.csv': { body: 'x'.repeat(EXPORT_BYTES) } },
    });
    return { stop: () => server.close() };
  });
  const created = c.createPod({
    name: 'signalements-7d9f-a',
    node: 'formation-worker2',
    ip: '10.244.2.7',
    labels: SIGNALEMENTS,
    container: 'signalements',
    image: EXPORTER_IMAGE,
    ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
  });
  if (!created.ok) throw new Error(`bug-mtu-blackhole: ${created.error.message}`);
  c.sim.run(2e9);
  // The network between the nodes: every port of the Docker network's switch takes PATH_MTU, the NICs keep 1500.
  const underlay = c.runner.segmentOf('kind').switchNs;
  for (const device of underlay.all())
    if (device.name !== 'lo') exec(underlay, `ip link set dev ${device.name} mtu ${PATH_MTU}`);

  const story = new Story('bug-mtu-blackhole', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  story.say(
    `moby/libnetwork#2661 "Overlay network broken when outside network mtu is smaller than default": the network between the nodes carries ${PATH_MTU}-byte packets and sends no ICMP error for bigger ones; the nodes' NICs say 1500, flannel derives 1450 for the pods from them`,
  );
  sh('docker exec formation-worker ip link show eth0');
  sh('docker exec formation-worker ip -d link show flannel.1');
  story.say('the symptom: the health check answers, the export (100 kB) never comes');
  const small = sh(`kubectl exec diag -- ${CURL} http://10.244.2.7:8000/sante`).stdout.trim();
  story.expectEqual('GET /sante (3 bytes) answers', '200 3 0', small);
  const capture = sh.background("docker exec formation-worker2 tcpdump -ni flannel.1 'src port 8000'");
  const icmp = sh.background('docker exec formation-worker2 tcpdump -ni any icmp');
  const large = sh(`kubectl exec diag -- ${CURL} http://10.244.2.7:8000/export.csv`).stdout.trim();
  const segments = capture.stop().stdout;
  const icmpSeen = icmp.stop().stdout.trim();
  story.expectEqual(
    'GET /export.csv stalls: nothing arrives, curl gives up after 5 s (exit 28)',
    '000 0 28',
    large,
  );
  const firstSegment = segments.split('\n').filter((line) => line.includes(' seq 1:1399,'));
  story.expectThat(
    "tcpdump on W2's flannel.1: the first full-size segment (1398 bytes, 1450 with headers) sent again and again",
    'seq 1:1399 at least 4 times',
    `${firstSegment.length} times`,
    firstSegment.length >= 4,
  );
  story.expectEqual('and no ICMP reaches W2', '', icmpSeen);

  story.say(
    'the diagnosis: pings that may not be fragmented (-M do), larger and larger; the ones that do not fit get no answer and no "Frag needed" either',
  );
  const lesson = sh('kubectl exec diag -- ping -M do -s 1422 -c 1 -W 1 10.244.2.7').stdout;
  story.expectThat(
    "the pod MTU's largest ping (1422 + 28 = 1450) is lost without an error",
    '0 received, no Frag needed',
    lesson.split('\n').find((line) => line.includes('transmitted')) ?? '',
    !received(lesson) && !lesson.includes('Frag needed'),
  );
  // A binary search, as a user types it: the largest payload that comes back.
  let low = 1322;
  let high = 1422;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (received(sh(`kubectl exec diag -- ping -M do -s ${middle} -c 1 -W 1 10.244.2.7`).stdout))
      low = middle;
    else high = middle;
  }
  story.say(
    `the limit: ${low} bytes of payload, ${low + 28} inside the tunnel, ${low + 78} in the underlay: veths, like the kernel's, let a frame 4 bytes over the MTU pass (VLAN_HLEN in is_skb_forwardable)`,
  );
  story.expectEqual(
    'the search ends at the path MTU minus VXLAN (50) and ICMP/IP (28), plus 4',
    PATH_MTU - 50 - 28 + 4,
    low,
  );

  story.say(
    "the fix: flannel.1's MTU from the real path (1450 - 50 = 1400) on every node; a pod's 1450-byte packet now meets the smaller MTU on its own node, which answers Frag needed, and the server's TCP lowers its segments (path MTU discovery)",
  );
  sh('docker exec formation-worker ip link set dev flannel.1 mtu 1400');
  sh('docker exec formation-worker2 ip link set dev flannel.1 mtu 1400');
  const fixed = sh(`kubectl exec diag -- ${CURL} http://10.244.2.7:8000/export.csv`).stdout.trim();
  story.expectEqual('GET /export.csv answers in full', `200 ${EXPORT_BYTES} 0`, fixed);
  const frag = sh('kubectl exec diag -- ping -M do -s 1422 -c 1 -W 1 10.244.2.7').stdout;
  story.expectThat(
    'ping -M do -s 1422 now gets the error from the node, with the MTU to use',
    'Frag needed and DF set (mtu = 1400)',
    frag.split('\n').find((line) => line.startsWith('From ')) ?? '',
    frag.includes('Frag needed and DF set (mtu = 1400)'),
  );
  story.say(
    "the lasting fix is the nodes' MTU itself (the NIC at 1450, so that flannel derives 1400 for new pods), or TCP MSS clamping on the nodes, which packetlab does not model",
  );
  return story.result();
}
