// The four packet paths of the lesson's cluster the packet-path and trace-bus suites time, each as one operation that sends a UDP datagram and runs the simulation until it arrived; no TCP, no replies.
//
// Topology: lessonServices (bridge pods, VXLAN between nodes w1 and w2, kube-proxy's iptables nat rules and
// ip-masq-agent on both nodes, an outside client 172.18.0.100 on the nodes' segment). Two Services, ports 9000 and
// 9001, ClusterIPs 10.96.40.12/13, NodePorts 30080/30081, one endpoint each on w2's pod remote (10.244.2.7):
//   bridge    diag 10.244.1.5 -> local 10.244.1.9 (same node, cni0)
//   vxlan     diag -> remote 10.244.2.7 (w1 forwards into flannel.1, w2 decapsulates)
//   clusterip diag -> 10.96.40.12 (DNAT on w1, then VXLAN)
//   nodeport  client -> 172.18.0.2:30080 (DNAT and MASQUERADE on w1, then VXLAN)
// A flow is (source port, destination port): the 100k-flow variants take source ports 10000..59999 times the two
// destination ports, visited in a seeded random order; every flow is sent once before anything is timed, so conntrack
// holds them all and ARP is resolved.

import { kubeProxyNatRules } from '../../scenarios/kube-proxy-iptables.ts';
import { lessonServices, type ServicesLesson } from '../../src/k8s/lesson.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import type { UdpSendOptions } from '../../src/socket/udp.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { xorshift32 } from './xorshift.ts';

export type PathName = 'bridge' | 'vxlan' | 'clusterip' | 'nodeport';

export const PATHS: readonly PathName[] = ['bridge', 'vxlan', 'clusterip', 'nodeport'];

export const PATH_TITLES: Readonly<Record<PathName, string>> = {
  bridge: 'pod->pod same node (bridge)',
  vxlan: 'pod->pod cross node (VXLAN)',
  clusterip: 'pod->ClusterIP (DNAT, cross node)',
  nodeport: 'NodePort from outside (DNAT+SNAT)',
};

/** Bytes of UDP payload per datagram. */
export const PAYLOAD_BYTES = 64;

const DST_PORTS = [9000, 9001] as const;
const FIRST_SRC_PORT = 10_000;

export interface Flows {
  /** Source and destination port of flow i, in visiting order. */
  readonly srcPorts: Uint16Array;
  readonly dstPorts: Uint16Array;
}

/** `count` flows (at most 100k) in a seeded random order; one flow is (41000, 9000). */
export function flows(count: number, seed: number): Flows {
  const srcPorts = new Uint16Array(count);
  const dstPorts = new Uint16Array(count);
  if (count === 1) {
    srcPorts[0] = 41_000;
    dstPorts[0] = DST_PORTS[0];
    return { srcPorts, dstPorts };
  }
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  const next = xorshift32(seed);
  for (let i = count - 1; i > 0; i--) {
    const j = next() % (i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  for (let i = 0; i < count; i++) {
    const flow = order[i]!;
    srcPorts[i] = FIRST_SRC_PORT + (flow >>> 1);
    dstPorts[i] = DST_PORTS[flow & 1]!;
  }
  return { srcPorts, dstPorts };
}

export interface PathFixture {
  readonly lesson: ServicesLesson;
  /** Sends the next flow's datagram and runs the simulation until it was delivered; throws if it was not. */
  readonly send: () => void;
  readonly delivered: () => number;
}

/** The lesson cluster with the two Services; one per path (each path's conntrack and FDB state its own). */
export function servicesLesson(): ServicesLesson {
  const rules = kubeProxyNatRules(
    DST_PORTS.map((port, i) => ({
      servicePort: `default/bench-${i}:udp`,
      protocol: 'udp' as const,
      clusterIp: `10.96.40.${12 + i}`,
      port,
      nodePort: 30_080 + i,
      endpoints: [`10.244.2.7:${port}`],
      clusterCidr: '10.244.0.0/16',
    })),
  );
  return lessonServices({ kubeProxyRules: rules, seed: 'bench' });
}

interface Ends {
  readonly from: Namespace;
  readonly to: Namespace;
  readonly dst: string;
  /** Destination port of flow port 9000 + k. */
  readonly portOffset: number;
}

function endsOf(lesson: ServicesLesson, path: PathName): Ends {
  switch (path) {
    case 'bridge':
      return { from: lesson.diag, to: lesson.local, dst: '10.244.1.9', portOffset: 0 };
    case 'vxlan':
      return { from: lesson.diag, to: lesson.remote, dst: '10.244.2.7', portOffset: 0 };
    case 'clusterip':
      return { from: lesson.diag, to: lesson.remote, dst: '10.96.40.12', portOffset: 0 };
    case 'nodeport':
      return { from: lesson.client, to: lesson.remote, dst: '172.18.0.2', portOffset: 30_080 - 9000 };
  }
}

/**
 * The path's sender and sink. For the ClusterIP path the second Service has its own ClusterIP: flow port 9001 goes
 * to 10.96.40.13:9001.
 */
export function pathFixture(path: PathName, flowSet: Flows, lesson = servicesLesson()): PathFixture {
  const ends = endsOf(lesson, path);
  let received = 0;
  const sink = (): void => {
    received++;
  };
  for (const port of DST_PORTS) if (!ends.to.udp.bind(0, port, sink)) throw new Error(`port ${port} taken`);
  const dst = parseIpv4(ends.dst)!;
  const options = {
    dst,
    dstPort: 0,
    srcPort: 0,
    payload: new Uint8Array(PAYLOAD_BYTES),
  } satisfies UdpSendOptions;
  const scheduler = lesson.sim.scheduler;
  const udp = ends.from.udp;
  const count = flowSet.srcPorts.length;
  let at = 0;
  const send = (): void => {
    const flow = at;
    at = at + 1 === count ? 0 : at + 1;
    const port = flowSet.dstPorts[flow]!;
    options.srcPort = flowSet.srcPorts[flow]!;
    options.dstPort = port + ends.portOffset;
    options.dst = path === 'clusterip' ? dst + (port - 9000) : dst;
    const before = received;
    udp.send(options);
    // Until it arrives: running to idle would also run every neighbour and conntrack timer ahead.
    while (received === before && scheduler.runNext()) {}
    if (received === before) throw new Error(`${path}: flow ${flow} was not delivered`);
  };
  for (let i = 0; i < count; i++) send();
  return { lesson, send, delivered: () => received };
}
