// Two ways to a large cluster for the benches. `buildCluster`: Services and EndpointSlices made by the control plane
// (store, admission, scheduler-free pods pinned to nodes, the EndpointSlice controller) and each node's ProxierView
// of them, for the kube-proxy rule benches: mostly ClusterIP, some NodePort with externalTrafficPolicy Cluster, a few
// Local (the only ones whose rules differ from node to node), each with 1-3 ready endpoints spread over the nodes.
// `buildKindCluster`: the whole cluster through the k8s layer (nodes joining with kubelet, kindnet and kube-proxy,
// pods started through CNI, the control plane, kube-proxy's sync on every node), for the scale suite.

import { httpServer } from '../../src/app/http/server.ts';
import { Rng } from '../../src/core/rng.ts';
import { Scheduler } from '../../src/core/scheduler.ts';
import { node, pod, service } from '../../src/k8s/api/builders.ts';
import { Cluster } from '../../src/k8s/cluster.ts';
import { ControlPlane } from '../../src/k8s/controllers/control-plane.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import type { ImageRunner } from '../../src/k8s/kubelet/kubelet.ts';
import type { Node } from '../../src/k8s/objects.ts';
import { Store } from '../../src/k8s/store.ts';
import type { Namespace } from '../../src/netns/namespace.ts';

export interface ClusterSize {
  readonly nodes: number;
  readonly services: number;
}

export interface ScaleCluster {
  readonly nodes: readonly Node[];
  /** One view per node, in node order; all share the same services and endpointSlices arrays. */
  readonly views: readonly ProxierView[];
}

function must<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const nodeName = (i: number): string => `scale-worker${i === 0 ? '' : i + 1}`;
const nodeIp = (i: number): string => `172.18.${1 + (i >> 8)}.${(i & 255) + 2}`;
const podIp = (nodeIndex: number, n: number): string =>
  `10.${244 + (nodeIndex >> 8)}.${nodeIndex & 255}.${n + 2}`;

export function buildCluster(size: ClusterSize, seed = 'scale'): ScaleCluster {
  const scheduler = new Scheduler();
  const rng = new Rng(seed);
  const pick = rng.fork('placement');
  const store = new Store(rng.fork('store'), () => scheduler.now);
  new ControlPlane(store, scheduler, rng.fork('control-plane'), { serviceCidr: '10.96.0.0/12' });
  for (let i = 0; i < size.nodes; i++) {
    const podCIDR = `10.${244 + (i >> 8)}.${i & 255}.0/24`;
    must(store.create(node({ name: nodeName(i), internalIP: nodeIp(i), podCIDR })));
  }
  const podsOnNode = new Array<number>(size.nodes).fill(0);
  for (let s = 0; s < size.services; s++) {
    const app = `svc-${s}`;
    const roll = s % 50;
    const type = roll < 44 ? 'ClusterIP' : 'NodePort';
    const local = roll === 49;
    must(
      store.create(
        service({
          name: app,
          type,
          selector: { app },
          ports: [{ name: 'http', port: 80, targetPort: 8080 }],
          ...(local ? { externalTrafficPolicy: 'Local' as const } : {}),
        }),
      ),
    );
    const endpoints = 1 + (pick.u32() % 3);
    for (let e = 0; e < endpoints; e++) {
      const at = pick.u32() % size.nodes;
      const ip = podIp(at, podsOnNode[at]!++);
      const name = `${app}-${e}`;
      must(
        store.create(
          pod({ name, labels: { app }, nodeName: nodeName(at), podIP: ip, ports: [{ containerPort: 8080 }] }),
        ),
      );
      const current = store.get('Pod', 'default', name)!;
      must(
        store.update<'Pod'>({
          ...current,
          status: { ...current.status, phase: 'Running', podIP: ip, hostIP: nodeIp(at), ready: true },
        }),
      );
    }
  }
  scheduler.runFor(0);
  const services = store.list('Service', 'default');
  const endpointSlices = store.list('EndpointSlice', 'default');
  const nodes = Array.from({ length: size.nodes }, (_, i) => store.get('Node', '', nodeName(i))!);
  const views = nodes.map(
    (n, i): ProxierView => ({
      nodeName: n.metadata.name,
      nodeIps: [nodeIp(i)],
      clusterCidr: '10.244.0.0/16',
      masqueradeBit: 14,
      services,
      endpointSlices,
    }),
  );
  return { nodes, views };
}

// ---- A whole kind-like cluster through the k8s layer (the scale suite) ------------------------------------------

/** The sizes and mode of a cluster built by `buildKindCluster`. */
export interface KindClusterSize {
  readonly nodes: number;
  readonly services: number;
  /** Pods per node, backends and fillers together (default 30: kubemark's 150,000 over 5,000 nodes). */
  readonly podsPerNode?: number;
  /** kube-proxy's mode on every node (default iptables). */
  readonly mode?: 'iptables' | 'nftables';
}

/** One phase of the build: what it made, how long it took, the heap and RSS after it. */
export interface BuildPhase {
  readonly name: 'nodes' | 'pods' | 'services' | 'kube-proxy sync';
  readonly ms: number;
  /** process.memoryUsage() right after the phase (no forced gc: `measure` may do one). */
  readonly heapUsed: number;
  readonly rss: number;
}

export interface KindCluster {
  readonly cluster: Cluster;
  readonly phases: readonly BuildPhase[];
  readonly pods: number;
  /** The Service whose backends serve HTTP (the others' pods run nothing), and its ClusterIP. */
  readonly tracedService: { readonly name: string; readonly clusterIP: string };
  /** A pod on a node that holds none of the traced Service's backends. */
  readonly client: { readonly namespace: Namespace; readonly node: string };
}

export interface BuildHooks {
  /** Told as the build goes: the phase, how far into it, out of how many. */
  readonly progress?: (phase: BuildPhase['name'], done: number, total: number) => void;
  /** Called after each phase (e.g. a gc and a heap reading); its figure is kept as the phase's heapUsed. */
  readonly measure?: () => number;
}

/** The image the traced Service's backends run: an HTTP server on 8080 answering its pod's name. */
export const ECHO_IMAGE = 'packetlab.dev/scale-echo:1';
const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

const echo: ImageRunner = (ns, pod) => {
  const server = httpServer(ns, { port: 8080, routes: { '/': { body: `${pod.metadata.name}\n` } } });
  return { stop: () => server.close() };
};

/** kind's podSubnet widened so that 5,000 nodes get a /24 each (10.244.0.0/16 holds 256). */
const WIDE_POD_SUBNET = '10.128.0.0/9';

/**
 * A kind cluster as `cluster()` builds it (control plane, then workers joining one by one, each with its kubelet,
 * kindnet and kube-proxy), then `podsPerNode` pods bound to every node, then `services` ClusterIP Services of 3
 * backends each (pods spread round the nodes); the EndpointSlice controller and every kube-proxy sync in the
 * scheduler's time. Service 0's backends run an HTTP server and sit on other nodes than the client pod (node 0's).
 */
export function buildKindCluster(size: KindClusterSize, hooks: BuildHooks = {}): KindCluster {
  const nodes = Math.max(2, size.nodes);
  const podsPerNode = size.podsPerNode ?? 30;
  const backends = 3 * size.services;
  const pods = Math.max(nodes * podsPerNode, backends + 1);
  const phases: BuildPhase[] = [];
  let phaseStart = process.hrtime.bigint();
  const endPhase = (name: BuildPhase['name']): void => {
    const ms = Number(process.hrtime.bigint() - phaseStart) / 1e6;
    const memory = process.memoryUsage();
    const heapUsed = hooks.measure?.() ?? memory.heapUsed;
    phases.push({ name, ms, heapUsed, rss: memory.rss });
    phaseStart = process.hrtime.bigint();
  };

  const c = new Cluster({
    name: 'scale',
    kubeProxy: size.mode ?? 'iptables',
    seed: 'scale',
    dns: false,
    images: new Map([[ECHO_IMAGE, echo]]),
    ...(nodes > 256 ? { podSubnet: WIDE_POD_SUBNET } : {}),
  });
  const controlPlane = c.addNode('control-plane');
  c.controlPlane?.createKubernetesService(controlPlane.network.address);
  hooks.progress?.('nodes', 1, nodes);
  for (let n = 1; n < nodes; n++) {
    c.addNode('worker');
    hooks.progress?.('nodes', n + 1, nodes);
  }
  c.settle();
  endPhase('nodes');

  const nodeNames = c.nodeList().map((node) => node.name);
  // Backend e of Service s is pod 3s+e; service 0's are kept off node 0, where the client runs.
  const nodeOfPod = (j: number): number => {
    if (j < 3) return 1 + (j % (nodes - 1));
    return j % nodes;
  };
  const clientPod = backends;
  for (let j = 0; j < pods; j++) {
    const backend = j < backends;
    const app = backend ? `svc-${Math.floor(j / 3)}` : undefined;
    must(
      c.createPod({
        name: backend ? `${app}-${j % 3}` : j === clientPod ? 'client' : `filler-${j}`,
        node: nodeNames[j === clientPod ? 0 : nodeOfPod(j)]!,
        labels: app === undefined ? { run: 'filler' } : { app },
        image: j < 3 ? ECHO_IMAGE : PAUSE_IMAGE,
        ports: backend ? [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] : [],
      }),
    );
    if ((j & 1023) === 1023) {
      c.settle();
      hooks.progress?.('pods', j + 1, pods);
    }
  }
  c.settle();
  hooks.progress?.('pods', pods, pods);
  endPhase('pods');

  for (let s = 0; s < size.services; s++) {
    const app = `svc-${s}`;
    must(
      c.store.create<'Service'>(
        service({ name: app, selector: { app }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] }),
      ),
    );
    if ((s & 255) === 255) hooks.progress?.('services', s + 1, size.services);
  }
  // The EndpointSlice controller's work queue runs now; kube-proxy's syncs wait for their minSyncPeriod.
  c.settle();
  hooks.progress?.('services', size.services, size.services);
  endPhase('services');

  c.sim.run(2e9);
  hooks.progress?.('kube-proxy sync', nodes, nodes);
  endPhase('kube-proxy sync');

  const traced = c.store.get('Service', 'default', 'svc-0');
  const client = c.podNamespace('default', 'client');
  if (traced === undefined || client === undefined) throw new Error('scale cluster: no svc-0 or client pod');
  return {
    cluster: c,
    phases,
    pods,
    tracedService: { name: 'svc-0', clusterIP: traced.spec.clusterIP },
    client: { namespace: client, node: nodeNames[0]! },
  };
}
