// `cluster()`: a kind-like cluster in a Simulation. Nodes are namespaces on the Docker-like network (the control plane
// at 172.18.0.2, then the workers by number), with the Docker host as an "outside" router and an Internet host
// (203.0.113.10) behind it; pod CIDRs as the controller-manager hands them out; Node objects in the store; on every
// node the CNI's agent, a kubelet and kube-proxy's sync loop (iptables or nftables mode). Nodes can be added and removed
// later. The control plane (admission, allocators, endpoint controller, scheduler, workloads) runs on the same store and
// scheduler; `exec` runs the commands of a kind user's shell (`docker exec NODE ...`, `kubectl ...`). Cluster DNS as
// kind runs it (the kube-dns Service, CoreDNS's Deployment on the control plane, every pod's resolv.conf), kube-proxy's
// health servers on every node, and an optional external load balancer in the outside (the nodes' gateway).

import { httpServer } from '../app/http/server.ts';
import type { Namespace } from '../netns/namespace.ts';
import { Simulation } from '../netns/simulation.ts';
import type { CommandResult } from '../tools/result.ts';
import type { Capture } from '../tools/tcpdump.ts';
import { CONTROL_PLANE_TAINT, deployment, POD_IP_ANNOTATION } from './api/builders.ts';
import type { ClusterNetwork, Cni, NodeNetwork } from './cni/cni.ts';
import { FlannelHostGw, FlannelVxlan } from './cni/flannel.ts';
import { mustParsePrefix } from './cni/ipv4.ts';
import { Kindnet } from './cni/kindnet.ts';
import { clusterExec, clusterSpawn } from './commands/cluster-exec.ts';
import type { ClusterCommandContext } from './commands/context.ts';
import { ControlPlane } from './controllers/control-plane.ts';
import { clusterDns } from './dns/cluster-dns.ts';
import { KUBE_DNS_LABELS, kubeDnsService } from './dns/kube-dns.ts';
import {
  DOCKER_MTU,
  INTERNET_NS,
  kindNode,
  kindNodeName,
  type NodeRole,
  nodePort,
  nodeSetup,
  OUTSIDE_NS,
  outsidePort,
  outsideSetup,
  POD_NETWORK,
} from './kind-network.ts';
import { KubeProxyController } from './kube-proxy/controller.ts';
import { type KubeProxyHealth, kubeProxyHealth } from './kube-proxy/health.ts';
import { IptablesProxier } from './kube-proxy/iptables/proxier.ts';
import { NftablesProxier } from './kube-proxy/nftables/proxier.ts';
import type { Proxier } from './kube-proxy/proxier.ts';
import { type ImageRegistry, type ImageRunner, Kubelet } from './kubelet/kubelet.ts';
import {
  EXCLUDE_FROM_LB_LABEL,
  type LoadBalancerController,
  type LoadBalancerOptions,
  loadBalancerController,
} from './lb/controller.ts';
import { type ContainerPort, type Node, objectKey, type Pod, type Probe } from './objects.ts';
import type { Command } from './plan.ts';
import { PlanRunner } from './run-plan.ts';
import type { ClusterRuntime, ContainerRecord } from './runtime.ts';
import { type ApiResult, Store } from './store.ts';

export type CniName = 'flannel-vxlan' | 'flannel-host-gw' | 'kindnet';

/** kind v0.24's CoreDNS image (kubeadm v1.31's default); the cluster's registry runs `clusterDns` for it. */
export const COREDNS_IMAGE = 'registry.k8s.io/coredns/coredns:v1.11.1';
/** kubelet's --cluster-dns on a kind node: kube-dns's ClusterIP. */
export const CLUSTER_DNS_IP = '10.96.0.10';

/** The external load balancer as a scenario gives it: the controller's options without the device (the outside's eth0). */
export type ClusterLoadBalancerOptions = Omit<LoadBalancerOptions, 'device'>;

/** A new plugin instance by name (one instance serves one cluster). */
export function makeCni(name: CniName): Cni {
  switch (name) {
    case 'flannel-vxlan':
      return new FlannelVxlan();
    case 'flannel-host-gw':
      return new FlannelHostGw();
    case 'kindnet':
      return new Kindnet();
    default:
      name satisfies never;
      throw new Error(`unknown CNI ${String(name)}`);
  }
}

export interface ClusterOptions {
  /** kind's cluster name (default `kind`): nodes are `NAME-control-plane`, `NAME-worker`, `NAME-worker2`... */
  readonly name?: string;
  readonly workers?: number;
  /** Default kindnet, kind's own. */
  readonly cni?: Cni | CniName;
  /** kube-proxy's mode on every node (default iptables, kind's); `'none'` runs no kube-proxy. */
  readonly kubeProxy?: Proxier | 'iptables' | 'nftables' | 'none';
  /** Whether the API server's admission and the controllers run (default true); off, objects are stored as given. */
  readonly controlPlane?: boolean;
  /** --iptables-min-sync-period (default 1000 ms). */
  readonly minSyncPeriodMs?: number;
  /** kube-proxy's UDP conntrack cleanup after each sync (default true; false shows the stale-entry bug). */
  readonly conntrackCleanup?: boolean;
  readonly seed?: string | number;
  /** What containers run, by image name. */
  readonly images?: ImageRegistry;
  /** kind's networking.podSubnet (default 10.244.0.0/16: 256 nodes of a /24 each). */
  readonly podSubnet?: string;
  /** The Docker network's MTU (default 1500). */
  readonly underlayMtu?: number;
  /** An `mtu` set by hand in flannel's CNI configuration (default none: flannel's own, the underlay's - 50). */
  readonly configuredPodMtu?: number;
  /**
   * Runs once the store and the outside exist, before any node joins: where the control plane installs its admission
   * steps and controllers (they then see every Node from the first).
   */
  readonly setup?: (cluster: Cluster) => void;
  /** Cluster DNS (kube-dns Service, CoreDNS, pods' resolv.conf); default true, needs the control plane. */
  readonly dns?: boolean;
  /** An external load balancer for LoadBalancer Services, in the outside namespace (see `addLoadBalancer`). */
  readonly loadBalancer?: ClusterLoadBalancerOptions;
}

export interface ClusterNode {
  readonly name: string;
  readonly role: NodeRole;
  readonly network: NodeNetwork;
  readonly ns: Namespace;
  readonly kubelet: Kubelet;
  readonly kubeProxy: KubeProxyController | undefined;
  /** kube-proxy's health servers (10256, healthCheckNodePorts); undefined without kube-proxy. */
  readonly kubeProxyHealth: KubeProxyHealth | undefined;
}

/** A pod as a scenario author describes it; the rest gets kubectl run's defaults. */
export interface ClusterPodInput {
  readonly name: string;
  /** Default `default`. */
  readonly namespace?: string;
  /** The node it is bound to (`formation-worker`). */
  readonly node: string;
  /** Default `registry.k8s.io/pause:3.10` (runs nothing). */
  readonly image?: string;
  /** The container's name (default the pod's). */
  readonly container?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** A pinned pod address (annotation packetlab.dev/pod-ip). */
  readonly ip?: string;
  readonly hostNetwork?: boolean;
  readonly ports?: readonly ContainerPort[];
  /** The container's readiness probe; without one the pod is ready once started. */
  readonly readinessProbe?: Probe;
}

const SEGMENT = 'kind';

export class Cluster implements ClusterRuntime {
  readonly sim: Simulation;
  readonly store: Store;
  readonly runner: PlanRunner;
  readonly cni: Cni;
  readonly network: ClusterNetwork;
  readonly name: string;
  readonly outside: Namespace;
  readonly internet: Namespace;
  /** The API server's admission and the controllers; undefined with `controlPlane: false`. */
  readonly controlPlane: ControlPlane | undefined;
  /** The proxier every node's kube-proxy uses; undefined with `kubeProxy: 'none'`. */
  readonly proxier: Proxier | undefined;
  private externalLb: LoadBalancerController | undefined;
  /** What containers run: the cluster's own images (CoreDNS) and the scenario's. */
  readonly images: ImageRegistry;
  private readonly commands: ClusterCommandContext;
  private readonly nodes = new Map<string, ClusterNode>();
  private readonly workerNumbers = new Set<number>();
  private readonly addressIndexes = new Set<number>();
  private readonly podCidrIndexes = new Set<number>();
  /** Joins so far: a node that joins again under a name gets fresh seeded MACs and IDs. */
  private joins = 0;
  /** Whether the one Pod watch that feeds every kubelet is registered (at the first kubelet's start). */
  private podDispatch = false;

  constructor(private readonly options: ClusterOptions = {}) {
    this.name = options.name ?? 'kind';
    this.sim = new Simulation({ seed: options.seed ?? this.name });
    this.store = new Store(this.sim.rng.fork('store'), () => this.sim.now);
    this.controlPlane =
      options.controlPlane === false
        ? undefined
        : new ControlPlane(this.store, this.sim.scheduler, this.sim.rng.fork('control-plane'));
    this.proxier = makeProxier(options.kubeProxy ?? 'iptables');
    this.commands = {
      store: this.store,
      runtime: this,
      now: () => this.sim.now,
      rng: this.sim.rng.fork('commands'),
      ...(this.controlPlane === undefined ? {} : { controlPlane: this.controlPlane }),
    };
    // Looked up at each container start, so images a scenario adds to its map after cluster() are found too.
    const own = new Map(this.ownImages());
    const theirs = options.images;
    this.images = { get: (image) => theirs?.get(image) ?? own.get(image) };
    this.runner = new PlanRunner(this.sim);
    const cni = options.cni ?? 'kindnet';
    this.cni = typeof cni === 'string' ? makeCni(cni) : cni;
    this.network = {
      podNetwork: options.podSubnet ?? POD_NETWORK,
      underlayMtu: options.underlayMtu ?? DOCKER_MTU,
      ...(options.configuredPodMtu === undefined ? {} : { configuredPodMtu: options.configuredPodMtu }),
    };
    this.outside = this.runner.addNamespace(OUTSIDE_NS);
    this.internet = this.runner.addNamespace(INTERNET_NS);
    const docker = this.runner.addSegment({ name: SEGMENT, mtu: this.network.underlayMtu, ports: [] });
    // The Docker bridge lives in the host's own namespace, which has no name in /var/run/netns: a node's eth0 shows
    // its peer as link-netnsid 0.
    docker.switchNs.listedInNetnsRun = false;
    this.runner.attach(SEGMENT, outsidePort());
    this.runner.mustRun(outsideSetup());
  }

  /**
   * One Pod watch for every kubelet, registered where the first kubelet's own would be: an event reaches the kubelet
   * of the pod's node and the one of the node it was bound to before (which may still run it), in join order, as
   * every kubelet's own watch would deliver it; each filters as its watch did (Kubelet.podChanged).
   */
  private startPodDispatch(): void {
    if (this.podDispatch) return;
    this.podDispatch = true;
    // Each pod's spec.nodeName at its last event: the node that may still run it when it is bound elsewhere.
    const previous = new Map<string, string>();
    for (const pod of this.store.list('Pod'))
      previous.set(objectKey(pod.metadata.namespace, pod.metadata.name), pod.spec.nodeName);
    this.store.watch('Pod', (event) => {
      const pod = event.object;
      const key = objectKey(pod.metadata.namespace, pod.metadata.name);
      const before = previous.get(key);
      const now = pod.spec.nodeName;
      if (event.type === 'DELETED') previous.delete(key);
      else previous.set(key, now);
      if (before === undefined || before === now) {
        this.nodes.get(now)?.kubelet.podChanged(pod);
        return;
      }
      for (const node of this.nodes.values())
        if (node.name === before || node.name === now) node.kubelet.podChanged(pod);
    });
  }

  /**
   * A node joins: its namespace on the network and kind's set-up, the CNI agent's start, each peer told of it and
   * it of each peer (control plane first, then by join order), its Node object, then its kubelet and kube-proxy.
   */
  addNode(role: NodeRole = 'worker'): ClusterNode {
    const name = role === 'control-plane' ? kindNodeName(this.name, role, 0) : this.nextWorkerName();
    if (this.nodes.has(name)) throw new Error(`node ${name} exists`);
    const network = kindNode({
      name,
      addressIndex: firstFree(this.addressIndexes),
      podCidrIndex: firstFree(this.podCidrIndexes),
      podNetwork: this.network.podNetwork,
      rng: this.sim.rng.fork(`node:${name}#${this.joins}`),
    });
    const { runner, cni } = this;
    const ns = runner.addNamespace(name);
    // A kind node is a container: its namespace has no name in /var/run/netns (its pods see it as link-netnsid 0).
    ns.listedInNetnsRun = false;
    runner.attach(SEGMENT, nodePort(network));
    runner.mustRun(nodeSetup(network));
    runner.mustRun(cni.nodeAdded(network, this.network));
    for (const peer of this.nodes.values())
      runner.mustRun(cni.peerAdded(peer.network, network, this.network));
    for (const peer of this.nodes.values())
      runner.mustRun(cni.peerAdded(network, peer.network, this.network));
    const created = this.store.create<'Node'>(nodeObject(network, role));
    if (!created.ok) throw new Error(`node ${name}: ${created.error.message}`);
    const kubelet = new Kubelet({
      store: this.store,
      runner,
      node: network,
      cni,
      network: this.network,
      rng: this.sim.rng.fork(`kubelet:${name}#${this.joins}`),
      images: this.images,
      watchPods: false,
      ...(this.dnsEnabled() ? { clusterDns: CLUSTER_DNS_IP } : {}),
    });
    const health = this.proxier === undefined ? undefined : this.startKubeProxyHealth(ns, name);
    const kubeProxy =
      this.proxier === undefined
        ? undefined
        : new KubeProxyController({
            store: this.store,
            scheduler: this.sim.scheduler,
            proxier: this.proxier,
            ns: network.ns,
            node: {
              nodeName: name,
              nodeIps: [network.address],
              clusterCidr: this.network.podNetwork,
              masqueradeBit: 14,
            },
            run: (command) => runner.run(command),
            onSynced: (record) => {
              if (record.errors.length === 0) health?.synced();
            },
            ...(this.options.minSyncPeriodMs !== undefined
              ? { minSyncPeriodMs: this.options.minSyncPeriodMs }
              : {}),
            ...(this.options.conntrackCleanup !== undefined
              ? { conntrackCleanup: this.options.conntrackCleanup }
              : {}),
          });
    this.joins++;
    const node: ClusterNode = { name, role, network, ns, kubelet, kubeProxy, kubeProxyHealth: health };
    this.nodes.set(name, node);
    this.startPodDispatch();
    kubelet.start();
    if (this.proxier !== undefined) runner.mustRun(kubeProxySysctls(network.ns, this.proxier.mode));
    kubeProxy?.start();
    return node;
  }

  /** A node leaves: its agents stop (its pods' sandboxes go), peers forget it, its Node object and namespace go. */
  removeNode(name: string): void {
    const node = this.nodes.get(name);
    if (node === undefined) throw new Error(`no node ${name}`);
    node.kubeProxy?.stop();
    node.kubeProxyHealth?.close();
    node.kubelet.stop();
    this.nodes.delete(name);
    for (const peer of this.nodes.values())
      this.runner.mustRun(this.cni.peerRemoved(peer.network, node.network, this.network));
    this.runner.mustRun(this.cni.nodeRemoved?.(node.network, this.network) ?? []);
    this.store.delete('Node', '', name);
    this.runner.removeNamespace(name);
    this.addressIndexes.delete(addressIndexOf(node.network.address));
    this.podCidrIndexes.delete(podCidrIndexOf(node.network.podCidr, this.network.podNetwork));
    const worker = workerNumberOf(this.name, name);
    if (worker !== undefined) this.workerNumbers.delete(worker);
  }

  node(name: string): ClusterNode | undefined {
    return this.nodes.get(name);
  }

  /** The nodes in join order. */
  nodeList(): ClusterNode[] {
    return [...this.nodes.values()];
  }

  /** Creates a pod bound to a node; its kubelet starts it on the next scheduler turn (`settle()`). */
  createPod(input: ClusterPodInput): ApiResult<Pod> {
    return this.store.create<'Pod'>(podObject(input));
  }

  /** Runs what is due now: kubelets start pods, kube-proxy syncs that are due. */
  settle(): void {
    this.sim.run(0);
  }

  /** A command as a kind user types it on the machine running kind: `docker exec NODE ...` or `kubectl ...`. */
  exec(line: string, options: { readonly stdin?: string } = {}): CommandResult {
    return clusterExec(this.commands, line, options.stdin === undefined ? {} : { stdin: options.stdin });
  }

  /** A long-running command (`docker exec NODE tcpdump ...`): its handle, or the result if it ended at once. */
  spawn(line: string): Capture | CommandResult {
    return clusterSpawn(this.commands, line);
  }

  // ---- ClusterRuntime ------------------------------------------------------------------------------------------

  nodeNamespace(nodeName: string): Namespace | undefined {
    return this.nodes.get(nodeName)?.ns;
  }

  podNamespace(namespace: string, name: string): Namespace | undefined {
    const pod = this.store.get('Pod', namespace, name);
    if (pod === undefined) return undefined;
    return this.nodes.get(pod.spec.nodeName)?.kubelet.podNamespace(namespace, name);
  }

  containers(nodeName: string): readonly ContainerRecord[] {
    return this.nodes.get(nodeName)?.kubelet.containers() ?? [];
  }

  namespaceOfPid(nodeName: string, pid: number): Namespace | undefined {
    return this.nodes.get(nodeName)?.kubelet.namespaceOfPid(pid);
  }

  // ---- Services: cluster DNS, kube-proxy's health servers, the external load balancer ---------------------------

  /** Whether the cluster runs kube-dns (the `dns` option, and a control plane to run CoreDNS's Deployment). */
  dnsEnabled(): boolean {
    return this.options.dns !== false && this.controlPlane !== undefined;
  }

  /**
   * What kubeadm's CoreDNS addon creates: the kube-dns Service (10.96.0.10) and the `coredns` Deployment in
   * kube-system, 2 replicas tolerating the control-plane taint (kubeadm's manifests.go). `cluster()` calls it once the
   * control plane has joined, before the workers, so CoreDNS runs on the control plane as on a kind cluster.
   */
  installClusterDns(): void {
    const service = this.store.create<'Service'>(kubeDnsService(CLUSTER_DNS_IP));
    if (!service.ok) throw new Error(`kube-dns: ${service.error.message}`);
    const coredns = this.store.create<'Deployment'>(
      deployment({
        name: 'coredns',
        namespace: 'kube-system',
        labels: { ...KUBE_DNS_LABELS },
        replicas: 2,
        maxUnavailable: 1,
        image: COREDNS_IMAGE,
        ports: [
          { name: 'dns', containerPort: 53, protocol: 'UDP' },
          { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
          { name: 'metrics', containerPort: 9153, protocol: 'TCP' },
        ],
        tolerations: [
          { key: 'CriticalAddonsOnly', operator: 'Exists', value: '', effect: '' },
          { key: CONTROL_PLANE_TAINT.key, operator: 'Equal', value: '', effect: 'NoSchedule' },
        ],
      }),
    );
    if (!coredns.ok) throw new Error(`coredns: ${coredns.error.message}`);
  }

  /**
   * The external load balancer (cloud-provider-kind-like) in the outside namespace, the nodes' gateway, so that in
   * `passthrough` mode the nodes' replies to a kept client address come back through its conntrack. Its addresses
   * (172.18.255.200...) go on the outside's eth0; LoadBalancer Services get them as `status.loadBalancer.ingress`.
   */
  addLoadBalancer(options: ClusterLoadBalancerOptions): LoadBalancerController {
    if (this.externalLb !== undefined) throw new Error('the cluster has a load balancer');
    this.externalLb = loadBalancerController(this.outside, this.store, { ...options, device: 'eth0' });
    return this.externalLb;
  }

  /**
   * Takes the external load balancer away (its addresses and rules with it), so that `addLoadBalancer` can put one
   * configured otherwise in its place: what changing a cloud LB's mode or health check amounts to. Services keep
   * their ingress address, which the next controller takes again.
   */
  removeLoadBalancer(): void {
    this.externalLb?.close();
    this.externalLb = undefined;
  }

  /** The external load balancer, once `addLoadBalancer` (or the `loadBalancer` option) made it. */
  get loadBalancer(): LoadBalancerController | undefined {
    return this.externalLb;
  }

  /**
   * The images the cluster itself runs: CoreDNS answering from the store in its pod's namespace, with kubeadm's
   * Corefile's `health` (:8080/health) and `ready` (:8181/ready) plugins answering 200 `OK` (health.go, ready.go:
   * `io.WriteString(w, http.StatusText(http.StatusOK))`). Not served: the prometheus plugin's :9153/metrics.
   */
  private ownImages(): [string, ImageRunner][] {
    const coredns: ImageRunner = (ns) => {
      const dns = clusterDns(ns, this.store);
      const health = httpServer(ns, { port: 8080, routes: { '/health': { body: 'OK' } } });
      const ready = httpServer(ns, { port: 8181, routes: { '/ready': { body: 'OK' } } });
      return {
        stop: () => {
          dns.close();
          health.close();
          ready.close();
        },
      };
    };
    return [[COREDNS_IMAGE, coredns]];
  }

  /**
   * kube-proxy's health servers on the node (hostNetwork). Every Service/EndpointSlice change is a queued update (its
   * own watch); the sync loop's `onSynced` marks `Updated` after a sync with no failed command, as syncProxyRules does.
   */
  private startKubeProxyHealth(ns: Namespace, nodeName: string): KubeProxyHealth {
    return kubeProxyHealth(ns, this.store, { nodeName, syncs: 'manual' });
  }

  private nextWorkerName(): string {
    const number = firstFree(this.workerNumbers, 1);
    this.workerNumbers.add(number);
    return kindNodeName(this.name, 'worker', number);
  }
}

/** Builds a cluster: the control plane, then `workers` workers, each joining as `addNode` describes. */
export function cluster(options: ClusterOptions = {}): Cluster {
  const built = new Cluster(options);
  options.setup?.(built);
  const controlPlane = built.addNode('control-plane');
  built.controlPlane?.createKubernetesService(controlPlane.network.address);
  if (built.dnsEnabled()) {
    built.installClusterDns();
    // kubeadm init: CoreDNS is scheduled while the control plane is the only node.
    built.settle();
  }
  for (let n = 0; n < (options.workers ?? 0); n++) built.addNode('worker');
  if (options.loadBalancer !== undefined) built.addLoadBalancer(options.loadBalancer);
  built.settle();
  return built;
}

/**
 * What kube-proxy writes at start on a kind node, before its first sync: the conntrack sysctls of its configuration
 * (server_linux.go setSysctls; kind's KubeProxyConfiguration sets maxPerCore 0, so nf_conntrack_max is left alone, keeps
 * the 24 h established and 1 h close-wait defaults, and in nftables mode tcpBeLiberal), then in iptables mode
 * route_localnet for NodePorts on 127.0.0.1 (iptables/proxier.go NewProxier, localhostNodePorts on).
 */
export function kubeProxySysctls(ns: string, mode: Proxier['mode']): Command[] {
  const sysctl = (setting: string): Command => ({ ns, argv: ['sysctl', '-q', '-w', setting] });
  const commands = [
    sysctl('net.netfilter.nf_conntrack_tcp_timeout_established=86400'),
    sysctl('net.netfilter.nf_conntrack_tcp_timeout_close_wait=3600'),
  ];
  switch (mode) {
    case 'iptables':
      commands.push(sysctl('net.ipv4.conf.all.route_localnet=1'));
      break;
    case 'nftables':
      commands.push(sysctl('net.netfilter.nf_conntrack_tcp_be_liberal=1'));
      break;
    default:
      mode satisfies never;
  }
  return commands;
}

function makeProxier(mode: Proxier | 'iptables' | 'nftables' | 'none'): Proxier | undefined {
  switch (mode) {
    case 'iptables':
      return new IptablesProxier();
    case 'nftables':
      return new NftablesProxier();
    case 'none':
      return undefined;
    default:
      return mode;
  }
}

/** The Node object kubelet registers and the controller-manager completes (podCIDR); kind taints the control plane. */
function nodeObject(
  network: NodeNetwork,
  role: NodeRole,
): Omit<Node, 'metadata'> & {
  readonly metadata: { readonly name: string; readonly labels: Record<string, string> };
} {
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': network.name,
    'kubernetes.io/os': 'linux',
  };
  if (role === 'control-plane') {
    labels['node-role.kubernetes.io/control-plane'] = '';
    // kubeadm's mark-control-plane phase.
    labels[EXCLUDE_FROM_LB_LABEL] = '';
  }
  return {
    kind: 'Node',
    metadata: { name: network.name, labels },
    spec: {
      podCIDR: network.podCidr,
      podCIDRs: [network.podCidr],
      unschedulable: false,
      taints:
        role === 'control-plane'
          ? [{ key: 'node-role.kubernetes.io/control-plane', value: '', effect: 'NoSchedule' }]
          : [],
    },
    status: {
      addresses: [
        { type: 'InternalIP', address: network.address },
        { type: 'Hostname', address: network.name },
      ],
      ready: true,
    },
  };
}

function podObject(input: ClusterPodInput): Omit<Pod, 'metadata'> & {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  };
} {
  return {
    kind: 'Pod',
    metadata: {
      name: input.name,
      namespace: input.namespace ?? 'default',
      labels: input.labels ?? { run: input.name },
      annotations: input.ip !== undefined ? { [POD_IP_ANNOTATION]: input.ip } : {},
    },
    spec: {
      nodeName: input.node,
      containers: [
        {
          name: input.container ?? input.name,
          image: input.image ?? 'registry.k8s.io/pause:3.10',
          ports: input.ports ?? [],
          readinessProbe: input.readinessProbe,
        },
      ],
      hostNetwork: input.hostNetwork ?? false,
      terminationGracePeriodSeconds: 30,
    },
    status: { phase: 'Pending', podIP: '', hostIP: '', ready: false, containerStatuses: [] },
  };
}

function firstFree(used: Set<number>, from = 0): number {
  let n = from;
  while (used.has(n)) n++;
  used.add(n);
  return n;
}

function addressIndexOf(address: string): number {
  return Number(address.split('.')[3]) - 2 + (Number(address.split('.')[2]) << 8);
}

function podCidrIndexOf(podCidr: string, podNetwork: string): number {
  return (mustParsePrefix(podCidr).network - mustParsePrefix(podNetwork).network) >>> 8;
}

function workerNumberOf(clusterName: string, nodeName: string): number | undefined {
  const prefix = `${clusterName}-worker`;
  if (!nodeName.startsWith(prefix)) return undefined;
  const rest = nodeName.slice(prefix.length);
  return rest === '' ? 1 : Number(rest);
}
