// The kernel plans `packetlab verify` runs for scenarios: each is a harness scenario (src/harness/scenario.ts) of the
// scenario's world, run on packetlab and in real namespaces and compared. The cluster plan is also what
// test/linux/k8s-cni.test.ts runs, the lesson's plan what test/linux/lesson-cases.test.ts runs. Not here: plans for the Service cases (3, 4, 6), the incident or the traffic story.

import type { KernelPlan, KernelPlanResult } from '../src/harness/kernel-plan.ts';
import { type PingOptions, type Scenario, ScenarioBuilder } from '../src/harness/scenario.ts';
import { kindCluster, lesson, shortNodeNs, twoHosts } from '../src/harness/topologies.ts';
import { service } from '../src/k8s/api/builders.ts';
import { cluster } from '../src/k8s/cluster.ts';
import { clusterPlan, type PlanPod } from '../src/k8s/cluster-plan.ts';
import type { Cni } from '../src/k8s/cni/cni.ts';
import { FlannelHostGw, FlannelVxlan } from '../src/k8s/cni/flannel.ts';
import { Kindnet } from '../src/k8s/cni/kindnet.ts';
import { IptablesProxier } from '../src/k8s/kube-proxy/iptables/proxier.ts';
import { NftablesProxier } from '../src/k8s/kube-proxy/nftables/proxier.ts';
import type { NodeWiring, PodWiring } from '../src/k8s/lesson.ts';
import type { EndpointSlice, Service } from '../src/k8s/objects.ts';
import type { FormationCni, FormationProxy } from './formation-cluster.ts';

/** veth: a (10.0.0.1) and b (10.0.0.2) on one veth pair, `ping -c 2` from a, every frame on veth-a. */
export function vethPlan(): KernelPlan {
  const scenario = twoHosts('veth')
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
      'two namespaces and their veth pair, its ping -c 2 (with -n), the frames on veth-a, then ip neigh, ip route, ip -s link',
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
  'flannel-host-gw': () => new FlannelHostGw(),
};

/** The lesson cases a kernel plan exists for: the pod-to-pod and egress paths, the Service from a pod and from outside. */
export const PLANNED_LESSON_CASES = [1, 2, 3, 4, 5, 6] as const;

/**
 * The Service signalements (10.96.40.12:80 → 8000, NodePort 30080) as the control plane of a cluster() makes it, with
 * its one endpoint, remote (10.244.2.7 on formation-worker2), so the kernel's random pick cannot differ from
 * packetlab's; the EndpointSlice is the controller's.
 */
function signalementsObjects(): { services: Service[]; endpointSlices: EndpointSlice[] } {
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni: 'kindnet',
    kubeProxy: 'none',
    seed: 'kernel-plans',
  });
  for (const pod of [DIAG, REMOTE]) {
    const labels: Record<string, string> = pod === REMOTE ? { app: 'signalements' } : { app: pod.name };
    const created = c.createPod({ name: pod.name, node: pod.node, ip: pod.address, labels });
    if (!created.ok) throw new Error(created.error.message);
  }
  const created = c.store.create<'Service'>(
    service({
      name: 'signalements',
      type: 'NodePort',
      clusterIP: '10.96.40.12',
      ports: [{ name: 'http', port: 80, targetPort: 8000, nodePort: 30080, protocol: 'TCP' }],
      selector: { app: 'signalements' },
    }),
  );
  if (!created.ok) throw new Error(created.error.message);
  c.sim.run(2e9);
  return { services: c.store.list('Service'), endpointSlices: c.store.list('EndpointSlice') };
}

/**
 * Cases 3 and 4 (diag calls the ClusterIP; the answer comes back from it, un-NATed by conntrack) and 6 (the Docker
 * host calls NodePort 30080 on formation-worker; the pod sees the node's masquerade): the cluster plan with every
 * node's kube-proxy (`mode`, packetlab's rendering of the proxier's first sync), a TCP echo to the Service, frames on
 * the caller's and the pod's interfaces, `conntrack -L -p tcp` on formation-worker: the calls of
 * test/linux/lesson-cluster.test.ts, with every node's kube-proxy loaded as test/linux/k8s-kube-proxy.test.ts loads it.
 */
function servicePlan(which: 3 | 4 | 6, cni: FormationCni, mode: FormationProxy): Scenario {
  const name = `lesson-case-${which}-${cni}-${mode}`;
  const plan = clusterPlan({
    name: 'formation',
    workers: 2,
    cni: CNI_OF[cni](),
    seed: name,
    nodeNs: shortNodeNs,
    pods: [DIAG, REMOTE],
    kubeProxy: {
      proxier: mode === 'iptables' ? new IptablesProxier() : new NftablesProxier(),
      ...signalementsObjects(),
    },
  });
  const b = new ScenarioBuilder(name);
  for (const ns of plan.namespaces) b.namespace(ns);
  for (const command of plan.commands) b.command(command.ns, command.argv, command.stdin);
  const client = which === 6 ? 'outside' : 'diag';
  b.capture(client, 'eth0').capture('remote', 'eth0');
  // kube-proxy's first sync on every node (iptables 1.8.9 prints a notice for -W: traffic-phase commands).
  for (const command of plan.kubeProxy) b.actCommand(command.ns, command.argv, command.stdin);
  b.tcp({
    client: { ns: client, bind: '0.0.0.0', port: 41234 },
    server: { ns: 'remote', bind: '0.0.0.0', port: 8000 },
    dst: which === 6 ? '172.18.0.3' : '10.96.40.12',
    dstPort: which === 6 ? 30080 : 80,
    payload: 'GET /sante',
  }).observe('w1', 'conntrack', '-L', '-p', 'tcp');
  return { ...b.build(), segments: plan.segments };
}

/**
 * `lesson-case N CNI MODE`: case 1 pings the pod next to diag, case 2 the pod on formation-worker2, case 5 the
 * Internet host through both masquerades (the CNI's plan without kube-proxy: these cases use no Service); cases 3, 4
 * and 6 call the Service through kube-proxy's rules in MODE (servicePlan).
 */
export function lessonCasePlan(which: number, cni: FormationCni, mode: FormationProxy): KernelPlanResult {
  if (which === 3 || which === 4 || which === 6)
    return {
      scenario: servicePlan(which, cni, mode),
      // The masquerade picks the NodePort caller's port (nftables mode: fully random); these are the fixed ones.
      compare: { natPorts: [41234, 30080, 8000, 80] },
      covers: `the cluster formation as ${cni}'s plan builds it with kube-proxy's ${mode} rules on every node (Service signalements, its one endpoint remote 10.244.2.7:8000), a TCP echo from ${which === 6 ? 'the Docker host to NodePort 172.18.0.3:30080' : 'diag to 10.96.40.12:80'}, frames on the caller's and the pod's eth0, conntrack -L on formation-worker`,
    };
  const pings: Record<1 | 2 | 5, PlanPing> = {
    1: { from: 'diag', to: LOCAL.address, options: { count: 2, interval: 0.2 } },
    2: { from: 'diag', to: REMOTE.address, options: { count: 2, interval: 0.2 } },
    5: { from: 'diag', to: '203.0.113.10', options: { count: 1 } },
  };
  if (which !== 1 && which !== 2 && which !== 5)
    return { usage: `packetlab: lesson-case ${which} has no kernel plan (verify runs lesson-case 1 to 6)` };
  const ping = pings[which];
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
