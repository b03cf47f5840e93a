// Topologies the differential cases share, as harness scenarios: two hosts on a veth, the lesson's kind cluster
// (scenarios/lesson-topology.ts) with the same addresses, names and commands, and fixed MACs and veth names, and a
// kind cluster built from src/k8s's cluster plan (kindCluster) with a real CNI's commands.

import { type ServiceSpec, SIGNALEMENTS } from '../../scenarios/kube-proxy-iptables.ts';
import { type ClusterPlan, clusterPlan, type PlanPod } from '../../src/k8s/cluster-plan.ts';
import type { Cni } from '../../src/k8s/cni/cni.ts';
import { type Scenario, ScenarioBuilder } from './scenario.ts';

/** The lesson's TCP Service with only its endpoint on w2 (10.244.2.7:8000), so the kernel's random pick cannot differ. */
export const REMOTE_ENDPOINT_SERVICE: ServiceSpec = {
  ...SIGNALEMENTS,
  nodePort: undefined,
  endpoints: ['10.244.2.7:8000'],
};

/** Hosts `a` (10.0.0.1) and `b` (10.0.0.2) on one veth pair, `veth-a` and `veth-b`. */
/**
 * `ip route` words that replace twoHosts' link route on a with one pinned to CUBIC: the host's default here is bbr
 * and a namespace cannot change net.ipv4.tcp_congestion_control, but a route's congctl applies on both sides.
 */
export const CUBIC_LINK_ROUTE = [
  'replace',
  '10.0.0.0/24',
  'dev',
  'veth-a',
  'proto',
  'kernel',
  'scope',
  'link',
  'src',
  '10.0.0.1',
  'congctl',
  'cubic',
] as const;

/** The same link route pinned to Reno (`tcp_reno`, built into every kernel). */
export const RENO_LINK_ROUTE = [...CUBIC_LINK_ROUTE.slice(0, -1), 'reno'] as const;

export function twoHosts(name: string): ScenarioBuilder {
  return new ScenarioBuilder(name)
    .namespace('a')
    .namespace('b')
    .veth('a', 'veth-a', 'b', 'veth-b')
    .addr('a', '10.0.0.1/24', 'veth-a')
    .addr('b', '10.0.0.2/24', 'veth-b')
    .up('a', 'veth-a')
    .up('b', 'veth-b');
}

export type PodWiring = 'bridge' | 'routed';
export type NodeWiring = 'direct' | 'vxlan';

export interface LessonOptions {
  readonly pods?: PodWiring;
  readonly nodes?: NodeWiring;
  /** The pods' (and cni0's) MTU; 1450 with VXLAN, 1500 otherwise. */
  readonly podMtu?: number;
  readonly underlayMtu?: number;
  /** A machine outside the cluster on the nodes' network: namespace `client`, 172.18.0.100. */
  readonly client?: boolean;
}

interface NodeSpec {
  readonly ns: 'w1' | 'w2';
  readonly address: string;
  readonly podCidr: string;
  readonly gateway: string;
  readonly tunnelAddress: string;
}

const NODES: readonly NodeSpec[] = [
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

/**
 * The lesson's cluster: nodes w1 and w2 on the segment `kind`, pods diag (10.244.1.5) and
 * local (10.244.1.9) on w1, remote (10.244.2.7) on w2; host-side veths are `veth-POD`.
 */
export function lesson(name: string, options: LessonOptions = {}): ScenarioBuilder {
  const pods = options.pods ?? 'bridge';
  const nodes = options.nodes ?? 'vxlan';
  const podMtu = options.podMtu ?? (nodes === 'vxlan' ? 1450 : 1500);
  const b = new ScenarioBuilder(name);
  b.namespace('w1').namespace('w2').namespace('diag').namespace('local').namespace('remote');
  b.segment('kind', { mtu: options.underlayMtu ?? 1500 });
  if (options.client === true) {
    b.namespace('client').attach('kind', 'client', 'eth0').addr('client', '172.18.0.100/16', 'eth0');
  }
  for (const node of NODES) {
    b.attach('kind', node.ns, 'eth0');
    b.addr(node.ns, `${node.address}/16`, 'eth0');
    b.sysctl(node.ns, 'net.ipv4.ip_forward', 1);
    if (pods === 'bridge') {
      b.bridge(node.ns, 'cni0', { mtu: podMtu });
      b.addr(node.ns, `${node.gateway}/24`, 'cni0');
      b.up(node.ns, 'cni0');
    }
  }
  addPod(b, NODES[0]!, 'diag', '10.244.1.5', pods, podMtu);
  addPod(b, NODES[0]!, 'local', '10.244.1.9', pods, podMtu);
  addPod(b, NODES[1]!, 'remote', '10.244.2.7', pods, podMtu);
  if (nodes === 'direct') {
    b.route('w1', 'add', '10.244.2.0/24', 'via', '172.18.0.3', 'dev', 'eth0');
    b.route('w2', 'add', '10.244.1.0/24', 'via', '172.18.0.2', 'dev', 'eth0');
  } else {
    for (const node of NODES) {
      b.vxlan(node.ns, 'flannel.1', {
        id: 1,
        local: node.address,
        dev: 'eth0',
        dstport: 8472,
        learning: false,
      });
      b.addr(node.ns, `${node.tunnelAddress}/32`, 'flannel.1');
      b.up(node.ns, 'flannel.1');
    }
    // What flanneld installs for each remote node: a route through the tunnel, a permanent
    // neighbour for the remote VTEP's address and an FDB entry pointing its MAC at the node.
    for (const [node, peer] of [
      [NODES[0]!, NODES[1]!],
      [NODES[1]!, NODES[0]!],
    ] as const) {
      const peerMac = b.macOf(peer.ns, 'flannel.1');
      b.route(node.ns, 'add', peer.podCidr, 'via', peer.tunnelAddress, 'dev', 'flannel.1', 'onlink');
      b.neigh(
        node.ns,
        'replace',
        peer.tunnelAddress,
        'lladdr',
        peerMac,
        'dev',
        'flannel.1',
        'nud',
        'permanent',
      );
      b.fdb(node.ns, 'append', peerMac, 'dev', 'flannel.1', 'dst', peer.address, 'self', 'permanent');
    }
  }
  return b;
}

/** What a CNI ADD does for one pod (see scenarios/lesson-topology.ts). */
function addPod(
  b: ScenarioBuilder,
  node: NodeSpec,
  pod: string,
  address: string,
  wiring: PodWiring,
  mtu: number,
): void {
  const hostVeth = `veth-${pod}`;
  b.veth(pod, 'eth0', node.ns, hostVeth, { mtu });
  b.addr(pod, `${address}/24`, 'eth0');
  b.up(pod, 'eth0');
  if (wiring === 'bridge') {
    b.route(pod, 'add', 'default', 'via', node.gateway, 'dev', 'eth0');
    b.master(node.ns, hostVeth, 'cni0');
    b.up(node.ns, hostVeth);
  } else {
    b.route(pod, 'del', node.podCidr, 'dev', 'eth0');
    b.route(pod, 'add', node.gateway, 'dev', 'eth0', 'scope', 'link', 'src', address);
    b.route(pod, 'add', node.podCidr, 'via', node.gateway, 'dev', 'eth0', 'src', address);
    b.route(pod, 'add', 'default', 'via', node.gateway, 'dev', 'eth0');
    b.addr(node.ns, `${node.gateway}/32`, hostVeth);
    b.up(node.ns, hostVeth);
    b.route(node.ns, 'add', address, 'dev', hostVeth, 'scope', 'host');
  }
}

/** Harness namespace names are short: `cp`, `w1`, `w2`... for NAME-control-plane, NAME-worker, NAME-worker2... */
export function shortNodeNs(_nodeName: string, index: number): string {
  return index === 0 ? 'cp' : `w${index}`;
}

export interface KindCluster {
  /** The plan's namespaces with lo up and its commands as set-up; add traffic and observations to it. */
  readonly builder: ScenarioBuilder;
  readonly plan: ClusterPlan;
  /** The scenario, with the plan's segment (Docker's MACs on its ports, the outside first). */
  build(): Scenario;
}

/**
 * A kind cluster from src/k8s's cluster plan (clusterPlan): the outside, the control plane `cp` and workers `w1`...,
 * the CNI's node and peer commands, and CNI ADD for the given pods (each pod's namespace has its name).
 */
export function kindCluster(
  name: string,
  options: { readonly cni: Cni; readonly workers?: number; readonly pods?: readonly PlanPod[] },
): KindCluster {
  const plan = clusterPlan({
    name: 'formation',
    workers: options.workers ?? 2,
    cni: options.cni,
    seed: name,
    nodeNs: shortNodeNs,
    ...(options.pods !== undefined ? { pods: options.pods } : {}),
  });
  const builder = new ScenarioBuilder(name);
  for (const ns of plan.namespaces) builder.namespace(ns);
  for (const command of plan.commands) builder.command(command.ns, command.argv, command.stdin);
  return { builder, plan, build: () => ({ ...builder.build(), segments: plan.segments }) };
}
