// Topologies the differential cases share, as harness scenarios: two hosts on a veth, the lesson's kind cluster
// (src/k8s/lesson.ts's wiring, the one lessonTopology runs) with fixed MACs and veth names, and a
// kind cluster built from src/k8s's cluster plan (kindCluster) with a real CNI's commands.

import { type ClusterPlan, clusterPlan, type PlanPod } from '../k8s/cluster-plan.ts';
import type { Cni } from '../k8s/cni/cni.ts';
import { type LessonWiring, wireLesson } from '../k8s/lesson.ts';
import { type Scenario, ScenarioBuilder } from './scenario.ts';

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

/** Hosts `a` (10.0.0.1) and `b` (10.0.0.2) on one veth pair, `veth-a` and `veth-b`. */
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

export type { NodeWiring, PodWiring } from '../k8s/lesson.ts';

export interface LessonOptions extends Omit<LessonWiring, 'hairpin'> {
  /** A machine outside the cluster on the nodes' network: namespace `client`, 172.18.0.100. */
  readonly client?: boolean;
}

/**
 * The lesson's cluster from src/k8s/lesson.ts (wireLesson, the wiring lessonTopology runs): nodes w1 and w2 on the
 * segment `kind`, pods diag (10.244.1.5) and local (10.244.1.9) on w1, remote (10.244.2.7) on w2; host-side veths are
 * `veth-POD`, every MAC is pinned by the builder, and bridge ports keep hairpin off (cases turn it on themselves).
 */
export function lesson(name: string, options: LessonOptions = {}): ScenarioBuilder {
  const b = new ScenarioBuilder(name);
  const { client, ...wiring } = options;
  wireLesson(
    {
      namespace: (ns) => void b.namespace(ns),
      segment(segment, mtu) {
        b.segment(segment, { mtu });
        if (client === true)
          b.namespace('client').attach(segment, 'client', 'eth0').addr('client', '172.18.0.100/16', 'eth0');
      },
      attach: (segment, ns, ifname) => void b.attach(segment, ns, ifname),
      run: (ns, argv) => void b.command(ns, argv),
      deviceAdded: (ns, dev) => void b.pinMac(ns, dev),
      macOf: (ns, dev) => b.macOf(ns, dev),
      hostVeth: (pod) => `veth-${pod}`,
    },
    { ...wiring, hairpin: false },
  );
  return b;
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
