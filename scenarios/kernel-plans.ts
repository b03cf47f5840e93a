// The kernel plans `packetlab verify` runs for scenarios: each is a harness scenario (src/harness/scenario.ts) of the
// scenario's world, run on packetlab and in real namespaces and compared. The cluster plan is also what
// test/linux/k8s-cni.test.ts runs, the lesson's plan what test/linux/lesson-cases.test.ts runs. Not here: plans for the Service cases (3, 4, 6), the incident or the traffic story.

import type { KernelPlan, KernelPlanResult } from '../src/harness/kernel-plan.ts';
import type { PingOptions, Scenario } from '../src/harness/scenario.ts';
import { kindCluster, lesson, twoHosts } from '../src/harness/topologies.ts';
import type { PlanPod } from '../src/k8s/cluster-plan.ts';
import type { Cni } from '../src/k8s/cni/cni.ts';
import { FlannelVxlan } from '../src/k8s/cni/flannel.ts';
import { Kindnet } from '../src/k8s/cni/kindnet.ts';
import type { NodeWiring, PodWiring } from '../src/k8s/lesson.ts';
import type { FormationCni } from './formation-cluster.ts';

/** The tour: a (10.0.0.1) and b (10.0.0.2) on one veth pair, `ping -c 2` from a, every frame on veth-a. */
export function tourPlan(): KernelPlan {
  const scenario = twoHosts('tour')
    .capture('a', 'veth-a')
    .ping('a', '10.0.0.2', { count: 2 })
    .observe('a', 'ip', 'neigh')
    .observe('b', 'ip', 'neigh')
    .observe('a', 'ip', 'route')
    .observe('a', 'ip', '-s', 'link', 'show', 'dev', 'veth-a')
    .build();
  return {
    scenario,
    covers:
      "the tour's two namespaces and veth pair, its ping -c 2 (with -n), the frames on veth-a, then ip neigh, ip route, ip -s link",
  };
}

/** A ping of the cluster plan: from a pod's namespace to an address. */
export interface PlanPing {
  readonly from: string;
  readonly to: string;
  readonly options?: PingOptions;
}

/**
 * The kind cluster `formation` from src/k8s's cluster plan for `cni`, with `pods`: the pings in order, then a worker's
 * routes, links, the tunnel's details, FDB, neighbours and NAT rules, and diag's routes, link and neighbours.
 * `ip -d link show` is for the tunnel device only: the kernel gives a veth one TX/RX queue per possible CPU
 * (numtxqueues 2 on a 2-CPU machine, 1 on packetlab) and prints a bridge's running gc and forward-delay timers, which
 * packetlab prints as 0.00 (docs/deviations.md). Every device's `ip link show` line is compared.
 */
export function cniPlan(
  name: string,
  cni: Cni,
  options: {
    readonly pods: readonly PlanPod[];
    readonly pings: readonly PlanPing[];
    readonly captures?: readonly [string, string][];
  },
): Scenario {
  const cluster = kindCluster(name, { cni, pods: options.pods });
  const b = cluster.builder;
  for (const [ns, iface] of options.captures ?? []) b.capture(ns, iface);
  for (const ping of options.pings) b.ping(ping.from, ping.to, ping.options);
  for (const argv of [
    ['ip', 'route'],
    ['ip', '-br', 'link'],
    ['ip', 'link', 'show'],
    ['ip', '-d', 'link', 'show', 'type', 'vxlan'],
    ['bridge', 'fdb', 'show'],
    ['ip', 'neigh'],
    ['iptables-save', '-t', 'nat'],
  ])
    b.observe('w1', ...argv);
  b.observe('diag', 'ip', 'route');
  b.observe('diag', 'ip', 'link', 'show', 'eth0');
  b.observe('diag', 'ip', 'neigh');
  return cluster.build();
}

const DIAG: PlanPod = { name: 'diag', node: 'formation-worker', address: '10.244.1.5' };
/** signalements-7d9f-b, next to diag on formation-worker (harness namespaces have short names). */
const LOCAL: PlanPod = { name: 'local', node: 'formation-worker', address: '10.244.1.9' };
/** signalements-7d9f-a on formation-worker2. */
const REMOTE: PlanPod = { name: 'remote', node: 'formation-worker2', address: '10.244.2.7' };

const CNI_OF: Record<FormationCni, () => Cni> = {
  kindnet: () => new Kindnet(),
  'flannel-vxlan': () => new FlannelVxlan(),
};

/** The lesson cases a kernel plan exists for: the pod-to-pod and egress paths the cluster plan builds. */
export const PLANNED_LESSON_CASES = [1, 2, 5] as const;

/**
 * `lesson-case N CNI`: case 1 pings the pod next to diag, case 2 the pod on formation-worker2, case 5 the Internet
 * host through both masquerades; pod and node interfaces are captured. kube-proxy's rules are not in the plan (these
 * cases use no Service).
 */
export function lessonCasePlan(which: number, cni: FormationCni): KernelPlanResult {
  const pings: Record<(typeof PLANNED_LESSON_CASES)[number], PlanPing> = {
    1: { from: 'diag', to: LOCAL.address, options: { count: 2, interval: 0.2 } },
    2: { from: 'diag', to: REMOTE.address, options: { count: 2, interval: 0.2 } },
    5: { from: 'diag', to: '203.0.113.10', options: { count: 1 } },
  };
  if (!(PLANNED_LESSON_CASES as readonly number[]).includes(which))
    return {
      usage: `packetlab: lesson-case ${which} has no kernel plan yet (verify runs lesson-case ${PLANNED_LESSON_CASES.join(', ')})`,
    };
  const ping = pings[which as (typeof PLANNED_LESSON_CASES)[number]];
  const scenario = cniPlan(`lesson-case-${which}-${cni}`, CNI_OF[cni](), {
    pods: which === 1 ? [DIAG, LOCAL] : [DIAG, REMOTE],
    pings: [ping],
    captures: [
      ['diag', 'eth0'],
      ['w1', 'eth0'],
    ],
  });
  return {
    scenario,
    covers: `the cluster formation as ${cni}'s plan builds it (no kube-proxy rules), ping ${ping.from} -> ${ping.to}, frames on diag/eth0 and w1/eth0, formation-worker's routes, links, FDB, neighbours and NAT rules`,
  };
}

/**
 * `lesson PODS NODES`: the lesson's hand-wired cluster (src/k8s/lesson.ts) with pods by a bridge or routes and nodes
 * by direct routes or VXLAN; diag pings the pod next to it (case 1) and the one on w2 (case 2), then a UDP exchange
 * to w2's pod; frames on every hop, the node's FDB and counters, routes and neighbours.
 */
export function lessonPlan(pods: PodWiring, nodes: NodeWiring): KernelPlan {
  const b = lesson(`lesson-${pods}-${nodes}`, { pods, nodes })
    .capture('diag', 'eth0')
    .capture('w1', 'eth0')
    .capture('remote', 'eth0');
  if (pods === 'bridge') b.capture('w1', 'cni0');
  if (nodes === 'vxlan') b.capture('w1', 'flannel.1');
  if (pods === 'bridge') b.observe('w1', 'bridge', 'fdb', 'show', 'br', 'cni0');
  if (nodes === 'vxlan') b.observe('w1', 'bridge', 'fdb', 'show', 'dev', 'flannel.1');
  const nodeDevices = [
    'eth0',
    ...(pods === 'bridge' ? ['cni0'] : []),
    ...(nodes === 'vxlan' ? ['flannel.1'] : []),
  ];
  for (const dev of nodeDevices) b.observe('w1', 'ip', '-s', 'link', 'show', 'dev', dev);
  const scenario = b
    .ping('diag', '10.244.1.9', { count: 2, interval: 0.2 })
    .ping('diag', '10.244.2.7', { count: 2, interval: 0.2 })
    .udp({
      client: { ns: 'diag', bind: '0.0.0.0', port: 41234 },
      server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
      dst: '10.244.2.7',
      count: 2,
      payload: 'GET /sante',
    })
    .observe('w1', 'ip', 'route')
    .observe('w1', 'ip', 'neigh')
    .observe('diag', 'ip', 'neigh')
    .build();
  return {
    scenario,
    covers: `the lesson's two nodes, pods by ${pods === 'bridge' ? 'a bridge' : 'routes'}, nodes by ${nodes === 'vxlan' ? 'VXLAN' : 'direct routes'}: diag pings 10.244.1.9 and 10.244.2.7, a UDP exchange to 10.244.2.7:8000, frames on every hop, w1's FDB, counters, routes and neighbours`,
  };
}
