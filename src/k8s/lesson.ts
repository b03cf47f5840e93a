// The lesson's hand-wired two-node cluster (its cases 1 and 2): nodes w1 (172.18.0.2) and w2 (172.18.0.3) on the
// Docker-like segment `kind`, pods diag (10.244.1.5) and local (10.244.1.9) on w1 and remote (10.244.2.7) on w2, wired
// with the commands a CNI plugin and flanneld run. Unlike cluster() it has no control plane, no kube-proxy and no
// masquerade: a scenario adds its own rules. The wiring is written once against a LessonWriter, which packetlab runs
// with the command façade (lessonTopology) and the kernel harness turns into its scenario (src/harness/topologies.ts).
//
// Four ways to wire it, as the lesson's cases 1 and 2 describe: pods on a node joined by a bridge (cni0, as the bridge
// plugin and Flannel do) or by routes to each veth (kindnet's ptp), and nodes joined by direct routes or by a VXLAN
// tunnel (flannel.1, VNI 1, UDP 8472). Does not model the control-plane node, the outside or the CNI's IPAM.

import type { Namespace } from '../netns/namespace.ts';
import type { Segment } from '../netns/segment.ts';
import { Simulation } from '../netns/simulation.ts';
import { execOrThrow, runArgv } from '../tools/exec.ts';
import { formatMac } from '../wire/address.ts';
import type { Word } from './plan.ts';

export type PodWiring = 'bridge' | 'routed';
export type NodeWiring = 'direct' | 'vxlan';

export interface LessonWiring {
  readonly pods?: PodWiring;
  readonly nodes?: NodeWiring;
  /** The pods' (and cni0's) MTU; defaults to 1450 with VXLAN, 1500 otherwise. */
  readonly podMtu?: number;
  /** The Docker network's MTU (a frame bigger than this + 18 vanishes). */
  readonly underlayMtu?: number;
  /** `bridge link set dev VETH hairpin on` on each bridge port, as flannel's CNI config asks (default true). */
  readonly hairpin?: boolean;
}

/** Where the wiring goes: commands run at once (packetlab) or collected into a kernel-harness scenario. */
export interface LessonWriter {
  /** A namespace with `lo` up. */
  namespace(name: string): void;
  segment(name: string, mtu: number): void;
  /** Plugs `ns` into the segment as `ifname` (as Docker does for a kind node). */
  attach(segment: string, ns: string, ifname: string): void;
  run(ns: string, argv: readonly Word[]): void;
  /** Called right after a device is created (the harness pins its MAC there; packetlab keeps the seeded one). */
  deviceAdded(ns: string, dev: string): void;
  /** The MAC of a device already created, as `ip neigh` and `bridge fdb` want it. */
  macOf(ns: string, dev: string): string;
  /** The host end of a pod's veth (a CNI plugin's `veth` + 8 random hex digits, or a fixed name). */
  hostVeth(pod: string): string;
}

interface NodeSpec {
  readonly ns: 'w1' | 'w2';
  readonly address: string;
  readonly podCidr: string;
  readonly gateway: string;
  /** The node's address inside its pod CIDR, as Flannel puts it on flannel.1 (10.244.N.0). */
  readonly tunnelAddress: string;
}

const NODES: readonly [NodeSpec, NodeSpec] = [
  {
    ns: 'w1',
    address: '172.18.0.2',
    podCidr: '10.244.1.0/24',
    gateway: '10.244.1.1',
    tunnelAddress: '10.244.1.0',
  },
  {
    ns: 'w2',
    address: '172.18.0.3',
    podCidr: '10.244.2.0/24',
    gateway: '10.244.2.1',
    tunnelAddress: '10.244.2.0',
  },
];

/** The lesson's namespaces in creation order. */
export const LESSON_NAMESPACES = ['w1', 'w2', 'diag', 'local', 'remote'] as const;

/** Writes the lesson's cluster: namespaces, the segment `kind`, nodes, pods, then the links between nodes. */
export function wireLesson(w: LessonWriter, options: LessonWiring = {}): void {
  const pods = options.pods ?? 'bridge';
  const nodes = options.nodes ?? 'vxlan';
  const podMtu = options.podMtu ?? (nodes === 'vxlan' ? 1450 : 1500);
  const hairpin = options.hairpin ?? true;
  for (const name of LESSON_NAMESPACES) w.namespace(name);
  w.segment('kind', options.underlayMtu ?? 1500);
  for (const node of NODES) {
    w.attach('kind', node.ns, 'eth0');
    w.run(node.ns, ['ip', 'addr', 'add', `${node.address}/16`, 'dev', 'eth0']);
    w.run(node.ns, ['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    if (pods === 'bridge') {
      w.run(node.ns, ['ip', 'link', 'add', 'cni0', 'mtu', String(podMtu), 'type', 'bridge']);
      w.deviceAdded(node.ns, 'cni0');
      w.run(node.ns, ['ip', 'addr', 'add', `${node.gateway}/24`, 'dev', 'cni0']);
      w.run(node.ns, ['ip', 'link', 'set', 'cni0', 'up']);
    }
  }
  const pod = { wiring: pods, mtu: podMtu, hairpin };
  addPod(w, NODES[0], 'diag', '10.244.1.5', pod);
  addPod(w, NODES[0], 'local', '10.244.1.9', pod);
  addPod(w, NODES[1], 'remote', '10.244.2.7', pod);
  if (nodes === 'direct') {
    w.run('w1', ['ip', 'route', 'add', '10.244.2.0/24', 'via', '172.18.0.3', 'dev', 'eth0']);
    w.run('w2', ['ip', 'route', 'add', '10.244.1.0/24', 'via', '172.18.0.2', 'dev', 'eth0']);
    return;
  }
  for (const node of NODES) {
    w.run(node.ns, [
      'ip',
      'link',
      'add',
      'flannel.1',
      'type',
      'vxlan',
      'id',
      '1',
      'local',
      node.address,
      'dev',
      'eth0',
      'dstport',
      '8472',
      'nolearning',
    ]);
    w.deviceAdded(node.ns, 'flannel.1');
    w.run(node.ns, ['ip', 'addr', 'add', `${node.tunnelAddress}/32`, 'dev', 'flannel.1']);
    w.run(node.ns, ['ip', 'link', 'set', 'flannel.1', 'up']);
  }
  // What flanneld installs for each remote node (mirrors flannel's vxlan_network.go handleSubnetEvents): a route
  // through the tunnel, a permanent neighbour for the remote VTEP's address and an FDB entry pointing its MAC at it.
  for (const [node, peer] of [
    [NODES[0], NODES[1]],
    [NODES[1], NODES[0]],
  ] as const) {
    const peerMac = w.macOf(peer.ns, 'flannel.1');
    w.run(node.ns, [
      'ip',
      'route',
      'add',
      peer.podCidr,
      'via',
      peer.tunnelAddress,
      'dev',
      'flannel.1',
      'onlink',
    ]);
    w.run(node.ns, [
      'ip',
      'neigh',
      'replace',
      peer.tunnelAddress,
      'lladdr',
      peerMac,
      'dev',
      'flannel.1',
      'nud',
      'permanent',
    ]);
    w.run(node.ns, [
      'bridge',
      'fdb',
      'append',
      peerMac,
      'dev',
      'flannel.1',
      'dst',
      peer.address,
      'self',
      'permanent',
    ]);
  }
}

/** What a CNI ADD does for one pod: a veth pair, the pod end as eth0 with its address and routes. */
function addPod(
  w: LessonWriter,
  node: NodeSpec,
  name: string,
  address: string,
  pod: { readonly wiring: PodWiring; readonly mtu: number; readonly hairpin: boolean },
): void {
  const hostVeth = w.hostVeth(name);
  const mtu = String(pod.mtu);
  // CNI plugins give both ends the pod MTU (a veth peer left without one would get 1500).
  w.run(name, [
    'ip',
    'link',
    'add',
    'eth0',
    'mtu',
    mtu,
    'type',
    'veth',
    'peer',
    'name',
    hostVeth,
    'mtu',
    mtu,
    'netns',
    { ns: node.ns },
  ]);
  w.deviceAdded(name, 'eth0');
  w.deviceAdded(node.ns, hostVeth);
  w.run(name, ['ip', 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
  w.run(name, ['ip', 'link', 'set', 'eth0', 'up']);
  if (pod.wiring === 'bridge') {
    w.run(name, ['ip', 'route', 'add', 'default', 'via', node.gateway, 'dev', 'eth0']);
    w.run(node.ns, ['ip', 'link', 'set', hostVeth, 'master', 'cni0']);
    // flannel's CNI configuration asks the bridge plugin for hairpinMode: a pod may reach itself through a Service.
    if (pod.hairpin) w.run(node.ns, ['bridge', 'link', 'set', 'dev', hostVeth, 'hairpin', 'on']);
    w.run(node.ns, ['ip', 'link', 'set', hostVeth, 'up']);
    return;
  }
  // kindnet's ptp: the pod has a /24 whose gateway is reached on the link; the node owns the gateway address on every
  // host-side veth and routes each pod address to its veth.
  w.run(name, ['ip', 'route', 'del', node.podCidr, 'dev', 'eth0']);
  w.run(name, ['ip', 'route', 'add', node.gateway, 'dev', 'eth0', 'scope', 'link', 'src', address]);
  w.run(name, ['ip', 'route', 'add', node.podCidr, 'via', node.gateway, 'dev', 'eth0', 'src', address]);
  w.run(name, ['ip', 'route', 'add', 'default', 'via', node.gateway, 'dev', 'eth0']);
  w.run(node.ns, ['ip', 'addr', 'add', `${node.gateway}/32`, 'dev', hostVeth]);
  w.run(node.ns, ['ip', 'link', 'set', hostVeth, 'up']);
  w.run(node.ns, ['ip', 'route', 'add', address, 'dev', hostVeth, 'scope', 'host']);
}

export interface LessonOptions extends LessonWiring {
  readonly seed?: string | number;
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

/** Builds the lesson's cluster in a new Simulation; host veths are named from each pod namespace's seeded rng. */
export function lessonTopology(options: LessonOptions = {}): Lesson {
  const sim = new Simulation({ seed: options.seed ?? 'lesson' });
  const namespaces = new Map<string, Namespace>();
  let segment: Segment | undefined;
  const nsOf = (name: string): Namespace => {
    const ns = namespaces.get(name);
    if (ns === undefined) throw new Error(`no namespace ${name} in the lesson`);
    return ns;
  };
  wireLesson(
    {
      namespace(name) {
        const ns = sim.addNamespace(name);
        namespaces.set(name, ns);
        execOrThrow(ns, 'ip link set lo up');
      },
      segment(name, mtu) {
        segment = sim.addSegment(name, { mtu });
      },
      attach(_segment, ns, ifname) {
        segment?.attach(nsOf(ns), ifname);
      },
      run(ns, argv) {
        const words = argv.map((word) => {
          if (typeof word === 'string') return word;
          if ('ns' in word) return nsOf(word.ns).name;
          throw new Error('the lesson writes no files');
        });
        const result = runArgv(nsOf(ns), words, '');
        if (result.exitCode !== 0) throw new Error(`${ns}: ${words.join(' ')}: ${result.stderr.trim()}`);
      },
      deviceAdded() {},
      macOf(ns, dev) {
        const device = nsOf(ns).byName(dev);
        if (device === undefined) throw new Error(`${ns}: no ${dev}`);
        return formatMac(device.mac);
      },
      // CNI plugins name the host end veth + 8 random hex digits; ours come from the pod namespace's seed.
      hostVeth(pod) {
        return `veth${nsOf(pod).rng.u32().toString(16).padStart(8, '0')}`;
      },
    },
    options,
  );
  if (segment === undefined) throw new Error('the lesson has no segment');
  return {
    sim,
    segment,
    w1: nsOf('w1'),
    w2: nsOf('w2'),
    diag: nsOf('diag'),
    local: nsOf('local'),
    remote: nsOf('remote'),
  };
}

/** ip-masq-agent's rule: pods talking to anything outside the pod network leave with the node's address. */
export const MASQ_AGENT_RULES = `*nat
:IP-MASQ-AGENT - [0:0]
-A POSTROUTING -m comment --comment "ip-masq-agent: ensure nat POSTROUTING directs all non-LOCAL destination traffic to our custom IP-MASQ-AGENT chain" -m addrtype ! --dst-type LOCAL -j IP-MASQ-AGENT
-A IP-MASQ-AGENT -d 10.244.0.0/16 -m comment --comment "ip-masq-agent: local traffic is not subject to MASQUERADE" -j RETURN
-A IP-MASQ-AGENT -m comment --comment "ip-masq-agent: outbound traffic is subject to MASQUERADE (must be last in chain)" -j MASQUERADE
COMMIT
`;

export interface ServicesLesson extends Lesson {
  /** A machine outside the cluster on the nodes' network (172.18.0.100). */
  readonly client: Namespace;
}

/**
 * The lesson's cases 3 to 6: the bridge + VXLAN cluster with a kube-proxy nat ruleset (rendered by the caller) and
 * ip-masq-agent's egress MASQUERADE loaded on both nodes with `iptables-restore --noflush`, and an outside client.
 */
export function lessonServices(options: LessonOptions & { readonly kubeProxyRules: string }): ServicesLesson {
  const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan', ...options });
  for (const node of [lesson.w1, lesson.w2]) {
    for (const input of [options.kubeProxyRules, MASQ_AGENT_RULES])
      execOrThrow(node, 'iptables-restore --noflush', { stdin: input });
  }
  const client = lesson.sim.addNamespace('client');
  execOrThrow(client, 'ip link set lo up');
  lesson.segment.attach(client, 'eth0');
  execOrThrow(client, 'ip addr add 172.18.0.100/16 dev eth0');
  return { ...lesson, client };
}
