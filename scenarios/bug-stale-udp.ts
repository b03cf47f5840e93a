// Bug replay kubernetes/kubernetes#59368 (also #19029, #66651): a statsd client in diag sends a counter every 200 ms
// from one socket to the UDP Service statsd; its pod is replaced and, with kube-proxy's conntrack cleanup off, every
// datagram keeps following the [UNREPLIED] entry to the deleted pod's address (each one refreshes the entry's 30 s);
// `conntrack -L -p udp` shows it, `conntrack -D` recovers. With the cleanup on, kube-proxy deletes the entry itself.
// Not here: the 0 → 1 endpoints variant (#48370), the v1.32 reconciler.

import { deployment, service } from '../src/k8s/api/builders.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import { Story, type StoryResult } from '../src/story/story.ts';
import { parseIpv4 } from '../src/wire/address.ts';
import { formation, shell } from './formation-cluster.ts';

export type StaleUdpVariant = 'no-cleanup' | 'cleanup';
export const STALE_UDP_VARIANTS: readonly StaleUdpVariant[] = ['no-cleanup', 'cleanup'];

const STATSD_IMAGE = 'docker.io/prom/statsd-exporter:v0.26.0';
const STATSD_IP = '10.96.81.25';
const STATSD_PORT = 8125;
/** The client's one socket: pystatsd binds once and keeps its port, as in the issue. */
const CLIENT_PORT = 41240;
const SEND_EVERY_NS = 200_000_000;
const SECOND = 1_000_000_000;

/** A statsd client sending `signalements.requests:1|c` every 200 ms from one bound socket. */
function statsdClient(ns: Namespace): { readonly sent: () => number } {
  const dst = parseIpv4(STATSD_IP)!;
  const payload = new TextEncoder().encode('signalements.requests:1|c');
  let sent = 0;
  if (!ns.udp.bind(0, CLIENT_PORT, () => {})) throw new Error(`statsd client: port ${CLIENT_PORT} in use`);
  const tick = (): void => {
    if (ns.udp.send({ dst, dstPort: STATSD_PORT, srcPort: CLIENT_PORT, payload }).ok) sent++;
    ns.sim.scheduler.schedule(SEND_EVERY_NS, tick);
  };
  tick();
  return { sent: () => sent };
}

export function staleUdpStory(variant: StaleUdpVariant, seed: string | number): StoryResult {
  const cleanup = variant === 'cleanup';
  const { c, images } = formation({
    cni: 'kindnet',
    kubeProxy: 'iptables',
    seed,
    pods: ['diag'],
    extra: { conntrackCleanup: cleanup },
  });
  // statsd's received-datagram counter, by pod: what its /metrics page (statsd_exporter_packets_total) would show.
  const received = new Map<string, number>();
  images.set(STATSD_IMAGE, (ns, pod) => {
    const name = pod.metadata.name;
    received.set(name, 0);
    ns.udp.bind(0, STATSD_PORT, () => received.set(name, (received.get(name) ?? 0) + 1));
    return { stop: () => ns.udp.unbind(0, STATSD_PORT) };
  });
  const labels = { app: 'statsd' };
  const created =
    c.store.create(
      deployment({
        name: 'statsd',
        labels,
        replicas: 1,
        image: STATSD_IMAGE,
        ports: [{ name: 'statsd', containerPort: STATSD_PORT, protocol: 'UDP' }],
      }),
    ).ok &&
    c.store.create(
      service({
        name: 'statsd',
        clusterIP: STATSD_IP,
        ports: [{ name: 'statsd', port: STATSD_PORT, targetPort: STATSD_PORT, protocol: 'UDP' }],
        selector: labels,
      }),
    ).ok;
  if (!created) throw new Error('bug-stale-udp: statsd Deployment or Service refused');
  c.sim.run(3 * SECOND);

  const story = new Story('bug-stale-udp', seed);
  story.attach(c.sim);
  const sh = shell(c, story);
  const statsdPods = () => [...received.keys()];
  story.say(
    `kubernetes/kubernetes#59368 "kube-proxy/iptables, UDP conntrack data not removed on endpoint changes": a statsd client keeps one UDP socket (source port ${CLIENT_PORT}) and sends to the Service statsd ${STATSD_IP}:${STATSD_PORT} every 200 ms; kube-proxy's conntrack cleanup is ${cleanup ? 'on (its default)' : "off (packetlab's conntrackCleanup: false), which is what a node looks like when the cleanup misses the entry, as the issue's kube-proxy did"}`,
  );
  const diag = c.podNamespace('default', 'diag');
  if (diag === undefined) throw new Error('bug-stale-udp: no diag');
  const client = statsdClient(diag);
  c.sim.run(2 * SECOND);
  sh('kubectl get pods -o wide');
  const oldPod = statsdPods()[0]!;
  const oldIp = c.store.get('Pod', 'default', oldPod)?.status.podIP ?? '';
  story.expectThat(
    'the first statsd pod receives the counters',
    'more than 0 datagrams',
    String(received.get(oldPod)),
    (received.get(oldPod) ?? 0) > 0,
  );
  story.say(
    'UDP has no connection, but conntrack keeps one: the first datagram was DNATed to the pod, and each one after it refreshes the [UNREPLIED] entry (nf_conntrack_udp_timeout, 30 s) and follows it, without reaching the nat table again',
  );
  const before = sh('docker exec formation-worker conntrack -L -p udp').stdout;
  story.expectThat(
    'the entry DNATs to the first pod',
    `reply src=${oldIp}`,
    before.trim(),
    before.includes(`src=${oldIp} dst=10.244.1.5 sport=${STATSD_PORT} dport=${CLIENT_PORT}`),
  );

  story.say(`the statsd pod is replaced (a new version, a node drain): its ReplicaSet starts another one`);
  sh(`kubectl delete pod ${oldPod} --now`);
  c.sim.run(5 * SECOND);
  const newPod = statsdPods().find((name) => name !== oldPod) ?? '';
  const newIp = c.store.get('Pod', 'default', newPod)?.status.podIP ?? '';
  sh('kubectl get pods -o wide');
  sh('kubectl get endpointslices');
  const capture = sh.background(`docker exec formation-worker tcpdump -ni any -c 4 udp port ${STATSD_PORT}`);
  const atStart = received.get(newPod) ?? 0;
  c.sim.run(5 * SECOND);
  const atW1 = capture.stop().stdout;
  const during = (received.get(newPod) ?? 0) - atStart;
  const after = sh('docker exec formation-worker conntrack -L -p udp').stdout;

  if (!cleanup) {
    story.expectEqual(`the new pod ${newPod} receives nothing in 5 s`, 0, during);
    story.expectThat(
      'W1 still sends the counters to the deleted pod',
      `10.244.1.5.${CLIENT_PORT} > ${oldIp}.${STATSD_PORT}`,
      atW1.trim(),
      atW1.includes(`10.244.1.5.${CLIENT_PORT} > ${oldIp}.${STATSD_PORT}`),
    );
    story.expectThat(
      'conntrack -L shows the stale entry, refreshed by every datagram',
      `reply src=${oldIp}, timeout near 30`,
      after.trim(),
      after.includes(`src=${oldIp} dst=10.244.1.5`) && /^udp +17 (29|30) /.test(after),
    );
    story.say(
      "the fix kube-proxy applies (and what to type by hand on a node where it did not): delete the Service's UDP entries; the next datagram is a new connection and meets the DNAT rules again",
    );
    sh(`docker exec formation-worker conntrack -D -p udp --orig-dst ${STATSD_IP}`);
    const fixedFrom = received.get(newPod) ?? 0;
    c.sim.run(2 * SECOND);
    const fixed = sh('docker exec formation-worker conntrack -L -p udp').stdout;
    const delivered = (received.get(newPod) ?? 0) - fixedFrom;
    story.expectThat(
      'after conntrack -D the new pod receives the counters',
      'more than 0 datagrams in 2 s',
      String(delivered),
      delivered > 0,
    );
    story.expectThat(
      'the new entry DNATs to the new pod',
      `reply src=${newIp}`,
      fixed.trim(),
      fixed.includes(`src=${newIp} dst=10.244.1.5`),
    );
  } else {
    story.say(
      `kube-proxy's sync after the endpoint stopped serving ran \`conntrack -D --orig-dst ${STATSD_IP} --dst-nat ${oldIp} -p udp\` (pkg/proxy/conntrack: ClearEntriesForNAT): the next datagram was a new connection and met the DNAT rules`,
    );
    story.expectThat(
      `the new pod ${newPod} receives the counters`,
      'more than 0 datagrams in 5 s',
      String(during),
      during > 0,
    );
    story.expectThat(
      'W1 sends them to the new pod',
      `10.244.1.5.${CLIENT_PORT} > ${newIp}.${STATSD_PORT}`,
      atW1.trim(),
      atW1.includes(`10.244.1.5.${CLIENT_PORT} > ${newIp}.${STATSD_PORT}`) &&
        !atW1.includes(`> ${oldIp}.${STATSD_PORT}`),
    );
    story.expectThat(
      'conntrack -L shows the entry to the new pod',
      `reply src=${newIp}`,
      after.trim(),
      after.includes(`src=${newIp} dst=10.244.1.5`),
    );
  }
  story.show(`statsd client: ${client.sent()} datagrams sent from port ${CLIENT_PORT}`);
  return story.result();
}
