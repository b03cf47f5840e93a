// A two-node cluster without controllers for the node and pod commands' tests: real namespaces (formation-worker with
// diag 10.244.1.5 and signalements-a 10.244.1.9, formation-worker2 with signalements-b 10.244.2.7), the lesson's
// Node/Pod/Service/EndpointSlice objects in a real Store, and a ClusterRuntime over them.

import type { ClusterCommandContext } from '../../../src/k8s/commands/context.ts';
import type { Node, Pod } from '../../../src/k8s/objects.ts';
import type { ClusterRuntime, ContainerRecord } from '../../../src/k8s/runtime.ts';
import { Store } from '../../../src/k8s/store.ts';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { execOrThrow } from '../../../src/tools/exec.ts';
import { serviceSpec } from '../../support/k8s-objects.ts';

const S = 1_000_000_000;

export interface Fixture {
  readonly sim: Simulation;
  readonly store: Store;
  readonly ctx: ClusterCommandContext;
  readonly containers: Map<string, ContainerRecord[]>;
}

interface PodSpecFixture {
  readonly name: string;
  readonly node: string;
  readonly ip: string;
  readonly veth: string;
  readonly container: string;
  readonly image: string;
  readonly labels: Record<string, string>;
  readonly pid: number;
  readonly pausePid: number;
  readonly seed: string;
}

const NODES = [
  { name: 'formation-worker', address: '172.18.0.3', podCidr: '10.244.1.0/24', gateway: '10.244.1.1' },
  { name: 'formation-worker2', address: '172.18.0.4', podCidr: '10.244.2.0/24', gateway: '10.244.2.1' },
];

const PODS: readonly PodSpecFixture[] = [
  {
    name: 'diag',
    node: 'formation-worker',
    ip: '10.244.1.5',
    veth: 'veth1a2b3c4d',
    container: 'diag',
    image: 'docker.io/nicolaka/netshoot:v0.13',
    labels: { run: 'diag' },
    pid: 2201,
    pausePid: 2170,
    seed: 'a1',
  },
  {
    name: 'signalements-7d9f-abcde',
    node: 'formation-worker',
    ip: '10.244.1.9',
    veth: 'veth5e6f7a8b',
    container: 'signalements',
    image: 'registry.example/signalements:1.4',
    labels: { app: 'signalements' },
    pid: 2388,
    pausePid: 2342,
    seed: 'b2',
  },
  {
    name: 'signalements-7d9f-fghij',
    node: 'formation-worker2',
    ip: '10.244.2.7',
    veth: 'veth9c0d1e2f',
    container: 'signalements',
    image: 'registry.example/signalements:1.4',
    labels: { app: 'signalements' },
    pid: 1877,
    pausePid: 1840,
    seed: 'c3',
  },
];

/** 64 hex digits from a short seed (stand-in for the kubelet's seeded IDs). */
function hex64(seed: string): string {
  let out = '';
  let x = 0;
  for (const c of seed) x = (x * 31 + c.charCodeAt(0)) >>> 0;
  while (out.length < 64) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += (x >>> 16).toString(16).padStart(4, '0');
  }
  return out.slice(0, 64);
}

function must(ns: Namespace, line: string): void {
  execOrThrow(ns, line);
}

export function buildFixture(): Fixture {
  const sim = new Simulation({ seed: 'k8s-commands' });
  const store = new Store(sim.rng.fork('store'), () => sim.now);
  const nodeNs = new Map<string, Namespace>();
  const podNs = new Map<string, Namespace>();
  const pidNs = new Map<string, Namespace>();
  const containers = new Map<string, ContainerRecord[]>();

  for (const node of NODES) {
    const ns = sim.addNamespace(node.name);
    must(ns, 'ip link set lo up');
    nodeNs.set(node.name, ns);
    containers.set(node.name, []);
    const object: Omit<Node, 'metadata'> & { metadata: { name: string; labels: Record<string, string> } } = {
      kind: 'Node',
      metadata: { name: node.name, labels: { 'kubernetes.io/hostname': node.name } },
      spec: { podCIDR: node.podCidr, podCIDRs: [node.podCidr], unschedulable: false, taints: [] },
      status: {
        addresses: [
          { type: 'InternalIP', address: node.address },
          { type: 'Hostname', address: node.name },
        ],
        ready: true,
      },
    };
    store.create(object);
  }
  const cp = store.create({
    kind: 'Node',
    metadata: { name: 'formation-control-plane', labels: { 'node-role.kubernetes.io/control-plane': '' } },
    spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], unschedulable: false, taints: [] },
    status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }], ready: true },
  });
  if (!cp.ok) throw new Error(cp.error.message);

  sim.scheduler.runUntil(30 * S);
  for (const pod of PODS) {
    const node = NODES.find((n) => n.name === pod.node)!;
    const host = nodeNs.get(pod.node)!;
    const ns = sim.addNamespace(`${pod.node}-${pod.name}`);
    must(host, `ip link add ${pod.veth} type veth peer name eth0 netns ${ns.name}`);
    must(ns, `ip addr add ${pod.ip}/24 dev eth0`);
    must(ns, 'ip link set lo up');
    must(ns, 'ip link set eth0 up');
    must(host, `ip link set ${pod.veth} up`);
    must(ns, `ip route add default via ${node.gateway}`);
    podNs.set(`default/${pod.name}`, ns);
    pidNs.set(`${pod.node}/${pod.pid}`, ns);
    pidNs.set(`${pod.node}/${pod.pausePid}`, ns);
    const id = hex64(`${pod.seed}-container`);
    const created: Omit<Pod, 'metadata'> & {
      metadata: { name: string; namespace: string; labels: Record<string, string> };
    } = {
      kind: 'Pod',
      metadata: { name: pod.name, namespace: 'default', labels: pod.labels },
      spec: {
        nodeName: pod.node,
        containers: [{ name: pod.container, image: pod.image, ports: [], readinessProbe: undefined }],
        hostNetwork: false,
        terminationGracePeriodSeconds: 30,
      },
      status: {
        phase: 'Running',
        podIP: pod.ip,
        hostIP: node.address,
        ready: true,
        containerStatuses: [{ name: pod.container, containerID: `containerd://${id}`, ready: true }],
      },
    };
    const result = store.create(created);
    if (!result.ok) throw new Error(result.error.message);
    containers.get(pod.node)!.push({
      id,
      name: pod.container,
      image: pod.image,
      imageId: `sha256:${hex64(`${pod.image}-image`)}`,
      podSandboxId: hex64(`${pod.seed}-sandbox`),
      podName: pod.name,
      podNamespace: 'default',
      pid: pod.pid,
      sandboxPid: pod.pausePid,
      createdAt: sim.now,
      state: 'CONTAINER_RUNNING',
      attempt: 0,
    });
    sim.scheduler.runUntil(sim.now + 5 * S);
  }

  const service = store.create({
    kind: 'Service',
    metadata: { name: 'signalements', namespace: 'default' },
    spec: serviceSpec({
      type: 'NodePort',
      clusterIP: '10.96.40.12',
      ports: [{ name: '', protocol: 'TCP', port: 80, targetPort: 8000, nodePort: 30080 }],
      selector: { app: 'signalements' },
    }),
    status: { loadBalancerIngress: [] },
  });
  if (!service.ok) throw new Error(service.error.message);
  store.create({
    kind: 'EndpointSlice',
    metadata: {
      name: 'signalements-x7k2p',
      namespace: 'default',
      labels: { 'kubernetes.io/service-name': 'signalements' },
    },
    addressType: 'IPv4',
    endpoints: PODS.filter((p) => p.labels['app'] === 'signalements').map((p) => ({
      addresses: [p.ip],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: p.node,
      targetRef: { kind: 'Pod' as const, namespace: 'default', name: p.name },
    })),
    ports: [{ name: '', port: 8000, protocol: 'TCP' }],
  });

  const runtime: ClusterRuntime = {
    nodeNamespace: (name) => nodeNs.get(name),
    podNamespace: (namespace, name) => podNs.get(`${namespace}/${name}`),
    containers: (nodeName) => containers.get(nodeName) ?? [],
    namespaceOfPid: (nodeName, pid) =>
      pidNs.get(`${nodeName}/${pid}`) ?? (pid === 1 ? nodeNs.get(nodeName) : undefined),
  };
  const ctx: ClusterCommandContext = {
    store,
    runtime,
    now: () => sim.now,
    rng: sim.rng.fork('k8s-commands'),
  };
  return { sim, store, ctx, containers };
}

export const SECOND = S;
