// One node's kubelet: it watches the store for pods bound to its node (spec.nodeName) and, in virtual time, creates
// each pod's sandbox (a namespace named as containerd names it, `lo` up), asks host-local for an address (or takes the
// pod's pin, annotation `packetlab.dev/pod-ip`), runs CNI ADD through the plan runner, writes the sandbox's
// resolv.conf (cluster DNS, dnsPolicy ClusterFirst; other DNS policies are not modelled), starts what each container's
// image names from the image registry, and writes the pod's status; when the pod leaves the store it stops the
// containers, runs CNI DEL and removes the namespace. hostNetwork pods run in the node's namespace.
// Readiness probes (HTTP GET, readiness.ts) decide a container's readiness; a container without one is ready once
// started. A pod being deleted runs its preStop sleep hooks first, its containers serving meanwhile, then they are
// killed (no SIGTERM handling: a container stops at once). Not modelled: liveness and startup probes, restarts, image
// pulls, init containers, exec and HTTP hooks.

import { podResolvConf, writeResolvConf } from '../../app/dns/resolv-conf.ts';
import type { Rng } from '../../core/rng.ts';
import type { Namespace } from '../../netns/namespace.ts';
import { POD_IP_ANNOTATION } from '../api/builders.ts';
import { seededSandbox } from '../cluster-plan.ts';
import type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from '../cni/cni.ts';
import type { Container, ContainerStatus, Pod } from '../objects.ts';
import { objectKey } from '../objects.ts';
import type { Command } from '../plan.ts';
import type { PlanRunner } from '../run-plan.ts';
import type { ContainerRecord } from '../runtime.ts';
import type { Store } from '../store.ts';
import { HostLocalIpam } from './host-local.ts';
import { ReadinessProber } from './readiness.ts';

/** The annotation a pod pins its address with. */

/** What a started container runs; `stop()` is its SIGKILL. */
export interface RunningContainer {
  stop(): void;
}

/** Starts what an image runs in a pod's network namespace (an HTTP server from src/app, a resolver...). */
export type ImageRunner = (ns: Namespace, pod: Pod, container: Container) => RunningContainer;

/** Images by name (`registry.example/signalements:1.4`); an image not listed runs nothing (a sleeping container). */
/** What containers run, by image name (a Map is one; the cluster layers its own images under the scenario's). */
export interface ImageRegistry {
  get(image: string): ImageRunner | undefined;
}

export interface KubeletOptions {
  readonly store: Store;
  readonly runner: PlanRunner;
  readonly node: NodeNetwork;
  readonly cni: Cni;
  readonly network: ClusterNetwork;
  /** The node's own random stream: sandbox names, IDs, MACs, PIDs. */
  readonly rng: Rng;
  readonly images: ImageRegistry;
  /**
   * Whether the kubelet watches every Pod itself (default true). False, its owner calls `podChanged` with the events of
   * the pods bound to this node or running on it: one watch for a whole cluster instead of one per node, whose every
   * pod event would otherwise reach every kubelet.
   */
  readonly watchPods?: boolean;
  /**
   * --cluster-dns (kind: 10.96.0.10): every non-hostNetwork pod gets the resolv.conf containerd writes from it
   * (dnsPolicy ClusterFirst); undefined writes none.
   */
  readonly clusterDns?: string;
}

interface RunningPod {
  readonly uid: string;
  readonly ns: Namespace;
  /** undefined for a hostNetwork pod. */
  readonly sandbox: PodSandbox | undefined;
  readonly pausePid: number;
  readonly containers: ContainerRecord[];
  readonly processes: RunningContainer[];
  /** One per container that has a readiness probe. */
  readonly probers: ReadinessProber[];
  /** The preStop hooks are running: the containers still serve until they end. */
  stopping: boolean;
}

export class Kubelet {
  private readonly pods = new Map<string, RunningPod>();
  private readonly pending = new Set<string>();
  private readonly ipam: HostLocalIpam;
  private nextPid: number;
  private stopWatch: (() => void) | undefined;
  private started = false;
  /** What failed, as the kubelet's events would say it (`FailedCreatePodSandBox`...). */
  readonly events: string[] = [];

  constructor(private readonly options: KubeletOptions) {
    this.ipam = new HostLocalIpam(options.node.podCidr);
    // A kind node has run systemd, containerd and the kubelet before the first pod: PIDs start in the hundreds.
    this.nextPid = 200 + options.rng.int(800);
  }

  get nodeName(): string {
    return this.options.node.name;
  }

  /** Starts watching; pods already bound to the node are started too. */
  start(): void {
    const { store } = this.options;
    this.started = true;
    if (this.options.watchPods !== false)
      this.stopWatch = store.watch('Pod', (event) => this.podChanged(event.object));
    for (const pod of store.list('Pod')) if (pod.spec.nodeName === this.nodeName) this.schedule(pod);
  }

  /** A watch event's pod: synced on the next turn when it is bound here or already runs here. */
  podChanged(pod: Pod): void {
    if (!this.started) return;
    const { metadata, spec } = pod;
    const known = this.pods.has(objectKey(metadata.namespace, metadata.name));
    if (known || spec.nodeName === this.nodeName) this.schedule(pod);
  }

  /** Whether the pod of this key runs here (its sandbox is up). */
  runs(key: string): boolean {
    return this.pods.has(key);
  }

  /** Stops watching and tears every pod down (the node is leaving). */
  stop(): void {
    this.started = false;
    this.stopWatch?.();
    this.stopWatch = undefined;
    for (const key of [...this.pods.keys()]) this.teardown(key);
  }

  /** The containers crictl lists, in creation order. */
  containers(): ContainerRecord[] {
    return [...this.pods.values()].flatMap((pod) => pod.containers);
  }

  podNamespace(namespace: string, name: string): Namespace | undefined {
    return this.pods.get(objectKey(namespace, name))?.ns;
  }

  namespaceOfPid(pid: number): Namespace | undefined {
    for (const pod of this.pods.values())
      if (pod.pausePid === pid || pod.containers.some((container) => container.pid === pid)) return pod.ns;
    return undefined;
  }

  /** The sandbox of a running pod (its namespace name, veth and address). */
  sandboxOf(namespace: string, name: string): PodSandbox | undefined {
    return this.pods.get(objectKey(namespace, name))?.sandbox;
  }

  /** The pod workers' sync, one scheduler turn after the watch event (never inside the store's emit). */
  private schedule(pod: Pod): void {
    const key = objectKey(pod.metadata.namespace, pod.metadata.name);
    if (this.pending.has(key)) return;
    this.pending.add(key);
    this.options.runner.sim.scheduler.schedule(0, () => {
      this.pending.delete(key);
      this.sync(key, pod.metadata.namespace, pod.metadata.name);
    });
  }

  private sync(key: string, namespace: string, name: string): void {
    const current = this.options.store.get('Pod', namespace, name);
    const running = this.pods.get(key);
    const wanted = current !== undefined && current.spec.nodeName === this.nodeName ? current : undefined;
    if (running !== undefined && (wanted === undefined || wanted.metadata.uid !== running.uid)) {
      this.teardown(key);
    }
    if (wanted === undefined) return;
    const live = this.pods.get(key);
    if (live === undefined && wanted.metadata.deletionTimestamp === undefined) this.startPod(key, wanted);
    else if (live !== undefined && wanted.metadata.deletionTimestamp !== undefined) {
      // killContainer runs each container's preStop hook first (in parallel, within the grace period); the
      // containers keep running and serving meanwhile, and are killed when the longest hook ends.
      const hook = preStopSeconds(wanted);
      if (hook > 0) {
        if (!live.stopping) {
          live.stopping = true;
          this.options.runner.sim.scheduler.schedule(hook * 1e9, () => this.afterPreStop(key, live.uid));
        }
        return;
      }
      this.killContainers(live);
      this.reportStopped(key, wanted);
    }
  }

  /** The preStop hooks ended: the containers are killed, unless the pod went meanwhile. */
  private afterPreStop(key: string, uid: string): void {
    const live = this.pods.get(key);
    const [namespace, name] = key.includes('/') ? key.split('/') : ['', key];
    const pod = this.options.store.get('Pod', namespace!, name!);
    if (live === undefined || live.uid !== uid || pod === undefined || pod.metadata.uid !== uid) return;
    this.killContainers(live);
    this.reportStopped(key, pod);
  }

  /**
   * The status manager after a terminating pod's containers exited: the containers and the pod are no longer ready
   * (generateAPIPodStatus), so the pod's endpoint turns `serving: false` and kube-proxy stops falling back to it.
   */
  private reportStopped(key: string, pod: Pod): void {
    if (!pod.status.ready && pod.status.containerStatuses.every((status) => !status.ready)) return;
    const containerStatuses = pod.status.containerStatuses.map((status) => ({ ...status, ready: false }));
    const updated = this.options.store.update({
      ...pod,
      status: { ...pod.status, ready: false, containerStatuses },
    });
    if (!updated.ok) this.events.push(`${key}: status update refused: ${updated.error.message}`);
  }

  private startPod(key: string, pod: Pod): void {
    const { runner, node, cni, network, rng, store } = this.options;
    let ns: Namespace;
    let sandbox: PodSandbox | undefined;
    if (pod.spec.hostNetwork) {
      ns = runner.nsOf(node.ns);
    } else {
      const pinned = pod.metadata.annotations[POD_IP_ANNOTATION];
      const address = this.ipam.allocate(key, pinned);
      if (!address.ok) {
        this.events.push(`${key}: FailedCreatePodSandBox: ${address.error}`);
        return;
      }
      const nsName = `cni-${uuid(rng)}`;
      sandbox = seededSandbox(nsName, key, address.address, rng);
      ns = runner.addNamespace(nsName);
      const failure = this.runAll([
        { ns: nsName, argv: ['ip', 'link', 'set', 'dev', 'lo', 'up'] },
        ...cni.podAdded(node, sandbox, network),
      ]);
      if (failure !== undefined) {
        this.events.push(`${key}: FailedCreatePodSandBox: plugin ${cni.name}: ${failure}`);
        this.ipam.release(key);
        runner.removeNamespace(nsName);
        return;
      }
      this.writePodResolvConf(ns, pod);
    }
    const sandboxId = hex64(rng);
    const pausePid = this.allocatePid();
    const now = runner.sim.now;
    const containers: ContainerRecord[] = pod.spec.containers.map((container) => ({
      id: hex64(rng),
      name: container.name,
      image: container.image,
      podSandboxId: sandboxId,
      podName: pod.metadata.name,
      podNamespace: pod.metadata.namespace,
      pid: this.allocatePid(),
      createdAt: now,
      state: 'CONTAINER_RUNNING',
      attempt: 0,
    }));
    const processes: RunningContainer[] = [];
    for (const container of pod.spec.containers) {
      const image = this.options.images.get(container.image);
      if (image !== undefined) processes.push(image(ns, pod, container));
    }
    const probers: ReadinessProber[] = [];
    this.pods.set(key, {
      uid: pod.metadata.uid,
      ns,
      sandbox,
      pausePid,
      containers,
      processes,
      probers,
      stopping: false,
    });
    // A container with a readiness probe starts unready; the others are ready once started.
    const containerStatuses: ContainerStatus[] = containers.map((container, i) => ({
      name: container.name,
      containerID: `containerd://${container.id}`,
      ready: pod.spec.containers[i]!.readinessProbe === undefined,
    }));
    const updated = store.update({
      ...pod,
      status: {
        ...pod.status,
        phase: 'Running',
        podIP: sandbox?.address ?? node.address,
        hostIP: node.address,
        ready: containerStatuses.every((status) => status.ready),
        containerStatuses,
      },
    });
    if (!updated.ok) {
      this.events.push(`${key}: status update refused: ${updated.error.message}`);
      return;
    }
    const podIp = sandbox?.address ?? node.address;
    pod.spec.containers.forEach((container, i) => {
      if (container.readinessProbe === undefined) return;
      const prober = new ReadinessProber(
        runner.nsOf(node.ns),
        runner.sim.scheduler,
        podIp,
        container.readinessProbe,
        (ready) => this.reportReadiness(key, i, ready),
      );
      probers.push(prober);
      prober.start();
    });
  }

  /** The status manager after a probe result flipped: the container's ready, and the pod's as their conjunction. */
  private reportReadiness(key: string, index: number, ready: boolean): void {
    const running = this.pods.get(key);
    const [namespace, name] = key.includes('/') ? key.split('/') : ['', key];
    const pod = this.options.store.get('Pod', namespace!, name!);
    if (running === undefined || pod === undefined || pod.metadata.uid !== running.uid) return;
    if (pod.metadata.deletionTimestamp !== undefined) return;
    const containerStatuses = pod.status.containerStatuses.map((status, i) =>
      i === index ? { ...status, ready } : status,
    );
    const updated = this.options.store.update({
      ...pod,
      status: { ...pod.status, ready: containerStatuses.every((status) => status.ready), containerStatuses },
    });
    if (!updated.ok) this.events.push(`${key}: status update refused: ${updated.error.message}`);
  }

  /** The sandbox's /etc/resolv.conf for dnsPolicy ClusterFirst (kubelet's dns.go GetPodDNS, containerd's file). */
  private writePodResolvConf(ns: Namespace, pod: Pod): void {
    const nameserver = this.options.clusterDns;
    if (nameserver === undefined) return;
    const dnsOptions = pod.spec.dnsConfig?.options;
    writeResolvConf(
      ns,
      podResolvConf(pod.metadata.namespace, {
        nameserver,
        ...(dnsOptions !== undefined ? { dnsOptions } : {}),
      }),
    );
  }

  /** KillContainer: the processes stop and crictl shows the containers exited (`crictl ps -a`). */
  private killContainers(pod: RunningPod): void {
    for (const prober of pod.probers.splice(0)) prober.stop();
    for (const process of pod.processes.splice(0)) process.stop();
    pod.containers.forEach((container, i) => {
      pod.containers[i] = { ...container, state: 'CONTAINER_EXITED' };
    });
  }

  /** StopPodSandbox then RemovePodSandbox: containers killed, CNI DEL, the namespace removed, the address freed. */
  private teardown(key: string): void {
    const pod = this.pods.get(key);
    if (pod === undefined) return;
    const { runner, node, cni, network } = this.options;
    this.killContainers(pod);
    this.pods.delete(key);
    if (pod.sandbox === undefined) return;
    const failure = this.runAll(cni.podRemoved(node, pod.sandbox, network));
    if (failure !== undefined) this.events.push(`${key}: StopPodSandbox: plugin ${cni.name}: ${failure}`);
    this.ipam.release(key);
    runner.removeNamespace(pod.sandbox.ns);
  }

  /** Runs commands until one fails; returns what it said, or undefined when all succeeded. */
  private runAll(commands: readonly Command[]): string | undefined {
    for (const command of commands) {
      const result = this.options.runner.run(command);
      if (result.exitCode !== 0)
        return `${this.options.runner.argv(command).join(' ')}: ${result.stderr.trim()}`;
    }
    return undefined;
  }

  private allocatePid(): number {
    this.nextPid += 1 + this.options.rng.int(40);
    return this.nextPid;
  }
}

/** 64 hex digits, as containerd's IDs. */
function hex64(rng: Rng): string {
  return [...rng.bytes(32)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A version-4 UUID from the seed (containerd's netns names: `cni-` + uuid). */
function uuid(rng: Rng): string {
  const bytes = rng.bytes(16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** How long the kubelet waits for a pod's preStop hooks: the longest, at most the grace period. */
function preStopSeconds(pod: Pod): number {
  let longest = 0;
  for (const container of pod.spec.containers)
    longest = Math.max(longest, container.lifecycle?.preStop?.sleep.seconds ?? 0);
  return Math.min(longest, pod.spec.terminationGracePeriodSeconds);
}
