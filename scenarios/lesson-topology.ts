// The lesson's fil rouge on kind, built with the commands a CNI plugin runs: nodes W1 and W2 on one Docker-like
// network, the pods diag (10.244.1.5) and 10.244.1.9 on W1 and a signalements pod (10.244.2.7) on W2.
//
// Four ways to wire it, as the lesson's cases 1 and 2 describe: pods on a node joined by a
// bridge (cni0, as the bridge plugin and Flannel do) or by routes to each veth (kindnet's
// ptp), and nodes joined by direct routes or by a VXLAN tunnel (flannel.1, UDP 8472).

import type { Namespace } from '../src/netns/namespace.ts';
import type { Segment } from '../src/netns/segment.ts';
import { Simulation } from '../src/netns/simulation.ts';
import { exec } from '../src/tools/exec.ts';
import { formatMac } from '../src/wire/address.ts';

export type PodWiring = 'bridge' | 'routed';
export type NodeWiring = 'direct' | 'vxlan';

export interface LessonOptions {
  readonly seed?: string | number;
  readonly pods?: PodWiring;
  readonly nodes?: NodeWiring;
  /** The pods' (and cni0's) MTU; defaults to 1450 with VXLAN, 1500 otherwise. */
  readonly podMtu?: number;
  /** The Docker network's MTU (a frame bigger than this + 18 vanishes). */
  readonly underlayMtu?: number;
}

export interface Lesson {
  readonly sim: Simulation;
  readonly segment: Segment;
  readonly w1: Namespace;
  readonly w2: Namespace;
  /** 10.244.1.5 on W1. */
  readonly diag: Namespace;
  /** 10.244.1.9 on W1. */
  readonly local: Namespace;
  /** 10.244.2.7 on W2. */
  readonly remote: Namespace;
}

/** Runs a command and fails loudly when it fails: scenario set-up must not half-apply. */
export function must(ns: Namespace, line: string): string {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${ns.name}: ${line}: ${result.stderr.trim()}`);
  return result.stdout;
}

interface NodeSpec {
  readonly ns: Namespace;
  readonly address: string;
  readonly podCidr: string;
  readonly gateway: string;
  /** The node's address inside its pod CIDR, as Flannel puts it on flannel.1 (10.244.N.0). */
  readonly tunnelAddress: string;
}

/** Builds the lesson's cluster. Every pod and node has `lo` up, as on a real node. */
export function buildLesson(options: LessonOptions = {}): Lesson {
  const sim = new Simulation({ seed: options.seed ?? 'lesson' });
  const pods = options.pods ?? 'bridge';
  const nodes = options.nodes ?? 'vxlan';
  const podMtu = options.podMtu ?? (nodes === 'vxlan' ? 1450 : 1500);
  const segment = sim.addSegment('kind', { mtu: options.underlayMtu ?? 1500 });
  const w1 = sim.addNamespace('w1');
  const w2 = sim.addNamespace('w2');
  const specs: NodeSpec[] = [
    {
      ns: w1,
      address: '172.18.0.2',
      podCidr: '10.244.1.0/24',
      gateway: '10.244.1.1',
      tunnelAddress: '10.244.1.0',
    },
    {
      ns: w2,
      address: '172.18.0.3',
      podCidr: '10.244.2.0/24',
      gateway: '10.244.2.1',
      tunnelAddress: '10.244.2.0',
    },
  ];
  for (const spec of specs) {
    must(spec.ns, 'ip link set lo up');
    segment.attach(spec.ns, 'eth0');
    must(spec.ns, `ip addr add ${spec.address}/16 dev eth0`);
    must(spec.ns, 'sysctl -w net.ipv4.ip_forward=1');
    if (pods === 'bridge') {
      must(spec.ns, `ip link add cni0 mtu ${podMtu} type bridge`);
      must(spec.ns, `ip addr add ${spec.gateway}/24 dev cni0`);
      must(spec.ns, 'ip link set cni0 up');
    }
  }
  const diag = addPod(sim, specs[0]!, 'diag', '10.244.1.5', pods, podMtu);
  const local = addPod(sim, specs[0]!, 'local', '10.244.1.9', pods, podMtu);
  const remote = addPod(sim, specs[1]!, 'remote', '10.244.2.7', pods, podMtu);
  if (nodes === 'direct') {
    must(w1, 'ip route add 10.244.2.0/24 via 172.18.0.3 dev eth0');
    must(w2, 'ip route add 10.244.1.0/24 via 172.18.0.2 dev eth0');
  } else {
    for (const spec of specs) {
      must(
        spec.ns,
        `ip link add flannel.1 type vxlan id 1 local ${spec.address} dev eth0 nolearning dstport 8472`,
      );
      must(spec.ns, `ip addr add ${spec.tunnelAddress}/32 dev flannel.1`);
      must(spec.ns, 'ip link set flannel.1 up');
    }
    // What flanneld installs for each remote node: a route through the tunnel, a permanent
    // neighbour for the remote VTEP's address, and an FDB entry pointing its MAC at the node.
    for (const [spec, peer] of [
      [specs[0]!, specs[1]!],
      [specs[1]!, specs[0]!],
    ] as const) {
      const peerMac = formatMacOf(peer.ns, 'flannel.1');
      must(spec.ns, `ip route add ${peer.podCidr} via ${peer.tunnelAddress} dev flannel.1 onlink`);
      must(spec.ns, `ip neigh replace ${peer.tunnelAddress} lladdr ${peerMac} dev flannel.1 nud permanent`);
      must(spec.ns, `bridge fdb append ${peerMac} dev flannel.1 dst ${peer.address} self permanent`);
    }
  }
  return { sim, segment, w1, w2, diag, local, remote };
}

/** What a CNI ADD does for one pod: a veth pair, the pod end as eth0 with its address and routes. */
function addPod(
  sim: Simulation,
  node: NodeSpec,
  name: string,
  address: string,
  wiring: PodWiring,
  mtu: number,
): Namespace {
  const pod = sim.addNamespace(name);
  // CNI plugins name the host end veth + 8 random hex digits; ours come from the seed.
  const hostVeth = `veth${pod.rng.u32().toString(16).padStart(8, '0')}`;
  must(pod, 'ip link set lo up');
  // CNI plugins give both ends the pod MTU (a veth peer left without one would get 1500).
  must(pod, `ip link add eth0 mtu ${mtu} type veth peer name ${hostVeth} mtu ${mtu} netns ${node.ns.name}`);
  if (wiring === 'bridge') {
    must(pod, `ip addr add ${address}/24 dev eth0`);
    must(pod, 'ip link set eth0 up');
    must(pod, `ip route add default via ${node.gateway} dev eth0`);
    must(node.ns, `ip link set ${hostVeth} master cni0`);
    // flannel's CNI configuration asks the bridge plugin for hairpinMode: a pod may reach itself through a Service.
    must(node.ns, `bridge link set dev ${hostVeth} hairpin on`);
    must(node.ns, `ip link set ${hostVeth} up`);
  } else {
    // kindnet's ptp: the pod has a /24 whose gateway is reached on the link; the node owns
    // the gateway address on every host-side veth and routes each pod address to its veth.
    must(pod, `ip addr add ${address}/24 dev eth0`);
    must(pod, 'ip link set eth0 up');
    must(pod, `ip route del ${node.podCidr} dev eth0`);
    must(pod, `ip route add ${node.gateway} dev eth0 scope link src ${address}`);
    must(pod, `ip route add ${node.podCidr} via ${node.gateway} dev eth0 src ${address}`);
    must(pod, `ip route add default via ${node.gateway} dev eth0`);
    must(node.ns, `ip addr add ${node.gateway}/32 dev ${hostVeth}`);
    must(node.ns, `ip link set ${hostVeth} up`);
    must(node.ns, `ip route add ${address} dev ${hostVeth} scope host`);
  }
  return pod;
}

function formatMacOf(ns: Namespace, device: string): string {
  const dev = ns.byName(device);
  if (dev === undefined) throw new Error(`${ns.name}: no ${device}`);
  return formatMac(dev.mac);
}
